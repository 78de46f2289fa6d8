"""Batch throughput with 1 and 2 worker processes and 1 and 2 Ray actors, and identical runs.

    python -m structfirst.eval.bench_workers --index DIR [--queries data/queries/dev.jsonl]
        [--config fast] [--k 100] [--settings local:1,local:2,ray:1,ray:2]

Each setting answers every question of the query file through `eval.batch_runner.BatchRunner`
twice: the first pass includes starting the workers (processes or actors, each opening the
engine and loading its planes), the second is warm. Prints questions/s of both passes, and
whether the TREC run each setting writes is byte-identical to the first setting's.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from datetime import date
from pathlib import Path

from structfirst.eval.batch_runner import AskJob, BatchRunner
from structfirst.ingest.corpus import REPO_ROOT


def load_jobs(path: Path, config: str, k: int) -> list[AskJob]:
    jobs = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
            as_of = date.fromisoformat(rec["as_of"]) if rec.get("as_of") else None
            jobs.append(AskJob(rec.get("qid", f"line {lineno}"), rec["question"], as_of, None,
                               config, k))
        except (json.JSONDecodeError, KeyError, ValueError) as exc:
            raise ValueError(f"{path}:{lineno}: not a query record ({exc})") from exc
    return jobs


def run_text(jobs: list[AskJob], bundles: list) -> str:
    return "".join(
        f"{job.key} Q0 {c.version_id} {c.rank} {len(b.candidates) + 1 - c.rank} x\n"
        for job, b in zip(jobs, bundles, strict=True)
        for c in b.candidates
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--queries", type=Path, default=REPO_ROOT / "data" / "queries" / "dev.jsonl")
    ap.add_argument("--config", default="fast")
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--settings", default="local:1,local:2,ray:1,ray:2")
    args = ap.parse_args()
    jobs = load_jobs(args.queries, args.config, args.k)
    reference = None
    print(f"{len(jobs)} questions from {args.queries}, config {args.config}, k={args.k}")
    for setting in args.settings.split(","):
        kind, _, n = setting.partition(":")
        workers = int(n)
        runner = BatchRunner(args.index, workers, "local" if kind == "ray" else None)
        try:
            t0 = time.perf_counter()
            runner.transform(jobs)
            t1 = time.perf_counter()
            bundles = runner.transform(jobs)
            t2 = time.perf_counter()
        finally:
            runner.close()
            if kind == "ray":
                import ray

                ray.shutdown()
        digest = hashlib.sha256(run_text(jobs, bundles).encode()).hexdigest()[:16]
        reference = reference or digest
        print(f"{setting:>8}: cold {len(jobs) / (t1 - t0):6.1f} q/s, warm "
              f"{len(jobs) / (t2 - t1):6.1f} q/s, run {digest} "
              f"{'identical' if digest == reference else 'DIFFERENT'}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
