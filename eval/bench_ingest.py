"""Ingest throughput: every Title 11 edition, then the 2018 US Code titles.

    python -m structfirst.eval.bench_ingest [--title11 | --usc2018] [--dense] [--keep DIR]

Each benchmark ingests into a fresh index directory (temporary unless --keep) with the lexical
index (when its builder is installed; --dense adds the dense and ColBERT ones) and prints the
wall time, the per-stage seconds, the peak resident memory of the process (getrusage maxrss)
and artifacts (versions written) per second. With neither flag both run, each in its own
process so that one's peak memory does not hide the other's.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from structfirst.ingest.corpus import corpus_root

BENCHES = ("title11", "usc2018")


def sources_for(name: str) -> list[Path]:
    root = corpus_root() / "us-code"
    return [root / "title-11"] if name == "title11" else [root / "2018"]


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux


def run(name: str, dense: bool, keep: Path | None) -> dict[str, Any]:
    from structfirst.ingest.pipeline import default_builders, ingest

    index = keep or Path(tempfile.mkdtemp(prefix=f"bench-{name}-"))
    builders, missing = default_builders(dense, index)
    started = time.perf_counter()
    try:
        info = ingest(sources_for(name), index, builders=builders, progress=sys.stderr.isatty())
        wall = time.perf_counter() - started
        return {
            "benchmark": name,
            "sources": len(info.sources),
            "skipped": len(info.skipped),
            "bytes": sum(s["bytes"] for s in info.sources),
            "edition_nodes": sum(s["nodes"] for s in info.sources),
            "artifacts": info.counts["artifacts"],
            "edges": info.counts["edges"],
            "facts": info.counts["facts"],
            "indexes": sorted(info.indexes),
            "indexes_missing": missing,
            "wall_s": round(wall, 2),
            "stages_s": {k: round(v, 2) for k, v in info.seconds.items()},
            "peak_rss_mb": round(peak_rss_mb(), 1),
            "artifacts_per_s": round(info.counts["artifacts"] / wall, 1),
            "edition_nodes_per_s": round(sum(s["nodes"] for s in info.sources) / wall, 1),
        }
    finally:
        if keep is None:
            shutil.rmtree(index, ignore_errors=True)


def report(figures: dict[str, Any]) -> None:
    print(f"== {figures['benchmark']}")
    for key, value in figures.items():
        if key != "benchmark":
            print(f"  {key:20} {value}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--title11", action="store_true", help="all Title 11 editions")
    parser.add_argument("--usc2018", action="store_true", help="the 2018 US Code titles")
    parser.add_argument("--dense", action="store_true", help="also build dense/ColBERT")
    parser.add_argument("--keep", type=Path, help="index directory to keep (one benchmark)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    chosen = [b for b in BENCHES if getattr(args, b)]
    if len(chosen) == 1:
        figures = run(chosen[0], args.dense, args.keep)
        print(json.dumps(figures)) if args.json else report(figures)
        return 0
    if args.keep:
        parser.error("--keep needs exactly one of --title11, --usc2018")
    status = 0
    for name in BENCHES:  # one process each: separate peak memory
        cmd = [sys.executable, "-m", "structfirst.eval.bench_ingest", f"--{name}"]
        cmd += ["--dense"] * args.dense + ["--json"] * args.json
        status |= subprocess.call(cmd)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
