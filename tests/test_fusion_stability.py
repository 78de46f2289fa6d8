"""The bag-count choice tool: refits on shares of train, scored on dev with the eval's measures."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from learning_data import learned_config
from structfirst.engine.engine import Engine
from structfirst.eval.fusion_stability import dev_scores, head_frames, refit_table
from structfirst.eval.query_set import Query
from structfirst.fusion.training import labels

pytest_plugins = ["engine_fixtures", "learning_fixtures"]


def test_refits_score_dev_with_each_bag_count(
    small_index: Path, train_queries: list[Query], dev_queries: list[Query]
) -> None:
    engine = Engine.open(small_index)
    cfg = learned_config()
    train = (head_frames(engine, cfg, train_queries), labels(train_queries))
    dev = (dev_queries, head_frames(engine, cfg, dev_queries))
    table = refit_table(train, dev, bags=(1, 3), refits=2, share=0.9)
    assert set(table) == {1, 3} and all(len(rows) == 2 for rows in table.values())
    assert all(0 <= nd <= 1 and 0 <= top <= 1 for rows in table.values() for nd, top in rows)
    assert table[1][0] != table[1][1] or table[3][0] != table[3][1]  # other shares, other fits


def test_dev_scores_read_the_frames_order(
    small_index: Path, dev_queries: list[Query]
) -> None:
    """A frame whose top candidate is a primary label scores top-1; with it last, none."""
    engine = Engine.open(small_index)
    frames = head_frames(engine, learned_config(), dev_queries)
    q, frame = next((q, f) for q, f in zip(dev_queries, frames, strict=True)
                    if any(c.version_id.split("@")[0] in q.primary_ids() for c in f.candidates))
    primary = [c for c in frame.candidates if c.version_id.split("@")[0] in q.primary_ids()]
    others = [c for c in frame.candidates if c not in primary]
    assert dev_scores([q], [replace(frame, candidates=(*primary, *others))])[1] == 1.0
    assert dev_scores([q], [replace(frame, candidates=(*others, *primary))])[1] == 0.0
