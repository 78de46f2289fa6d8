"""The query path: parse, filter, then the configuration's stages, then the decision.

`Engine.open(index_dir).ask(question)` returns an `EvidenceBundle`. The stages of a
configuration (`Engine.pipeline`) are built from `engine/configurations.toml`: the symbolic
plane first (its rules' clauses seed the graph walk), the other planes, fusion (weighted RRF or
a learned ranker over the structural features), the reranker, the hierarchy demotion. The
engine holds no per-query state, and every stage and plane is safe to call from several
threads, so one engine serves concurrent `ask` calls.

The engine holds a lease on the snapshot it opened (`structfirst.ingest.snapshot.lease`), so
re-ingests never prune it away; `reload()` moves to the new `CURRENT` between questions (asks
in flight finish on the old snapshot, the next ones wait for the switch), and `close()` lets
the old snapshot go. A snapshot whose files do not match the sizes in its meta.json, or whose
store or graph cannot be read, is refused with a SnapshotError naming the file.
"""

from __future__ import annotations

import functools
import gzip
import json
import threading
import time
import warnings
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any

import duckdb
import networkx as nx
from structfirst.calibration.calibrator import IsotonicCalibrator, load_calibrator
from structfirst.engine.catalog import Catalog
from structfirst.engine.configuration import EngineConfig, get_configuration
from structfirst.engine.decision import calibrated_decision, decide
from structfirst.engine.evidence import Decision, EvidenceBundle, EvidenceCandidate
from structfirst.engine.features import StructuralFeatures
from structfirst.engine.graph_plane import GraphPlane
from structfirst.engine.learned_facts import LearnedFactReader
from structfirst.engine.pipeline import Pipeline, QueryFrame, Stage, elapsed_ms
from structfirst.engine.plane import HardFilter, Plane, PlaneQuery
from structfirst.engine.query_citations import DEFAULT_JURISDICTION
from structfirst.engine.query_expansion import LegalThesaurus
from structfirst.engine.query_parser import parse_query, query_terms
from structfirst.engine.stages import (
    ColbertVote,
    HierarchyDemotion,
    NeuralScorer,
    NeuralScores,
    RetrievalStage,
    SectionFamily,
    SymbolicStage,
)
from structfirst.engine.symbolic_plane import SymbolicPlane
from structfirst.engine.text_planes import ColbertReranker, TextSearchPlane
from structfirst.fusion.cross_encoder import CrossEncoderScorer
from structfirst.fusion.models import MODELS, check_trained_with, load_model
from structfirst.fusion.reranker import DomainReranker
from structfirst.fusion.rrf import FusedCandidate
from structfirst.fusion.stages import LearnedFusion, RRFFusion
from structfirst.ingest.citation_graph import load_graph
from structfirst.ingest.corpus import REPO_ROOT
from structfirst.ingest.duckdb_store import connect_readonly
from structfirst.ingest.snapshot import Lease, Snapshot, SnapshotError, lease
from structfirst.ingest.snapshot_passages import snapshot_passages
from structfirst.rules.library_loader import default_library

# snapshot sub-dirs a plane or reranker needs
NEEDS_INDEX = {"lexical": "lucene", "dense": "dense", "colbert": "colbert"}
MODELS_DIR = REPO_ROOT / "models"  # where `structfirst fit` writes the learned steps
RESULT_DEPTH = 20
DEFINITION_DEPTH = 10  # defining clauses the graph walk reached below the top k, kept as context


