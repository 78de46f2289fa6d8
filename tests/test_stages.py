"""The query path as stages: same runs as before the refactor, and every stage's contract
(in the manner of scikit-learn's estimator checks)."""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from pathlib import Path

import pytest
from learning_data import learned_config, query_labels, start_frames
from structfirst.engine.configuration import get_configuration
from structfirst.engine.engine import Engine
from structfirst.engine.pipeline import Pipeline, QueryFrame, Stage
from structfirst.engine.stages import ColbertVote, NeuralScores, SectionFamily, SymbolicStage
from structfirst.eval.query_set import Query
from structfirst.fusion.models import LightGBMRanker, LogisticRanker
from structfirst.fusion.reranker import DomainReranker
from structfirst.fusion.stages import LearnedFusion
from structfirst.ingest.java_env import detach_thread

pytest_plugins = ["engine_fixtures", "learning_fixtures"]

BEFORE = Path(__file__).parent / "data" / "engine_runs_before_stages.json"


def run_record(engine: Engine, question: str, as_of: str | None, cfg: str) -> dict:
    b = engine.ask(question, as_of=date.fromisoformat(as_of) if as_of else None, config=cfg)
    return {
        "question": question,
        "as_of": as_of,
        "config": cfg,
        "candidates": [[c.version_id, round(c.fused_score, 9)] for c in b.candidates],
        "definitions": [c.version_id for c in b.definitions],
        "verdicts": [[v["rule"], v["verdict"]] for v in b.verdicts],
        "decision": [b.decision.answer, b.decision.reason],
    }


def test_runs_match_those_before_the_stage_refactor(engine: Engine) -> None:
    """H0, fast (lexical, graph, symbolic: weighted RRF and the hierarchy demotion) and BM25-all
    give exactly the runs the one-function query path gave, written before the refactor; four
    `fast` runs changed on purpose since (the § 104 tables annotating the amounts they adjust,
    and the exception walk stepping to them) are re-recorded with the engine that changed them."""
    before = json.loads(BEFORE.read_text(encoding="utf-8"))
    assert len(before) >= 60
    for expected in before:
        got = run_record(engine, expected["question"], expected["as_of"], expected["config"])
        assert got == expected, (expected["config"], expected["question"])


def test_symbolic_stage_runs_first_and_seeds_the_graph_stage(engine: Engine) -> None:
    cfg = get_configuration("fast")
    stages = engine.stages(cfg)
    assert isinstance(stages[0], SymbolicStage) and stages[1].name == "lexical"
    question = (
        "A non-consumer debtor paid a $6,000 invoice to an outside vendor 100 days before "
        "filing. Can the trustee avoid this transfer under § 547?"
    )
    start = engine.start_frame(question, date(2019, 1, 1), None, cfg)
    after = stages[0].transform(start)
    assert start.query.seeds == ("/us/usc/t11/s547",)
    assert after.query.seeds[0] == "/us/usc/t11/s547/b" and after.verdicts


def test_section_family_adds_the_enclosing_provisions_and_children_in_force(
    engine: Engine,
) -> None:
    cfg = get_configuration("fast")
    question = "Which small transfers can the trustee not avoid as preferences?"
    frame = engine.start_frame(question, date(2019, 1, 1), None, cfg)
    for stage in engine.stages(cfg)[:4]:
        frame = stage.transform(frame)
    out = SectionFamily(engine.catalog, depth=len(frame.candidates)).transform(frame)
    nodes = [engine.catalog.versions[c.version_id].node_id for c in out.candidates]
    before = {c.version_id for c in frame.candidates}
    added = [c for c in out.candidates if c.version_id not in before]
    assert added and all(not c.plane_ranks for c in added)
    assert [c for c in out.candidates if c.version_id in before] == list(frame.candidates)
    for node in nodes:
        for up in engine.catalog.ancestors(node):
            assert up in nodes, (node, up)
    for c in added:
        v = engine.catalog.versions[c.version_id]
        assert v.valid_at(date(2019, 1, 1)) and c.version_id in frame.query.allowed
    assert len(set(nodes)) == len(nodes)


class SearcherScores:
    """A real scorer for the neural stages on the lexical-only fixture: Lucene BM25 scores of
    the given candidates (the same interface as the ColBERT MaxSim scorer)."""

    def __init__(self, engine: Engine) -> None:
        self.searcher = engine.plane("lexical", get_configuration("H0")).searcher

    def scores(self, text: str, version_ids: Sequence[str]) -> dict[str, float]:
        return dict(self.searcher.search(text, len(version_ids), frozenset(version_ids)))


