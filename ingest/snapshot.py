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
records the size and sha256 of every file it wrote in `meta.json` (written last), fsyncs every
file, renames the directory to its id and only then replaces `CURRENT` (`os.replace`, atomic
on POSIX). If anything fails the temporary directory is removed and `CURRENT` still names the
previous snapshot, which stays usable. The next ingest removes what a killed one left: `.tmp-*`
folders, snapshot folders without `meta.json` and `CURRENT.tmp-*` files.

Opening a snapshot checks every recorded file's size (a truncated store is refused, naming the
file); `verify_snapshot(..., full=True)` also compares the sha256s. `rollback` and
`use_snapshot` switch `CURRENT` back to a verified older snapshot.

Readers lease a snapshot (`lease`): a shared `flock` on its `meta.json`, held while the reader
uses it. Pruning takes an exclusive lock first and keeps any snapshot a reader still holds; it
renames a doomed snapshot to `.tmp-pruning-<id>` before deleting it, so a kill mid-way leaves
only a folder the next ingest removes.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import threading
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
FILES_KEY = "files"  # meta.json: relative path -> {"bytes": size, "sha256": hex digest}
PRUNING_PREFIX = TMP_PREFIX + "pruning-"


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
        """Record the files' checksums in meta.json, fsync everything, move the directory into
        place and switch CURRENT to it."""
        meta = {**meta, "snapshot_id": self.snapshot_id, FILES_KEY: file_checksums(self.path)}
        _fsync_tree(self.path)
        _write_synced(
            self.path / META_FILE,
            json.dumps(meta, indent=2, ensure_ascii=False, default=str) + "\n",
        )
        final = self.index_dir / SNAPSHOTS_DIR / self.snapshot_id
        os.rename(self.path, final)  # fails if `final` exists: ids never repeat
        self.path = final
        _fsync_dir(final.parent)
        _switch_current(self.index_dir, self.snapshot_id)
        self.committed = Snapshot(self.snapshot_id, final, meta)
        return self.committed


def file_checksums(root: Path) -> dict[str, dict[str, Any]]:
    """{relative path: {"bytes", "sha256"}} of every file under `root` but meta.json."""
    out = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink()):
        rel = path.relative_to(root).as_posix()
        if rel != META_FILE:
            out[rel] = {"bytes": path.stat().st_size, "sha256": file_sha256(path)}
    return out


def _write_synced(path: Path, text: str) -> None:
    """Write `path` whole via a temporary file, fsynced, then renamed over it."""
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def _switch_current(index_dir: Path, snapshot_id: str) -> None:
    _write_synced(index_dir / CURRENT_FILE, snapshot_id + "\n")


