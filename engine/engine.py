"""The query path: parse, filter, run the configured planes, fuse, rerank, decide.

`Engine.open(index_dir).ask(question)` returns an `EvidenceBundle`. The engine holds no
per-query state, and every plane it uses is safe to call from several threads, so one engine
serves concurrent `ask` calls.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from structfirst.engine.catalog import Catalog
from structfirst.engine.configuration import EngineConfig, get_configuration
from structfirst.engine.decision import decide
from structfirst.engine.evidence import EvidenceBundle, EvidenceCandidate
from structfirst.engine.graph_plane import GraphPlane
from structfirst.engine.plane import Plane, PlaneHit, PlaneQuery
from structfirst.engine.query_parser import parse_query, query_terms
from structfirst.engine.symbolic_plane import SymbolicPlane
from structfirst.engine.text_planes import ColbertReranker, TextSearchPlane
from structfirst.fusion.rrf import FusedCandidate, reciprocal_rank_fusion
from structfirst.ingest.citation_graph import load_graph
from structfirst.ingest.duckdb_store import connect_readonly
from structfirst.ingest.snapshot import open_snapshot

RESULT_DEPTH = 20


class Engine:
    def __init__(self, snapshot: Any, catalog: Catalog, planes: dict[str, Callable[[], Plane]],
                 reranker: Callable[[], ColbertReranker] | None) -> None:
        self.snapshot = snapshot
        self.catalog = catalog
        self._plane_factories = planes
        self._reranker_factory = reranker
        self._planes: dict[str, Plane] = {}
        self._reranker: ColbertReranker | None = None
        self._lock = threading.Lock()

    @classmethod
    def open(cls, index_dir: Path | str) -> Engine:
        """Open the current snapshot of `index_dir`; planes load on first use."""
        snapshot = open_snapshot(Path(index_dir))
        with connect_readonly(snapshot.store_path) as con:
            catalog = Catalog.load(con)
        graph = load_graph(snapshot.graph_path)
        root = snapshot.path
        planes: dict[str, Callable[[], Plane]] = {
            "lexical": lambda: TextSearchPlane.lexical(root / "lucene"),
            "dense": lambda: TextSearchPlane.dense(root / "dense"),
            "graph": lambda: GraphPlane(graph, catalog),
            "symbolic": lambda: SymbolicPlane(catalog, snapshot.store_path),
        }
        colbert_dir = root / "colbert"
        reranker = (lambda: ColbertReranker(colbert_dir)) if colbert_dir.exists() else None
        return cls(snapshot, catalog, planes, reranker)

    def plane(self, name: str) -> Plane:
        with self._lock:
            if name not in self._planes:
                self._planes[name] = self._plane_factories[name]()
            return self._planes[name]

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
        cfg = config if isinstance(config, EngineConfig) else get_configuration(config)
        timings: dict[str, float] = {}
        started = time.perf_counter()
        parsed = parse_query(question, as_of=as_of, jurisdiction=jurisdiction)
        allowed = self.catalog.allowed(parsed.as_of.value, parsed.jurisdiction.value, authorities)
        query = PlaneQuery(
            text=query_terms(parsed),
            as_of=parsed.as_of.value,
            allowed=allowed,
            query_type=parsed.query_type,
            seeds=parsed.seeds,
            terms=tuple(t.term for t in parsed.terms),
            facts=parsed.fact_values(),
            predicate=parsed.predicate.name if parsed.predicate else None,
        )
        timings["parse_filter"] = _ms(started)
        ranked: dict[str, list[PlaneHit]] = {}
        verdicts: list[dict[str, Any]] = []
        if allowed:
            for name in cfg.planes:
                t0 = time.perf_counter()
                plane = self.plane(name)
                if isinstance(plane, SymbolicPlane):
                    ranked[name], verdicts = plane.evaluate(query, cfg.k_per_plane)
                else:
                    ranked[name] = plane.retrieve(query, cfg.k_per_plane)
                timings[name] = _ms(t0)
        fused = reciprocal_rank_fusion(ranked, k=cfg.rrf_k)
        rerank_scores: dict[str, float] = {}
        if cfg.reranker == "colbert" and self._reranker_factory and fused:
            t0 = time.perf_counter()
            fused, rerank_scores = self._rerank(query, fused, cfg.rerank_depth)
            timings["rerank"] = _ms(t0)
        candidates = [self._candidate(i, c, rerank_scores) for i, c in enumerate(fused[:k], 1)]
        decision = decide(parsed, query, self.catalog, candidates, verdicts)
        timings["total"] = _ms(started)
        return EvidenceBundle(
            question=question,
            parsed_query=parsed.to_dict(),
            configuration=cfg.name,
            snapshot_id=self.snapshot.snapshot_id,
            corpus_versions=self.snapshot.sources,
            candidates=candidates,
            verdicts=verdicts,
            decision=decision,
            timings_ms=timings,
        )

    def _rerank(
        self, query: PlaneQuery, fused: list[FusedCandidate], depth: int
    ) -> tuple[list[FusedCandidate], dict[str, float]]:
        with self._lock:
            if self._reranker is None:
                self._reranker = self._reranker_factory()
        head, tail = fused[:depth], fused[depth:]
        scores = self._reranker.scores(query.text, [c.version_id for c in head])
        head.sort(key=lambda c: (-scores.get(c.version_id, float("-inf")), -c.score))
        return head + tail, scores

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


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000.0, 3)
