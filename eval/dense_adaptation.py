"""The dense plane alone, under the hard filter, for one or more encoders on the same questions.

    python -m structfirst.eval.dense_adaptation --index /work/index-final \\
        --model base --model /work/models-adapted --queries data/queries/dev.jsonl \\
        [--work /tmp/adapt-eval] [--out result.json]

A model may name its encoder backend after an "@" (`--model base@onnx-int8`, see
`EncoderConfig.dense_backend`); without one it runs on the configured backend.

Each question goes through the engine's user protocol: the question and its as_of only (no
gold jurisdiction); the engine parses it and builds the hard filter (`Engine.start_frame`),
and the dense plane alone returns its top 100 inside that filter. A model other than the one
the snapshot's dense index was built with gets an index of its own under `--work` (its vectors
kept in the embedding cache there, so a re-run encodes nothing). Prints nDCG@10 and R@10 with
95% bootstrap CIs per model, and each later model against the first (paired permutation test).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from structfirst.eval.metrics import compare, per_query, summarize
from structfirst.eval.query_set import Query, Run, load_queries, run_from_lists

BASE = "base"  # --model value: the packaged MiniLM
DEPTH = 100
PROTOCOL_CONFIGURATION = "H1"  # any configuration with the default ("as_of") hard filter
SHOWN = ("nDCG@10", "R@10")


def model_backend(model: str) -> tuple[str, str | None]:
    """`--model` as (model, backend): "base@onnx-int8" -> ("base", "onnx-int8")."""
    from structfirst.ingest.encoder_config import DENSE_BACKENDS

    name, _, backend = model.rpartition("@")
    return (name, backend) if name and backend in DENSE_BACKENDS else (model, None)


def dense_dir_for(index_dir: Path, model: str, work_dir: Path) -> tuple[Path, Any]:
    """The dense index directory holding the snapshot's passages under `model`, and its
    encoder configuration (built under `work_dir` unless the snapshot's own matches)."""
    from structfirst.ingest.dense_index import CONFIG_FILE, DenseIndexBuilder
    from structfirst.ingest.encoder_config import EncoderConfig
    from structfirst.ingest.snapshot import open_snapshot
    from structfirst.ingest.snapshot_passages import snapshot_passages

    snap = open_snapshot(index_dir)
    name, backend = model_backend(model)
    overrides = {"dense_backend": backend} if backend else {}
    config = EncoderConfig.resolve(dense_model=None if name == BASE else name, **overrides)
    key = config.dense_model_key()
    own = snap.path / "dense"
    if (own / CONFIG_FILE).is_file() and json.loads((own / CONFIG_FILE).read_text())[
        "model_key"
    ] == key:
        return own, config
    out = Path(work_dir) / snap.snapshot_id / key / "dense"
    if not (out / CONFIG_FILE).is_file():
        DenseIndexBuilder(config, cache_dir=Path(work_dir) / "cache").build(
            snapshot_passages(snap.path), out
        )
    return out, config


def dense_run(index_dir: Path, model: str, queries: Sequence[Query], work_dir: Path) -> Run:
    """The dense plane's top `DEPTH` for each question under the engine's hard filter."""
    from structfirst.engine.configuration import get_configuration
    from structfirst.engine.dense_plane import DensePlane
    from structfirst.engine.engine import Engine

    dense_dir, config = dense_dir_for(index_dir, model, work_dir)
    plane = DensePlane(dense_dir, config)
    cfg = get_configuration(PROTOCOL_CONFIGURATION)
    ranked = {}
    with Engine.open(index_dir) as engine:
        for q in queries:
            frame = engine.start_frame(q.question, q.as_of, None, cfg)
            hits = plane.search(frame.query.text, DEPTH, frame.query.allowed)
            ranked[q.qid] = [vid for vid, _ in hits]
    return run_from_lists(ranked)


def score_models(index_dir: Path, models: Sequence[str], queries: Sequence[Query],
                 work_dir: Path) -> dict[str, Any]:
    """Per model: the summary of `SHOWN`; per later model: its paired test against the first."""
    records = {m: per_query(queries, dense_run(index_dir, m, queries, work_dir)) for m in models}
    result: dict[str, Any] = {"queries": len(queries), "models": {}, "versus_first": {}}
    for m, recs in records.items():
        summary = summarize(recs)
        result["models"][m] = {name: summary["overall"][name] for name in SHOWN}
    for m in models[1:]:
        paired = compare(records[models[0]], records[m])
        result["versus_first"][m] = {name: paired["overall"][name] for name in SHOWN}
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Score the dense plane alone for several encoders.")
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--model", action="append", required=True,
                    help=f"a model directory, or '{BASE}' (the packaged MiniLM), optionally "
                    "@BACKEND; repeatable")
    ap.add_argument("--queries", required=True, nargs="+", help="JSONL query files, one split each")
    ap.add_argument("--work", type=Path, default=Path("/tmp/adapt-eval"))
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    report = {}
    for path in args.queries:
        queries = [q for q in load_queries(path) if q.answerable]
        report[path] = result = score_models(args.index, args.model, queries, args.work)
        for m, block in result["models"].items():
            shown = "  ".join(
                f"{n} {b['value']:.3f} [{b['ci_low']:.3f}, {b['ci_high']:.3f}]"
                for n, b in block.items()
            )
            print(f"{path}  {m}: {shown}  (n={result['queries']})")
        for m, block in result["versus_first"].items():
            shown = "  ".join(
                f"{n} {b['diff']:+.3f} [{b['ci_low']:+.3f}, {b['ci_high']:+.3f}] "
                f"p={b['p_value']:.4f}" for n, b in block.items()
            )
            print(f"{path}  {m} - {args.model[0]}: {shown}")
    if args.out:
        args.out.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
