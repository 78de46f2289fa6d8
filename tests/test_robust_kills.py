"""Fault injection (issue 12): an ingest child process is killed (SIGKILL) in each phase; the
previous snapshot still answers identically and the next ingest leaves no garbage."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from structfirst.engine.engine import Engine
from structfirst.ingest.pipeline import ingest
from structfirst.ingest.snapshot import (
    CURRENT_FILE,
    SNAPSHOTS_DIR,
    current_id,
    list_snapshots,
    open_snapshot,
)
from test_robust_snapshots import answer_ids, jsonl_corpus

# phase -> the code that makes the child kill itself there
KILL_AT = {
    "writing the store": "pl.write_store = after(pl.write_store)",
    "writing the lucene index": "li.LuceneIndexBuilder._run_anserini = die",
    "before meta.json": "sn._fsync_tree = die",
    "before the switch": "sn._switch_current = die",
    "during pruning": "sn.shutil.rmtree = prune_then_die",
}
CHILD = """
import os, shutil, signal, sys
from pathlib import Path
import structfirst.ingest.lucene_index as li
import structfirst.ingest.pipeline as pl
import structfirst.ingest.snapshot as sn

def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

def after(fn):
    def wrapped(*args, **kwargs):
        fn(*args, **kwargs)
        die()
    return wrapped

real_rmtree = shutil.rmtree

def prune_then_die(path, *args, **kwargs):
    if Path(path).name.startswith(sn.PRUNING_PREFIX):
        real_rmtree(Path(path) / "lucene")  # half deleted
        die()
    real_rmtree(path, *args, **kwargs)

{kill}
pl.ingest([Path(sys.argv[1])], Path(sys.argv[2]), dense=False, progress=False)
"""


@pytest.fixture(scope="module")
def three_snapshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An index with three snapshots (so a fourth ingest prunes one)."""
    root = tmp_path_factory.mktemp("kills")
    index = root / "index"
    for version in (1, 2, 3):
        ingest([jsonl_corpus(root / f"src{version}", version)], index, dense=False, progress=False)
    return index


@pytest.mark.parametrize("phase", list(KILL_AT))
def test_kill_in_each_phase(three_snapshots: Path, tmp_path: Path, phase: str) -> None:
    index = tmp_path / "index"
    shutil.copytree(three_snapshots, index)
    before_id = current_id(index)
    with Engine.open(index) as engine:
        before = answer_ids(engine)
    child = subprocess.run(
        [sys.executable, "-c", CHILD.format(kill=KILL_AT[phase]),
         str(jsonl_corpus(tmp_path / "src4", 4)), str(index)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert child.returncode == -signal.SIGKILL, child.stderr[-2000:]
    if phase == "during pruning":  # after the switch: the new one is current, the old intact
        assert current_id(index) != before_id
        open_snapshot(index, before_id, full=True)
    else:  # before the switch: the previous snapshot stays current
        assert current_id(index) == before_id
    with Engine.open(index, full_verify=True) as engine:
        assert answer_ids(engine) == before

    ingest([jsonl_corpus(tmp_path / "src5", 5)], index, dense=False, progress=False)
    entries = sorted(p.name for p in (index / SNAPSHOTS_DIR).iterdir())
    assert entries == sorted(p.name for p in list_snapshots(index))  # complete snapshots only
    assert not list(index.glob(f"{CURRENT_FILE}.tmp-*"))
    for path in list_snapshots(index):
        open_snapshot(index, path.name, full=True)
