"""Verified snapshots, rollback, reader leases, garbage removal (issue 12, findings 1, 3, 7)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from structfirst.cli.main import app
from structfirst.engine.engine import Engine
from structfirst.ingest.pipeline import ingest
from structfirst.ingest.snapshot import (
    CURRENT_FILE,
    FILES_KEY,
    META_FILE,
    SNAPSHOTS_DIR,
    SnapshotError,
    current_id,
    list_snapshots,
    open_snapshot,
    rollback,
    verify_snapshot,
)
from structfirst.rules.library_loader import load_thresholds
from structfirst.rules.parameters import ThresholdSourceError
from typer.testing import CliRunner

pytest_plugins = ["engine_fixtures"]

C9_QUESTION = "What was the §547(c)(9) threshold for a case filed in June 2019?"


def jsonl_corpus(folder: Path, version: int) -> Path:
    """A three-line JSONL source; `version` changes one provision's text (a new input)."""
    folder.mkdir(parents=True, exist_ok=True)
    base = {"jurisdiction": "us-ia", "authority": "statute", "effective_from": "2019-07-01"}
    lines = [
        {"id": "/us/ia/code/s321A.1", "type": "Section", "heading": "Definitions.",
         "text": "Motor vehicle means every self-propelled vehicle.", **base},
        {"id": "/us/ia/code/s321A.5", "type": "Section", "heading": "Security required.",
         "text": f"The owner of a motor vehicle shall deposit security (version {version}).",
         **base},
        {"id": "/us/ia/code/s321A.5/a", "parent": "/us/ia/code/s321A.5",
         "text": "Security of at least twenty thousand dollars per person.", **base},
    ]  # fmt: skip
    path = folder / "iowa.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def ingest_version(index: Path, tmp: Path, version: int) -> str:
    src = jsonl_corpus(tmp / f"src{version}", version)
    return ingest([src], index, dense=False, progress=False).snapshot_id


def answer_ids(engine: Engine, question: str = "security for a motor vehicle owner") -> list[str]:
    bundle = engine.ask(question, as_of=None, jurisdiction="us-ia", config="fast")
    return [c.version_id for c in bundle.candidates]


@pytest.fixture()
def damaged_copy(small_index: Path, tmp_path: Path) -> Path:
    """A copy of the small Title 11 index with its store cut to 60% of its size."""
    copy = tmp_path / "index"
    shutil.copytree(small_index, copy)
    store = open_snapshot(copy).store_path
    data = store.read_bytes()
    store.write_bytes(data[: int(len(data) * 0.6)])
    return copy


def test_checksums_of_every_file_are_recorded(small_index: Path) -> None:
    snap = open_snapshot(small_index, full=True)
    files = snap.meta[FILES_KEY]
    assert "store.duckdb" in files and "graph.json.gz" in files
    assert any(name.startswith("lucene/") for name in files)
    assert all(len(f["sha256"]) == 64 and f["bytes"] >= 0 for f in files.values())
    assert verify_snapshot(snap, full=True) == []


def test_truncated_store_is_refused_never_the_base_amount(damaged_copy: Path) -> None:
    """Finding 1: a store cut to 60% answered $5,000 (the base amount) instead of $6,825."""
    with pytest.raises(SnapshotError, match=r"store\.duckdb: .* bytes, .* recorded"):
        Engine.open(damaged_copy)
    result = CliRunner().invoke(
        app, ["ask", C9_QUESTION, "--index", str(damaged_copy), "--config", "fast"]
    )
    assert result.exit_code == 1
    assert "store.duckdb" in result.output and "rollback" in result.output
    assert "5,000" not in result.output and "Traceback" not in result.output


def test_store_damage_without_recorded_checksums_is_still_an_error(damaged_copy: Path) -> None:
    """A snapshot written before checksums: the DuckDB read fails with the file named, and the
    rule library refuses to run on the statute's base amounts."""
    meta_path = damaged_copy / SNAPSHOTS_DIR / str(current_id(damaged_copy)) / META_FILE
    meta = json.loads(meta_path.read_text())
    del meta[FILES_KEY]
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(ThresholdSourceError, match="cannot read the ingested thresholds"):
        load_thresholds(damaged_copy)
    result = CliRunner().invoke(
        app, ["ask", C9_QUESTION, "--index", str(damaged_copy), "--config", "fast"]
    )
    assert result.exit_code == 1 and "cannot read the ingested thresholds" in result.output
    assert "5,000" not in result.output and "Traceback" not in result.output


