"""Index directories and their snapshots: staged writes and an atomic switch.

Layout of an index directory:

    <index_dir>/
      CURRENT                 the id of the current snapshot (one line)
      .lock                   held (flock) by the one ingest allowed at a time
      snapshots/
        <id>/                 a complete snapshot: meta.json, store.duckdb, graph.json.gz,
                              one sub-directory per index (lucene/, dense/, colbert/)
        .tmp-<id>-<pid>/      a snapshot being written (never read)

A snapshot id is `<input hash>-<UTC timestamp>`: the input hash is a sha256 over the sources'
sha256s and the parser versions (so equal inputs share the prefix), the timestamp tells
re-ingests apart. An ingest writes everything into a temporary directory inside `snapshots/`,
writes `meta.json` last, renames the directory to its id and only then replaces `CURRENT`
(`os.replace`, atomic on POSIX). If anything fails the temporary directory is removed and
`CURRENT` still names the previous snapshot, which stays usable.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from structfirst.ingest.citation_graph import GRAPH_FILE
from structfirst.ingest.duckdb_store import STORE_FILE

CURRENT_FILE = "CURRENT"
SNAPSHOTS_DIR = "snapshots"
META_FILE = "meta.json"
LOCK_FILE = ".lock"
TMP_PREFIX = ".tmp-"
KEEP_SNAPSHOTS = 3  # complete snapshots kept after a switch (the current one included)


class SnapshotError(FileNotFoundError):
    """A missing or unusable index directory or snapshot; the message names the path."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    snapshot_id: str
    path: Path
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def store_path(self) -> Path:
        return self.path / STORE_FILE

    @property
    def graph_path(self) -> Path:
        return self.path / GRAPH_FILE

    @property
    def sources(self) -> list[dict[str, Any]]:
        return list(self.meta.get("sources", []))


def snapshot_id_for(
    sources: Sequence[Mapping[str, Any]],
    parser_versions: Mapping[str, str],
    when: datetime | None = None,
) -> str:
    """`<first 16 hex of sha256(inputs)>-<YYYYmmddTHHMMSSmmmZ>`."""
    digest = hashlib.sha256()
    for src in sorted(sources, key=lambda s: (str(s.get("source_id")), str(s.get("sha256")))):
        digest.update(f"{src.get('source_id')}\x1f{src.get('sha256')}\n".encode())
    for name in sorted(parser_versions):
        digest.update(f"{name}\x1f{parser_versions[name]}\n".encode())
    when = (when or datetime.now(UTC)).astimezone(UTC)
    stamp = when.strftime("%Y%m%dT%H%M%S") + f"{when.microsecond // 1000:03d}Z"
    return f"{digest.hexdigest()[:16]}-{stamp}"