class _Readers:
    """Many asks at once, or one switch of snapshot: a switch waits for the asks in flight and
    holds new ones back until it is done."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._active = 0
        self._switching = False

    @contextmanager
    def reading(self) -> Iterator[None]:
        with self._cond:
            while self._switching:
                self._cond.wait()
            self._active += 1
        try:
            yield
        finally:
            with self._cond:
                self._active -= 1
                self._cond.notify_all()

    @contextmanager
    def switching(self) -> Iterator[None]:
        with self._cond:
            while self._switching:
                self._cond.wait()
            self._switching = True
            while self._active:
                self._cond.wait()
        try:
            yield
        finally:
            with self._cond:
                self._switching = False
                self._cond.notify_all()


class Engine:
    def __init__(
        self,
        snapshot: Any,
        catalog: Catalog,
        planes: dict[str, Callable[[EngineConfig], Plane]],
        reranker: Callable[[], ColbertReranker],
        graph: nx.MultiDiGraph,
        models_dir: Path = MODELS_DIR,
        snapshot_lease: Lease | None = None,
        index_dir: Path | None = None,
    ) -> None:
        self.snapshot = snapshot
        self.catalog = catalog
        self.graph = graph
        self.models_dir = Path(models_dir)
        self._plane_factories = planes
        self._reranker_factory = reranker
        self._planes: dict[tuple[str, float, float], Plane] = {}
        self._reranker: ColbertReranker | None = None
        self._cross_encoders: dict[Path, CrossEncoderScorer] = {}
        self._passages: dict[str, str] | None = None
        self._pipelines: dict[str, Pipeline] = {}
        self._calibrators: dict[Path, tuple[IsotonicCalibrator, dict[str, Any]]] = {}
        self._fact_readers: dict[Path, LearnedFactReader] = {}
        self._lock = threading.RLock()
        self._lease = snapshot_lease
        self.index_dir = index_dir
        self._readers = _Readers()

    @functools.cached_property
    def thesaurus(self) -> LegalThesaurus:
        """The legal thesaurus, read when a configuration first expands a query."""
        return LegalThesaurus.load()

    @classmethod
    def open(
        cls, index_dir: Path | str, models_dir: Path | str = MODELS_DIR, *,
        full_verify: bool = False,
    ) -> Engine:
        """Open (and lease) the current snapshot of `index_dir`; planes load on first use,
        learned steps from `models_dir`. `full_verify` also checks every file's sha256 (sizes
        are always checked)."""
        index_dir = Path(index_dir)
        held = lease(index_dir, full=full_verify)
        try:
            parts = _load(held.snapshot, index_dir)
        except BaseException:
            held.release()
            raise
        return cls(*parts, Path(models_dir), snapshot_lease=held, index_dir=index_dir)

    def reload(self, *, full_verify: bool = False) -> bool:
        """Switch to the index directory's current snapshot if it changed (True if so). Asks in
        flight finish on the old snapshot; asks that start meanwhile wait for the switch."""
        if self.index_dir is None:
            raise ValueError("this engine was not opened from an index directory")
        held = lease(self.index_dir, full=full_verify)
        if held.snapshot.snapshot_id == self.snapshot.snapshot_id:
            held.release()
            return False
        try:
            snapshot, catalog, planes, reranker, graph = _load(held.snapshot, self.index_dir)
        except BaseException:
            held.release()
            raise
        with self._readers.switching():
            old = self._lease
            self.snapshot, self.catalog, self.graph = snapshot, catalog, graph
            self._plane_factories, self._reranker_factory = planes, reranker
            self._planes, self._reranker, self._lease = {}, None, held
            self._passages = None
            self._pipelines, self._calibrators = {}, {}
        if old is not None:
            old.release()
        return True

    def close(self) -> None:
        """Give up the snapshot lease (pruning may then remove the snapshot)."""
        with self._readers.switching():
            if self._lease is not None:
                self._lease.release()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def check(self, cfg: EngineConfig) -> None:
        """Raise ValueError if `cfg` needs an index this snapshot lacks or a component the engine
        does not have yet, rather than run it as something other than its label says."""
        for part in (*cfg.planes, cfg.reranker, cfg.neural):
            sub = NEEDS_INDEX.get(part)
            if sub and not (self.snapshot.path / sub).is_dir():
                raise ValueError(
                    f"configuration {cfg.name} needs the {part} index, but {self.snapshot.path} "
                    f"has no {sub}/ (ingest without --no-dense)"
                )
        for model in (cfg.fusion_model, cfg.reranker_model, cfg.calibration_model,
                      cfg.fact_reader):
            if model and not (self.models_dir / model).is_dir():
                fit = "fit-facts" if model == cfg.fact_reader else "fit"
                raise ValueError(
                    f"configuration {cfg.name} needs the model {self.models_dir / model}, "
                    f"which does not exist (run `structfirst {fit}`)"
                )

    def plane(self, name: str, cfg: EngineConfig) -> Plane:
        """The named plane, loaded on first use (lexical planes per BM25 parameters)."""
        key = (name, cfg.bm25_k1, cfg.bm25_b) if name == "lexical" else (name, 0.0, 0.0)
        with self._lock:
            if key not in self._planes:
                self._planes[key] = self._plane_factories[name](cfg)
            return self._planes[key]

    def ask(
        self,
        question: str,
        as_of: date | None = None,
        jurisdiction: str | None = None,
        config: str | EngineConfig = "full",
        authorities: frozenset[str] | None = None,
        k: int = RESULT_DEPTH,
    ) -> EvidenceBundle:
        """Answer `question` with an evidence bundle (or an abstention and its reason)."""
        with self._readers.reading():
            return self._ask(question, as_of, jurisdiction, config, authorities, k)

    def _ask(
        self,
        question: str,
        as_of: date | None,
        jurisdiction: str | None,
        config: str | EngineConfig,
        authorities: frozenset[str] | None,
        k: int,
    ) -> EvidenceBundle:
        cfg = config if isinstance(config, EngineConfig) else get_configuration(config)
        self.check(cfg)
        timings: dict[str, float] = {}
        started = time.perf_counter()
        start = self.start_frame(question, as_of, jurisdiction, cfg, authorities)
        timings["parse_filter"] = elapsed_ms(started)
        frame = self.pipeline(cfg).transform(start)
        timings.update(frame.timings)
        parsed, query, fused = frame.parsed, frame.query, frame.candidates
        verdicts = list(frame.verdicts)
        rerank_scores = dict(frame.neural_scores)
        candidates = [self._candidate(i, c, rerank_scores) for i, c in enumerate(fused[:k], 1)]
        definitions = [
            self._candidate(i, c, rerank_scores)
            for i, c in enumerate(fused, 1)
            if i > k and any(p.rsplit(" ", 2)[-2:-1] == ["<-defines-"] for p in c.paths)
        ][:DEFINITION_DEPTH]
        decision = decide(parsed, query, self.catalog, candidates, verdicts)
        if cfg.calibration:
            calibrator, record = self.calibrator(cfg)
            threshold = record["threshold"]
            decision = calibrated_decision(
                decision, frame, calibrator, threshold["theta"], threshold["guarantee"]
            )
        timings["total"] = elapsed_ms(started)
        return EvidenceBundle(
            question=question,
            parsed_query=parsed.to_dict(),
            configuration=cfg.name,
            snapshot_id=self.snapshot.snapshot_id,
            corpus_versions=self.snapshot.sources,
            candidates=candidates,
            definitions=definitions,
            verdicts=verdicts,
            decision=decision,
            timings_ms=timings,
        )

    def start_frame(
        self,
        question: str,
        as_of: date | None,
        jurisdiction: str | None,
        cfg: EngineConfig,
        authorities: frozenset[str] | None = None,
    ) -> QueryFrame:
        """The parsed question and the query the planes see, under the configuration's hard
        filter: the frame the stages start from."""
        parsed = parse_query(
            question,
            as_of=as_of,
            jurisdiction=jurisdiction,
            corpus_jurisdictions=self.catalog.jurisdictions,
            default_jurisdiction=self.catalog.default_jurisdiction(DEFAULT_JURISDICTION),
        )
        if cfg.fact_reader:
            parsed = self.fact_reader(cfg).transform(parsed)
        allowed = self._hard_filter(cfg, parsed.as_of.value, parsed.jurisdiction.value, authorities)
        query = PlaneQuery(
            text=query_terms(parsed),
            as_of=parsed.as_of.value,
            allowed=allowed,
            query_type=parsed.query_type,
            seeds=parsed.seeds,
            terms=tuple(t.term for t in parsed.terms),
            facts=parsed.fact_values(),
            predicate=parsed.predicate.name if parsed.predicate else None,
            rule_words=parsed.words_besides_facts(),
            expansion=self.thesaurus.expansions(parsed.question) if cfg.expansion_weight else (),
            expansion_weight=cfg.expansion_weight,
            feedback=cfg.feedback,
        )
        return QueryFrame(parsed, query)

    def _hard_filter(
        self, cfg: EngineConfig, as_of: date, jurisdiction: str, authorities: frozenset[str] | None
    ) -> HardFilter:
        """What the planes may return under the configuration's `hard_filters`: the versions
        in force at the question's date in its jurisdiction, today's in every jurisdiction (the
        baseline of a search box over the current code), or every version (no filter)."""
        if cfg.hard_filters == "today":
            return self.catalog.hard_filter(date.today(), None, authorities)
        if cfg.hard_filters == "none":
            return self.catalog.hard_filter(None, None, authorities)
        return self.catalog.hard_filter(as_of, jurisdiction, authorities)

    def pipeline(self, cfg: EngineConfig) -> Pipeline:
        """The configuration's stages, built once per configuration (planes and models load
        then)."""
        key = repr(cfg)
        with self._lock:
            if key not in self._pipelines:
                self._pipelines[key] = Pipeline(self.stages(cfg))
            return self._pipelines[key]

    def stages(self, cfg: EngineConfig, fitted: bool = True) -> list[Stage]:
        """The configuration's stages in order. The learned ones (fusion model, domain
        reranker) are loaded from the models folder, or, with `fitted=False`, new and
        unfitted, for `Pipeline.fit`."""
        stages: list[Stage] = []
        if "symbolic" in cfg.planes:  # first: its rules' clauses seed the graph walk
            plane = self.plane("symbolic", cfg)
            assert isinstance(plane, SymbolicPlane)
            stages.append(SymbolicStage(plane, cfg.k_per_plane))
        stages += [
            RetrievalStage(self.plane(name, cfg), cfg.k_per_plane)
            for name in cfg.planes
            if name != "symbolic"
        ]
        if cfg.fusion == "rrf":
            stages.append(RRFFusion(cfg.rrf_k, cfg.plane_weights))
            if cfg.reranker == "colbert":
                stages.append(ColbertVote(self.neural_scorer(), cfg.rerank_depth, cfg.rrf_k))
        else:
            stages.append(RRFFusion(cfg.rrf_k))  # the candidate union, in RRF order
            if cfg.family_depth:
                stages.append(SectionFamily(self.catalog, cfg.family_depth))
            if cfg.neural:
                stages.append(NeuralScores(self.f_theta(cfg), cfg.rerank_depth))
            stages.append(self.features_stage(cfg))
            stages.append(self._learned(cfg, "fusion", fitted))
            if cfg.reranker == "neural":
                stages.append(DomainReranker(inputs=(), depth=cfg.rerank_depth))
            elif cfg.reranker == "domain":
                stages.append(self._learned(cfg, "reranker", fitted))
        if cfg.hierarchy_penalty:
            stages.append(HierarchyDemotion(self.catalog, cfg.hierarchy_penalty))
        return stages

    def _learned(self, cfg: EngineConfig, step: str, fitted: bool) -> Stage:
        """A learned step of `cfg`, loaded (and checked against the configuration's planes)
        or new."""
        if step == "reranker":
            if not fitted:
                return DomainReranker(depth=cfg.rerank_depth)
            folder = self.models_dir / cfg.reranker_model
            check_trained_with(folder, cfg)
            return DomainReranker.load(folder)
        if not fitted:
            return LearnedFusion(MODELS[cfg.fusion]())
        folder = self.models_dir / cfg.fusion_model
        check_trained_with(folder, cfg)
        return LearnedFusion(load_model(folder))

    def features_stage(self, cfg: EngineConfig) -> StructuralFeatures:
        """The structural-feature stage over this snapshot (the rule library's parameters)."""
        symbolic = self.plane("symbolic", cfg)
        assert isinstance(symbolic, SymbolicPlane)
        return StructuralFeatures(self.catalog, self.graph, symbolic.library.parameters)

    def hard_decision(self, frame: QueryFrame) -> Decision:
        """The rule-based decision of a final frame (the hard abstentions, else answer)."""
        top = [self._candidate(1, c, {}) for c in frame.candidates[:1]]
        return decide(frame.parsed, frame.query, self.catalog, top, list(frame.verdicts))

    def calibrator(self, cfg: EngineConfig) -> tuple[IsotonicCalibrator, dict[str, Any]]:
        """The configuration's calibrator and its record, loaded once; one fitted on another
        snapshot still loads, with a warning that it needs refitting."""
        folder = self.models_dir / cfg.calibration_model
        with self._lock:
            if folder not in self._calibrators:
                calibrator, record = load_calibrator(folder)
                if record.get("snapshot_id") != self.snapshot.snapshot_id:
                    warnings.warn(
                        f"{folder}: calibrated on snapshot {record.get('snapshot_id')}, but the "
                        f"index is snapshot {self.snapshot.snapshot_id}; refit it "
                        "(`structfirst fit`) after an index refresh",
                        stacklevel=2,
                    )
                self._calibrators[folder] = (calibrator, record)
            return self._calibrators[folder]

    def fact_reader(self, cfg: EngineConfig) -> LearnedFactReader:
        """The configuration's learned fact reader, loaded once."""
        folder = self.models_dir / cfg.fact_reader
        with self._lock:
            if folder not in self._fact_readers:
                self._fact_readers[folder] = LearnedFactReader.load(folder)[0]
            return self._fact_readers[folder]

    def neural_scorer(self) -> ColbertReranker:
        """The late-interaction (MaxSim) scorer, loaded on first use."""
        with self._lock:
            if self._reranker is None:
                self._reranker = self._reranker_factory()
            return self._reranker

    def f_theta(self, cfg: EngineConfig) -> NeuralScorer:
        """The configuration's neural score: ColBERT MaxSim, or its trained cross-encoder
        (loaded once per model folder)."""
        if cfg.neural != "cross-encoder":
            return self.neural_scorer()
        folder = self.models_dir / cfg.neural_model
        with self._lock:
            if folder not in self._cross_encoders:
                self._cross_encoders[folder] = CrossEncoderScorer.load(folder, self.passage_text)
            return self._cross_encoders[folder]

    def passage_text(self, version_id: str) -> str | None:
        """The text the snapshot's indexes encode for a version (citation, heading, ancestor
        chapeaus, its text and subdivisions), rebuilt from the store on first use; None for a
        version no index holds (a part or a chapter the graph walk reached)."""
        with self._lock:
            if self._passages is None:
                self._passages = {d.version_id: d.contents
                                  for d in snapshot_passages(self.snapshot.path)}
            return self._passages.get(version_id)

    def _candidate(
        self, rank: int, fused: FusedCandidate, rerank_scores: dict[str, float]
    ) -> EvidenceCandidate:
        record = self.catalog.record(fused.version_id)
        return EvidenceCandidate(
            rank=rank,
            **record,
            fused_score=fused.score,
            plane_scores=fused.plane_scores,
            plane_ranks=fused.plane_ranks,
            rerank_score=rerank_scores.get(fused.version_id),
            graph_paths=fused.paths,
            rule_support=fused.rule_support,
        )


def _load(
    snapshot: Snapshot, index_dir: Path
) -> tuple[
    Snapshot,
    Catalog,
    dict[str, Callable[[EngineConfig], Plane]],
    Callable[[], ColbertReranker],
    nx.MultiDiGraph,
]:
    """The catalog, plane factories and graph of `snapshot`; SnapshotError names the file when
    the store or the graph cannot be read."""
    try:
        with connect_readonly(snapshot.store_path) as con:
            catalog = Catalog.load(con)
    except (OSError, duckdb.Error) as exc:
        raise SnapshotError(
            f"{snapshot.store_path}: cannot read the store ({type(exc).__name__}: {exc}); "
            f"run `structfirst verify --index {index_dir}`"
        ) from exc
    try:
        graph = load_graph(snapshot.graph_path)
    except (OSError, EOFError, zlib.error, gzip.BadGzipFile, json.JSONDecodeError) as exc:
        raise SnapshotError(
            f"{snapshot.graph_path}: cannot read the citation graph ({type(exc).__name__}: {exc})"
        ) from exc
    root = snapshot.path
    planes: dict[str, Callable[[EngineConfig], Plane]] = {
        "lexical": lambda cfg: TextSearchPlane.lexical(
            root / "lucene", cfg.bm25_k1, cfg.bm25_b, lambda vid: catalog.versions[vid].text
        ),
        "dense": lambda cfg: TextSearchPlane.dense(root / "dense"),
        "graph": lambda cfg: GraphPlane(graph, catalog),
        "symbolic": lambda cfg: SymbolicPlane(
            catalog, index_dir, default_library(index_dir, snapshot.snapshot_id)
        ),
    }
    return snapshot, catalog, planes, lambda: ColbertReranker(root / "colbert"), graph
