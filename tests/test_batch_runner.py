"""Batch runs in worker processes and on Ray: the same bundles, hence byte-identical run files,
as one engine in this process."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest
import typer
from structfirst.cli import query_cmd
from structfirst.eval.batch_runner import AskJob, BatchRunner
from typer.testing import CliRunner

pytest_plugins = ["engine_fixtures"]

QUESTIONS = (
    ("What was the §547(c)(9) threshold for a case filed in June 2011?", None),
    ("Who presides at the meeting of creditors under § 341?", date(2010, 6, 1)),
    ("What does 'insider' mean under the Bankruptcy Code?", date(2016, 4, 1)),
    ("What must a lessor disclose before consummation of a consumer lease?", date(2016, 6, 1)),
    ("Can the trustee avoid a preferential transfer under § 547(b)?", date(1995, 6, 1)),
)


def jobs() -> list[AskJob]:
    return [AskJob(f"q{i}", q, day, None, "fast", 10) for i, (q, day) in enumerate(QUESTIONS)]


def ranked(bundles: list) -> list[list[tuple[str, float]]]:
    return [[(c.version_id, c.fused_score) for c in b.candidates] for b in bundles]


@pytest.fixture(scope="module")
def reference(small_index: Path) -> list[list[tuple[str, float]]]:
    with BatchRunner(small_index, workers=1, chunk=2) as runner:
        out = ranked(runner.transform(jobs()))
    assert sum(map(bool, out)) >= 3  # not vacuous: most questions have candidates
    return out


RAY_RUN = """
import json, sys
sys.path.insert(0, sys.argv[2])
import ray
from test_batch_runner import jobs, ranked
from structfirst.eval.batch_runner import BatchRunner
try:
    with BatchRunner(sys.argv[1], workers=2, ray="local", chunk=2) as runner:
        print(json.dumps(ranked(runner.transform(jobs()))))
finally:
    ray.shutdown()
"""


def test_ray_actors_give_the_same_bundles(small_index: Path, reference: list) -> None:
    """In a process of its own: Ray's threads left in the test process crashed later tests."""
    proc = subprocess.run(
        [sys.executable, "-c", RAY_RUN, str(small_index), str(Path(__file__).parent)],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got == [[list(hit) for hit in bundle] for bundle in reference]


def test_a_bad_job_names_its_key(small_index: Path) -> None:
    bad = [AskJob("topics.tsv: query q9", "What is an insider?", None, None, "no-such", 10)]
    with BatchRunner(small_index, workers=1) as runner, pytest.raises(ValueError, match="q9"):
        runner.transform(bad)


def test_search_with_two_workers_writes_the_same_run(small_index: Path, tmp_path: Path) -> None:
    app = typer.Typer()
    query_cmd.register(app)
    topics = tmp_path / "topics.tsv"
    topics.write_text("".join(f"q{i}\t{q}\n" for i, (q, _) in enumerate(QUESTIONS)), "utf-8")
    runs = []
    for workers in ("1", "2"):
        run = tmp_path / f"run-{workers}.trec"
        result = CliRunner().invoke(
            app,
            ["search", "--index", str(small_index), "--topics", str(topics), "--run", str(run),
             "--config", "fast", "--k", "10", "--workers", workers],
        )
        assert result.exit_code == 0, result.output
        runs.append(run.read_bytes())
    assert runs[0] and runs[0] == runs[1]  # worker processes: byte-identical run


def test_worker_engines_load_the_models_folder_given(small_index: Path, tmp_path: Path) -> None:
    from structfirst.eval import batch_runner

    runner = BatchRunner(small_index, workers=2, models_dir=tmp_path / "models-b")
    batch_runner._open_worker(runner.index, runner.models_dir)
    assert batch_runner._worker_engine is not None
    assert batch_runner._worker_engine.models_dir == tmp_path / "models-b"
    batch_runner._worker_engine.close()
    batch_runner._worker_engine = None