def file_sha256(path: Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return digest.hexdigest()


@contextmanager
def _locked(index_dir: Path) -> Iterator[None]:
    with open(index_dir / LOCK_FILE, "a+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SnapshotError(
                f"{index_dir}: another ingest holds {index_dir / LOCK_FILE}"
            ) from None
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


class Staging:
    """A snapshot being written: `path` is its temporary directory."""

    def __init__(self, index_dir: Path, snapshot_id: str) -> None:
        self.index_dir = index_dir
        self.snapshot_id = snapshot_id
        self.path = index_dir / SNAPSHOTS_DIR / f"{TMP_PREFIX}{snapshot_id}-{os.getpid()}"
        self.committed: Snapshot | None = None

    def commit(self, meta: dict[str, Any]) -> Snapshot:
        """Write meta.json, move the directory into place and switch CURRENT to it."""
        meta = {**meta, "snapshot_id": self.snapshot_id}
        tmp_meta = self.path / (META_FILE + ".tmp")
        tmp_meta.write_text(json.dumps(meta, indent=2, ensure_ascii=False, default=str) + "\n")
        os.replace(tmp_meta, self.path / META_FILE)
        final = self.index_dir / SNAPSHOTS_DIR / self.snapshot_id
        os.rename(self.path, final)  # fails if `final` exists: ids never repeat
        self.path = final
        _fsync_dir(final.parent)
        tmp_current = self.index_dir / f"{CURRENT_FILE}.tmp-{os.getpid()}"
        tmp_current.write_text(self.snapshot_id + "\n")
        os.replace(tmp_current, self.index_dir / CURRENT_FILE)
        _fsync_dir(self.index_dir)
        self.committed = Snapshot(self.snapshot_id, final, meta)
        return self.committed


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextmanager
def staging(index_dir: Path, snapshot_id: str, keep: int = KEEP_SNAPSHOTS) -> Iterator[Staging]:
    """Stage a snapshot under `index_dir`; on any exception the partial directory is removed
    and the previous snapshot stays current. Call `Staging.commit(meta)` to publish."""
    index_dir = Path(index_dir)
    index_dir.mkdir(parents=True, exist_ok=True)
    (index_dir / SNAPSHOTS_DIR).mkdir(exist_ok=True)
    with _locked(index_dir):
        for stale in (index_dir / SNAPSHOTS_DIR).glob(TMP_PREFIX + "*"):
            shutil.rmtree(stale, ignore_errors=True)  # left by a killed ingest; we hold the lock
        stage = Staging(index_dir, snapshot_id)
        stage.path.mkdir()
        try:
            yield stage
            if stage.committed is None:
                raise RuntimeError(f"{stage.path}: snapshot staged but never committed")
        except BaseException:
            if stage.committed is None:
                shutil.rmtree(stage.path, ignore_errors=True)
            raise
        prune(index_dir, keep)


def list_snapshots(index_dir: Path) -> list[Path]:
    """Complete snapshots (those with meta.json), oldest first."""
    root = Path(index_dir) / SNAPSHOTS_DIR
    if not root.is_dir():
        return []
    found = [
        p
        for p in root.iterdir()
        if p.is_dir() and not p.name.startswith(".") and (p / META_FILE).is_file()
    ]
    return sorted(found, key=lambda p: (p.name.rsplit("-", 1)[-1], p.name))


def prune(index_dir: Path, keep: int = KEEP_SNAPSHOTS) -> list[Path]:
    """Remove all but the newest `keep` complete snapshots, never the current one."""
    current = current_id(index_dir)
    snaps = list_snapshots(index_dir)
    doomed = [p for p in snaps[: max(0, len(snaps) - keep)] if p.name != current]
    for path in doomed:
        shutil.rmtree(path, ignore_errors=True)
    return doomed


def current_id(index_dir: Path) -> str | None:
    path = Path(index_dir) / CURRENT_FILE
    try:
        return path.read_text().strip() or None
    except FileNotFoundError:
        return None


def open_snapshot(index_dir: Path | str) -> Snapshot:
    """The current snapshot of `index_dir`, checked; SnapshotError names what is missing."""
    index_dir = Path(index_dir)
    if not index_dir.is_dir():
        raise SnapshotError(
            f"{index_dir}: no such index directory (run `structfirst ingest` first)"
        )
    current = index_dir / CURRENT_FILE
    if not current.is_file():
        raise SnapshotError(f"{current}: missing; {index_dir} holds no completed ingest")
    snapshot_id = current.read_text().strip()
    if not snapshot_id or "/" in snapshot_id or snapshot_id.startswith("."):
        raise SnapshotError(f"{current}: does not name a snapshot ({snapshot_id!r})")
    path = index_dir / SNAPSHOTS_DIR / snapshot_id
    if not path.is_dir():
        raise SnapshotError(f"{path}: snapshot named by {current} does not exist")
    meta_path = path / META_FILE
    if not meta_path.is_file():
        raise SnapshotError(f"{meta_path}: missing; snapshot {snapshot_id} is half-written")
    try:
        meta = json.loads(meta_path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise SnapshotError(f"{meta_path}: unreadable ({exc})") from exc
    snap = Snapshot(snapshot_id, path, meta)
    for needed in (snap.store_path, snap.graph_path):
        if not needed.is_file():
            raise SnapshotError(f"{needed}: missing from snapshot {snapshot_id}")
    return snap
