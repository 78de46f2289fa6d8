"""Queries, labels and a learned configuration for the small fixture index.

The queries are train-split queries of the labeled
set whose case date falls in the fixture's editions (2007 on) in federal law.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import date

from structfirst.engine.configuration import EngineConfig, get_configuration
from structfirst.engine.engine import Engine
from structfirst.engine.pipeline import Labels, QueryFrame
from structfirst.eval.query_set import Query, load_queries
from structfirst.ingest.corpus import REPO_ROOT

FIXTURE_START = date(2007, 10, 17)


def fixture_queries(split: str, n: int) -> list[Query]:
    """The first `n` answerable federal queries of `split` dated within the fixture."""
    queries = load_queries(REPO_ROOT / "data" / "queries" / f"{split}.jsonl")
    kept = [
        q for q in queries
        if q.answerable and q.as_of >= FIXTURE_START and q.jurisdiction.startswith("us-federal")
    ]
    return kept[:n]


def query_labels(queries: Sequence[Query]) -> list[Labels]:
    return [{lab.id: lab.grade for lab in q.labels} for q in queries]


def learned_config(name: str = "fast-learned", fusion: str = "lightgbm") -> EngineConfig:
    """The fast planes (lexical, graph, symbolic) with learned fusion: what the fixture runs."""
    return replace(
        get_configuration("fast"),
        name=name,
        fusion=fusion,
        fusion_model=f"fusion-{fusion}",
        plane_weights={},
        hierarchy_penalty=0,
        tuning={},
    )


def start_frames(engine: Engine, queries: Sequence[Query], cfg: EngineConfig) -> list[QueryFrame]:
    return [engine.start_frame(q.question, q.as_of, None, cfg) for q in queries]
