"""How much the learned fusion's dev ranking moves from one fit to the next, for one LightGBM
model and for bagged means of several: the choice of `LightGBMRanker.n_bags`, made on dev.

    python -m structfirst.eval.fusion_stability --index DIR --train data/queries/train.jsonl \
        --dev data/queries/dev.jsonl --models models/ [--config H5] [--bags 1,5,10] \
        [--refits 8] [--share 0.9]

The configuration's head frames (every stage before its learned fusion, under the user
protocol: the question and the case date) are computed once for train and dev. Then, `--refits`
times, a random `--share` of the train queries is drawn, and a ranker of each bag count is
fitted on it; dev's frames are ordered by that ranker alone (no reranker after it) and scored
with the evaluation's own measures over node rankings. Printed: per bag count, the mean and the
standard deviation over the refits of dev nDCG@10 and top-1, and each refit's figures.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from structfirst.engine.configuration import EngineConfig, get_configuration
from structfirst.engine.engine import Engine
from structfirst.engine.pipeline import QueryFrame
from structfirst.eval.metrics import per_query
from structfirst.eval.query_set import Hit, Query, Run, parse_version_id
from structfirst.fusion.models import LightGBMRanker
from structfirst.fusion.stages import LearnedFusion
from structfirst.fusion.training import (
    frames_through,
    labeled,
    labels,
    read_split,
    split_learned,
)


def head_frames(engine: Engine, cfg: EngineConfig, queries: Sequence[Query]) -> list[QueryFrame]:
    """Each query's frame just before the configuration's first learned stage."""
    head, _ = split_learned(engine.stages(cfg, fitted=False))
    return frames_through(engine, head, cfg, queries)


def dev_scores(queries: Sequence[Query], frames: Sequence[QueryFrame]) -> tuple[float, float]:
    """(mean nDCG@10, top-1 accuracy) of the frames' candidate orders."""
    run: Run = {
        q.qid: [Hit(c.version_id, *parse_version_id(c.version_id), i + 1, c.score)
                for i, c in enumerate(f.candidates)]
        for q, f in zip(queries, frames, strict=True)
    }
    records = per_query(queries, run)
    return (float(np.mean([r.ir["nDCG@10"] for r in records])),
            float(np.mean([r.correct for r in records])))


def refit_table(train: tuple[Sequence[QueryFrame], Sequence[dict[str, int]]],
                dev: tuple[Sequence[Query], Sequence[QueryFrame]], bags: Sequence[int],
                refits: int, share: float) -> dict[int, list[tuple[float, float]]]:
    """Per bag count, (dev nDCG@10, dev top-1) of each refit on a random share of train."""
    frames, grades = train
    rng = np.random.default_rng(0)
    table: dict[int, list[tuple[float, float]]] = {k: [] for k in bags}
    for refit in range(refits):
        part = sorted(rng.choice(len(frames), size=round(share * len(frames)), replace=False))
        for k in bags:
            stage = LearnedFusion(LightGBMRanker(n_bags=k, seed=refit), cross_fit=0).fit(
                [frames[i] for i in part], [grades[i] for i in part])
            table[k].append(dev_scores(dev[0], [stage.transform(f) for f in dev[1]]))
            print(f"refit {refit + 1}/{refits}, {k} bag(s): nDCG@10 {table[k][-1][0]:.3f}, "
                  f"top-1 {table[k][-1][1]:.3f}", flush=True)
    return table


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--train", type=Path, required=True)
    ap.add_argument("--dev", type=Path, required=True)
    ap.add_argument("--models", type=Path, required=True,
                    help="the models folder holding the configuration's fact reader")
    ap.add_argument("--config", default="H5")
    ap.add_argument("--bags", default="1,5,10")
    ap.add_argument("--refits", type=int, default=8)
    ap.add_argument("--share", type=float, default=0.9)
    args = ap.parse_args(argv)
    engine = Engine.open(args.index, models_dir=args.models)
    cfg = get_configuration(args.config)
    train = labeled(read_split(args.train, "train"))
    dev = labeled(read_split(args.dev, "dev"))
    table = refit_table(
        (head_frames(engine, cfg, train), labels(train)),
        (dev, head_frames(engine, cfg, dev)),
        [int(b) for b in args.bags.split(",")], args.refits, args.share,
    )
    print(f"\n{args.config} learned fusion alone on dev ({len(dev)} questions), {args.refits} "
          f"refits on {args.share:.0%} of train ({len(train)} questions):")
    print("bags  nDCG@10 mean (sd)   top-1 mean (sd)")
    for k, rows in table.items():
        nd, top = np.array(rows).T
        print(f"{k:>4}  {nd.mean():.3f} ({nd.std():.3f})      {top.mean():.3f} ({top.std():.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