def _fsync_tree(root: Path) -> None:
    """fsync every file and directory under `root` (contents reach the disk before the switch)."""
    for dirpath, _, filenames in os.walk(root):
        for name in filenames:
            path = Path(dirpath) / name
            if path.is_symlink():
                continue
            fd = os.open(path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        _fsync_dir(Path(dirpath))


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
        remove_garbage(index_dir)
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


def remove_garbage(index_dir: Path) -> list[Path]:
    """Remove what killed ingests left: `.tmp-*` folders, snapshot folders without meta.json
    (never the current one) and `CURRENT.tmp-*` files. Call with the ingest lock held."""
    index_dir = Path(index_dir)
    current = current_id(index_dir)
    removed = []
    for path in sorted((index_dir / SNAPSHOTS_DIR).iterdir()):
        half = not path.name.startswith(".") and not (path / META_FILE).is_file()
        if path.is_dir() and (path.name.startswith(TMP_PREFIX) or half) and path.name != current:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    for path in index_dir.glob(f"{CURRENT_FILE}.tmp-*"):
        path.unlink(missing_ok=True)
        removed.append(path)
    return removed


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
    """Remove all but the newest `keep` complete snapshots, never the current one nor one a
    reader holds a lease on. Returns the removed ones."""
    current = current_id(index_dir)
    snaps = list_snapshots(index_dir)
    removed = []
    for path in snaps[: max(0, len(snaps) - keep)]:
        if path.name == current:
            continue
        try:
            fd = os.open(path / META_FILE, os.O_RDONLY)
        except FileNotFoundError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # leased by a reader: kept until a later prune
            doomed = path.with_name(f"{PRUNING_PREFIX}{path.name}")
            os.rename(path, doomed)
            _fsync_dir(path.parent)
            shutil.rmtree(doomed, ignore_errors=True)
            removed.append(path)
        finally:
            os.close(fd)
    return removed


def current_id(index_dir: Path) -> str | None:
    path = Path(index_dir) / CURRENT_FILE
    try:
        return path.read_text().strip() or None
    except FileNotFoundError:
        return None


def open_snapshot(
    index_dir: Path | str, snapshot_id: str | None = None, *, full: bool = False
) -> Snapshot:
    """The current snapshot of `index_dir` (or the one named), checked: every file meta.json
    records must be there with its size (and, with `full`, its sha256). SnapshotError names
    what is missing or damaged."""
    index_dir = Path(index_dir)
    if not index_dir.is_dir():
        raise SnapshotError(
            f"{index_dir}: no such index directory (run `structfirst ingest` first)"
        )
    current = index_dir / CURRENT_FILE
    if snapshot_id is None:
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
    if not isinstance(meta, dict):
        raise SnapshotError(f"{meta_path}: not a JSON object")
    snap = Snapshot(snapshot_id, path, meta)
    for needed in (snap.store_path, snap.graph_path):
        if not needed.is_file():
            raise SnapshotError(f"{needed}: missing from snapshot {snapshot_id}")
    problems = verify_snapshot(snap, full=full)
    if problems:
        raise SnapshotError(
            f"snapshot {snapshot_id} is damaged: {'; '.join(problems)} "
            f"(run `structfirst rollback --index {index_dir}`)"
        )
    return snap


def verify_snapshot(snap: Snapshot, *, full: bool = False) -> list[str]:
    """The problems of `snap` against the checksums in its meta.json, one per damaged file
    (sizes; sha256s too with `full`). A snapshot written before checksums were recorded has
    nothing to check against: `[]`, and `Snapshot.meta` has no "files"."""
    recorded = snap.meta.get(FILES_KEY)
    if not isinstance(recorded, dict):
        return []
    problems = []
    for rel, want in sorted(recorded.items()):
        path = snap.path / rel
        try:
            size = path.stat().st_size
        except OSError:
            problems.append(f"{path}: missing")
            continue
        if size != want.get("bytes"):
            problems.append(f"{path}: {size:,} bytes, {want.get('bytes'):,} recorded")
        elif full and file_sha256(path) != want.get("sha256"):
            problems.append(f"{path}: sha256 differs from the one recorded")
    return problems


class Lease:
    """A reader's hold on one snapshot: pruning keeps it until `release()` (or until the
    process ends). Take one with `lease(index_dir)`."""

    def __init__(self, snapshot: Snapshot, fd: int) -> None:
        self.snapshot = snapshot
        self._fd: int | None = fd
        self._lock = threading.Lock()

    def release(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)  # closing drops the flock
                self._fd = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def __del__(self) -> None:
        self.release()


def lease(index_dir: Path | str, *, full: bool = False, attempts: int = 5) -> Lease:
    """Open the current snapshot of `index_dir` (checked as `open_snapshot` does) and hold a
    shared lock on its meta.json so that pruning keeps it. Retries when CURRENT moved on and
    the snapshot it named was pruned in between."""
    index_dir = Path(index_dir)
    for _ in range(attempts):
        snap = open_snapshot(index_dir, full=full)
        try:
            fd = os.open(snap.path / META_FILE, os.O_RDONLY)
        except FileNotFoundError:
            continue  # pruned between reading CURRENT and opening it
        fcntl.flock(fd, fcntl.LOCK_SH)
        if (snap.path / META_FILE).is_file():
            return Lease(snap, fd)
        os.close(fd)
    raise SnapshotError(f"{index_dir}: CURRENT kept moving; no snapshot could be leased")


def rollback(index_dir: Path | str) -> Snapshot:
    """Switch CURRENT to the newest snapshot older than the current one that passes a full
    verification; SnapshotError when there is none."""
    index_dir = Path(index_dir)
    current = current_id(index_dir)
    older = [p.name for p in list_snapshots(index_dir)]
    if current in older:
        older = older[: older.index(current)]
    tried = []
    for snapshot_id in reversed(older):
        try:
            return use_snapshot(index_dir, snapshot_id)
        except SnapshotError as exc:
            tried.append(str(exc))
    raise SnapshotError(
        f"{index_dir}: no verified snapshot older than {current} to roll back to"
        + (f" ({'; '.join(tried)})" if tried else "")
    )


def use_snapshot(index_dir: Path | str, snapshot_id: str) -> Snapshot:
    """Verify snapshot `snapshot_id` fully and switch CURRENT to it (under the ingest lock)."""
    index_dir = Path(index_dir)
    with _locked(index_dir):
        snap = open_snapshot(index_dir, snapshot_id, full=True)
        _switch_current(index_dir, snapshot_id)
    return snap