def test_unreadable_store_is_named(damaged_copy: Path) -> None:
    """At 0-25% of its size the store gave a DuckDB traceback."""
    snap_dir = damaged_copy / SNAPSHOTS_DIR / str(current_id(damaged_copy))
    meta = json.loads((snap_dir / META_FILE).read_text())
    del meta[FILES_KEY]
    (snap_dir / META_FILE).write_text(json.dumps(meta))
    store = snap_dir / "store.duckdb"
    store.write_bytes(store.read_bytes()[:4096])
    with pytest.raises(SnapshotError, match=r"store\.duckdb: cannot read the store"):
        Engine.open(damaged_copy)


def test_same_size_damage_is_found_by_verify(small_index: Path, tmp_path: Path) -> None:
    copy = tmp_path / "index"
    shutil.copytree(small_index, copy)
    graph = open_snapshot(copy).graph_path
    data = bytearray(graph.read_bytes())
    data[len(data) // 2] ^= 0xFF
    graph.write_bytes(bytes(data))
    open_snapshot(copy)  # sizes match: the cheap check passes
    result = CliRunner().invoke(app, ["verify", "--index", str(copy)])
    assert result.exit_code == 1 and "graph.json.gz: sha256 differs" in result.output


def test_rollback_switches_to_the_previous_good_snapshot(tmp_path: Path) -> None:
    index = tmp_path / "index"
    first = ingest_version(index, tmp_path, 1)
    second = ingest_version(index, tmp_path, 2)
    store = open_snapshot(index).store_path
    store.write_bytes(store.read_bytes()[:100])
    with pytest.raises(SnapshotError):
        Engine.open(index)
    result = CliRunner().invoke(app, ["rollback", "--index", str(index)])
    assert result.exit_code == 0, result.output
    assert current_id(index) == first != second
    assert answer_ids(Engine.open(index))
    with pytest.raises(SnapshotError, match="no verified snapshot older"):
        rollback(index)
    result = CliRunner().invoke(app, ["use", second, "--index", str(index)])
    assert result.exit_code == 1 and "store.duckdb" in result.output
    assert current_id(index) == first


def test_open_engine_survives_reingests_and_reloads(tmp_path: Path) -> None:
    """Finding 3: pruning deleted the snapshot a long-lived engine had open."""
    index = tmp_path / "index"
    first = ingest_version(index, tmp_path, 1)
    engine = Engine.open(index)
    before = answer_ids(engine)
    for version in (2, 3, 4, 5):
        ingest_version(index, tmp_path, version)
    assert (index / SNAPSHOTS_DIR / first).is_dir()  # leased: kept past KEEP_SNAPSHOTS
    assert engine.snapshot.snapshot_id == first and answer_ids(engine) == before
    assert engine.reload() is True and engine.snapshot.snapshot_id == current_id(index)
    assert engine.reload() is False
    assert answer_ids(engine)
    ingest_version(index, tmp_path, 6)
    assert not (index / SNAPSHOTS_DIR / first).exists()  # released by reload: pruned
    assert len(list_snapshots(index)) == 3  # the one the engine holds is among the newest
    engine.close()


def test_next_ingest_removes_what_killed_ones_left(tmp_path: Path) -> None:
    """Finding 7: half-pruned snapshots, CURRENT.tmp-* and .tmp-* folders were never removed."""
    index = tmp_path / "index"
    ingest_version(index, tmp_path, 1)
    snapshots = index / SNAPSHOTS_DIR
    (snapshots / ".tmp-abc-123").mkdir()
    (snapshots / ".tmp-pruning-old").mkdir()
    half = snapshots / "0123456789abcdef-20200101T000000000Z"
    (half / "lucene").mkdir(parents=True)  # a snapshot whose meta.json a kill removed
    (index / f"{CURRENT_FILE}.tmp-999").write_text("x\n")
    ingest_version(index, tmp_path, 2)
    left = sorted(p.name for p in snapshots.iterdir())
    assert left == sorted(p.name for p in list_snapshots(index))
    assert not list(index.glob(f"{CURRENT_FILE}.tmp-*"))