@pytest.fixture(scope="module")
def staged(engine: Engine, train_queries: list[Query]) -> list[tuple[Stage, list[QueryFrame]]]:
    """Every kind of stage with the frames it receives (the learned ones fitted on them)."""
    queries = train_queries[:12]
    labels = query_labels(queries)
    cfg = learned_config()
    frames = start_frames(engine, queries, cfg)
    out: list[tuple[Stage, list[QueryFrame]]] = []
    scorer = SearcherScores(engine)
    chain: list[Stage] = [
        *engine.stages(get_configuration("fast"))[:3],  # symbolic, lexical, graph
        engine.stages(get_configuration("fast"))[3],  # weighted RRF
        ColbertVote(scorer, depth=20, rrf_k=60),
        engine.stages(get_configuration("fast"))[4],  # hierarchy demotion
        SectionFamily(engine.catalog, depth=10),
        NeuralScores(scorer, depth=50),
        engine.features_stage(cfg),
        LearnedFusion(LightGBMRanker(n_estimators=5)),
        LearnedFusion(LogisticRanker()),
        DomainReranker(depth=30),
    ]
    for stage in chain:
        stage.fit(frames, labels)
        out.append((stage, frames))
        frames = [stage.transform(f) for f in frames]
    return out


def _ids(staged: list[tuple[Stage, list[QueryFrame]]]) -> list[str]:
    return [type(s).__name__ + ":" + s.name for s, _ in staged]


def test_every_stage_keeps_the_filter(staged) -> None:
    for stage, frames in staged:
        for frame in frames:
            out = stage.transform(frame)
            allowed = out.query.allowed
            assert allowed == frame.query.allowed, stage
            assert all(c.version_id in allowed for c in out.candidates), stage
            assert all(h.version_id in allowed for hits in out.ranked.values() for h in hits)


def test_every_stage_is_deterministic_and_leaves_its_input_alone(staged) -> None:
    for stage, frames in staged:
        for frame in frames[:4]:
            before = copy.deepcopy(frame)
            first, second = stage.transform(frame), stage.transform(frame)
            assert first == second, stage
            assert frame == before, f"{stage} changed its input frame"


def test_no_stage_leaks_one_query_into_another_across_threads(staged) -> None:
    for stage, frames in staged:
        expected = [stage.transform(f) for f in frames]

        def one(i: int, stage: Stage = stage, frames: list[QueryFrame] = frames) -> QueryFrame:
            try:
                return stage.transform(frames[i % len(frames)])
            finally:
                detach_thread()

        with ThreadPoolExecutor(max_workers=4) as pool:
            got = list(pool.map(one, range(3 * len(frames))))
        for i, frame in enumerate(got):
            assert frame == expected[i % len(frames)], stage


def test_every_stage_fit_returns_the_stage(staged, train_queries: list[Query]) -> None:
    assert len(staged) == 12, _ids(staged)
    labels = query_labels(train_queries[:12])
    for stage, frames in staged:
        assert stage.fit(frames, labels) is stage


def test_pipeline_fit_fits_in_order_and_checks_its_inputs(
    engine: Engine, train_queries: list[Query]
) -> None:
    cfg = learned_config()
    pipeline = Pipeline(engine.stages(cfg, fitted=False))
    queries = train_queries[:10]
    frames = start_frames(engine, queries, cfg)
    assert pipeline.fit(frames, query_labels(queries)) is pipeline
    out = pipeline.transform(frames[0])
    assert out.candidates and set(out.timings) >= {"symbolic", "lexical", "graph", "fusion"}
    with pytest.raises(ValueError, match="3 frames but 2 label sets"):
        pipeline.fit(frames[:3], query_labels(queries)[:2])


def test_learned_fusion_fit_transform_is_cross_fitted(staged, train_queries: list[Query]) -> None:
    """The training frames come back scored by models that did not see them (what the domain
    reranker learns from), while `transform` uses the model fitted on all of them."""
    frames = next(f for s, f in staged if isinstance(s, LearnedFusion))
    labels = query_labels(train_queries[:12])
    stage = LearnedFusion(LogisticRanker(), cross_fit=3)
    crossed = stage.fit_transform(frames, labels)
    full = [stage.transform(f) for f in frames]
    assert [len(c.candidates) for c in crossed] == [len(f.candidates) for f in full]
    assert any(
        [c.score for c in a.candidates] != [c.score for c in b.candidates]
        for a, b in zip(crossed, full, strict=True)
    )
    plain = LearnedFusion(LogisticRanker(), cross_fit=0).fit_transform(frames, labels)
    assert plain == full
