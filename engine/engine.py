"""The query path: parse, filter, run the configured planes, fuse, rerank, decide.

`Engine.open(index_dir).ask(question)` returns an `EvidenceBundle`. The engine holds no
per-query state, and every plane it uses is safe to call from several threads, so one engine
serves concurrent `ask` calls.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace
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
from structfirst.engine.symbolic_plane import SymbolicPlane, rule_seeds
from structfirst.engine.text_planes import ColbertReranker, TextSearchPlane
from structfirst.fusion.rrf import FusedCandidate, reciprocal_rank_fusion
from structfirst.ingest.citation_graph import load_graph
from structfirst.ingest.duckdb_store import connect_readonly
from structfirst.ingest.snapshot import open_snapshot

NEEDS_INDEX = {"lexical": "lucene", "dense": "dense", "colbert": "colbert"}  # snapshot sub-dirs
RESULT_DEPTH = 20
DEFINITION_DEPTH = 10  # defining clauses the graph walk reached below the top k, kept as context


class Engine:
    def __init__(
        self,
        snapshot: Any,
        catalog: Catalog,
        planes: dict[str, Callable[[EngineConfig], Plane]],
        reranker: Callable[[], ColbertReranker],
    ) -> None:
        self.snapshot = snapshot
        self.catalog = catalog
        self._plane_factories = planes
        self._reranker_factory = reranker
        self._planes: dict[tuple[str, float, float], Plane] = {}
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
        planes: dict[str, Callable[[EngineConfig], Plane]] = {
            "lexical": lambda cfg: TextSearchPlane.lexical(
                root / "lucene", cfg.bm25_k1, cfg.bm25_b
            ),
            "dense": lambda cfg: TextSearchPlane.dense(root / "dense"),
            "graph": lambda cfg: GraphPlane(graph, catalog),
            "symbolic": lambda cfg: SymbolicPlane(catalog, Path(index_dir)),
        }
        return cls(snapshot, catalog, planes, lambda: ColbertReranker(root / "colbert"))

    def check(self, cfg: EngineConfig) -> None:
        """Raise ValueError if `cfg` needs an index this snapshot lacks or a component the engine
        does not have yet, rather than run it as something other than its label says."""
        for part in (*cfg.planes, cfg.reranker):
            sub = NEEDS_INDEX.get(part)
            if sub and not (self.snapshot.path / sub).is_dir():
                raise ValueError(
                    f"configuration {cfg.name} needs the {part} index, but {self.snapshot.path} "
                    f"has no {sub}/ (ingest without --no-dense)"
                )
        if cfg.reranker == "domain" or cfg.fusion != "rrf" or cfg.calibrated_abstention:
            raise ValueError(
                f"configuration {cfg.name} asks for a component the engine does not have yet "
                f"(reranker={cfg.reranker!r}, fusion={cfg.fusion!r}, "
                f"calibrated_abstention={cfg.calibrated_abstention})"
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
        cfg = config if isinstance(config, EngineConfig) else get_configuration(config)
        self.check(cfg)
        timings: dict[str, float] = {}
        started = time.perf_counter()
        parsed = parse_query(question, as_of=as_of, jurisdiction=jurisdiction)
        allowed = self.catalog.hard_filter(
            parsed.as_of.value, parsed.jurisdiction.value, authorities
        )
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
            # The symbolic plane runs first: the clauses its rules formalize seed the graph walk.
            for name in sorted(cfg.planes, key=lambda n: n != "symbolic"):
                t0 = time.perf_counter()
                plane = self.plane(name, cfg)
                if isinstance(plane, SymbolicPlane):
                    ranked[name], verdicts = plane.evaluate(query, cfg.k_per_plane)
                    query = replace(query, seeds=merge_seeds(query.seeds, rule_seeds(verdicts)))
                else:
                    ranked[name] = plane.retrieve(query, cfg.k_per_plane)
                timings[name] = _ms(t0)
        fused = reciprocal_rank_fusion(ranked, k=cfg.rrf_k, weights=cfg.plane_weights)
        rerank_scores: dict[str, float] = {}
        if cfg.reranker == "colbert" and fused:
            t0 = time.perf_counter()
            fused, rerank_scores = self._rerank(query, fused, cfg.rerank_depth, cfg.rrf_k)
            timings["rerank"] = _ms(t0)
        if cfg.hierarchy_penalty:
            fused = demote_enclosed(fused, self.catalog, cfg.hierarchy_penalty)
        candidates = [self._candidate(i, c, rerank_scores) for i, c in enumerate(fused[:k], 1)]
        definitions = [
            self._candidate(i, c, rerank_scores)
            for i, c in enumerate(fused, 1)
            if i > k and any(p.rsplit(" ", 2)[-2:-1] == ["<-defines-"] for p in c.paths)
        ][:DEFINITION_DEPTH]
        decision = decide(parsed, query, self.catalog, candidates, verdicts)
        timings["total"] = _ms(started)
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

    def _rerank(
        self, query: PlaneQuery, fused: list[FusedCandidate], depth: int, rrf_k: int
    ) -> tuple[list[FusedCandidate], dict[str, float]]:
        """Re-order the top `depth`: the late-interaction (MaxSim) rank adds one more RRF term,
        1 / (k + rank), to each candidate's fused score, so the reranker votes alongside the
        planes instead of overriding their structural evidence."""
        with self._lock:
            if self._reranker is None:
                self._reranker = self._reranker_factory()
        head, tail = fused[:depth], fused[depth:]
        scores = self._reranker.scores(query.text, [c.version_id for c in head])
        by_score = sorted(head, key=lambda c: -scores.get(c.version_id, float("-inf")))
        combined = {c.version_id: c.score + 1.0 / (rrf_k + i) for i, c in enumerate(by_score, 1)}
        head.sort(key=lambda c: (-combined[c.version_id], c.version_id))
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


def demote_enclosed(
    fused: list[FusedCandidate], catalog: Catalog, penalty: int
) -> list[FusedCandidate]:
    """Move each clause `penalty` places down when a provision enclosing it already ranks
    higher: the enclosing provision's indexed text holds the clause's words, so the clause adds
    little new evidence there, and the places go to provisions not yet represented."""
    placed: set[str] = set()
    keyed = []
    for i, cand in enumerate(fused):
        node_id = catalog.versions[cand.version_id].node_id
        parts = node_id.split("/")
        enclosed = any("/".join(parts[:n]) in placed for n in range(4, len(parts)))
        keyed.append((i + (penalty if enclosed else 0), enclosed, i, cand))
        placed.add(node_id)
    return [cand for *_, cand in sorted(keyed, key=lambda t: t[:3])]


def merge_seeds(cited: tuple[str, ...], from_rules: tuple[str, ...]) -> tuple[str, ...]:
    """The rules' clauses first; a cited provision that encloses one of them (§ 547 around
    § 547(b)) gives way to it, as the reference seeds the walk at (b), not at all of § 547."""
    kept = [s for s in cited if not any(r.startswith(s + "/") for r in from_rules)]
    return tuple(dict.fromkeys([*from_rules, *kept]))


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000.0, 3)
