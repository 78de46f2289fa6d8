"""Ingest's parse and dense-encode stages in this process and on a local Ray, in one run.

    python -m structfirst.eval.bench_ray_ingest [--editions 6] [--passages 800] [--workers 1 2]

The sample: the last `--editions` Title 11 editions. Each setting (this process, then a local Ray
with each `--workers` count) parses them (`parse_sources`: one Ray task per file on Ray) and
encodes the first `--passages` of their versions' passages with a fresh embedding cache
(`DenseIndexBuilder`: encoder actors on Ray), and the figures are printed as one JSON line per
setting: Ray start seconds, parse seconds, dense seconds (wall, the encoder's loading included)
and passages/s, and whether the source rows and the vectors equal this process's.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from structfirst.ingest.corpus import corpus_root
from structfirst.ingest.dense_index import INDEX_FILE, DenseIndexBuilder
from structfirst.ingest.pipeline import find_sources, indexable_docs, parse_sources
from structfirst.ingest.ray_ingest import RayIngest, connect
from structfirst.ingest.versioning import build_versions


def sample(editions: int) -> list[Path]:
    root = corpus_root() / "us-code" / "title-11"
    years = sorted(p.name for p in root.iterdir() if (p / "usc11.htm").is_file())
    return [root / y / "usc11.htm" for y in years[-editions:]]


def measure(sources: list[Path], passages: int, work: Path,
            cluster: RayIngest | None) -> dict[str, Any]:
    """Parse and dense-encode seconds of one setting, and digests of what they produced."""
    files, _ = find_sources(sources)
    t0 = time.perf_counter()
    docs, rows, _ = parse_sources(files, {}, progress=False, ray=cluster)
    parse_s = time.perf_counter() - t0
    texts = indexable_docs(build_versions(docs))[:passages]
    builder = DenseIndexBuilder(cache_dir=work / "cache", progress=False, remote=cluster)
    t0 = time.perf_counter()
    figures = builder.build(texts, work / "snap" / "dense")
    dense_s = time.perf_counter() - t0
    return {
        "files": len(files),
        "parse_s": round(parse_s, 2),
        "passages": figures["encoded"],
        "dense_s": round(dense_s, 2),
        "passages_per_s": round(figures["encoded"] / dense_s, 1),
        "rows_sha256": hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest(),
        "vectors_sha256": hashlib.sha256((work / "snap" / "dense" / INDEX_FILE).read_bytes())
        .hexdigest(),
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--editions", type=int, default=6)
    ap.add_argument("--passages", type=int, default=800)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = ap.parse_args(argv)
    import ray
    import torch

    sources = sample(args.editions)
    print(json.dumps({"sample": [str(p.parent.name) for p in sources],
                      "passages": args.passages, "torch_threads_here": torch.get_num_threads(),
                      "load_before": os.getloadavg()}))
    with tempfile.TemporaryDirectory(prefix="bench-ray-ingest-") as tmp:
        here = measure(sources, args.passages, Path(tmp) / "here", None)
        print(json.dumps({"setting": "in-process", **here}))
        for workers in args.workers:
            t0 = time.perf_counter()
            connect("local", workers)
            start_s = time.perf_counter() - t0
            try:
                with RayIngest("local", workers) as cluster:
                    got = measure(sources, args.passages, Path(tmp) / f"ray{workers}", cluster)
            finally:
                ray.shutdown()
            same = {k: got[k] == here[k] for k in ("rows_sha256", "vectors_sha256")}
            print(json.dumps({"setting": f"ray local x{workers}", "ray_start_s":
                              round(start_s, 2), **got, "same_as_in_process": same}))
    print(json.dumps({"load_after": os.getloadavg()}))


if __name__ == "__main__":
    main()
