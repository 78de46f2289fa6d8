"""The query path: parse, filter, run the configured planes, fuse, rerank, decide.

`Engine.open(index_dir).ask(question)` returns an `EvidenceBundle`. The engine holds no
per-query state, and every plane it uses is safe to call from several threads, so one engine
serves concurrent `ask` calls.

The engine holds a lease on the snapshot it opened (`structfirst.ingest.snapshot.lease`), so
re-ingests never prune it away; `reload()` moves to the new `CURRENT` between questions (asks
in flight finish on the old snapshot, the next ones wait for the switch), and `close()` lets
the old snapshot go. A snapshot whose files do not match the sizes in its meta.json, or whose
store or graph cannot be read, is refused with a SnapshotError naming the file.
"""

from __future__ import annotations

import gzip
import json
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

import duckdb
from structfirst.engine.catalog import Catalog
from structfirst.engine.configuration import EngineConfig, get_configuration
from structfirst.engine.decision import decide
from structfirst.engine.evidence import EvidenceBundle, EvidenceCandidate
from structfirst.engine.graph_plane import GraphPlane
from structfirst.engine.plane import HardFilter, Plane, PlaneHit, PlaneQuery
from structfirst.engine.query_citations import DEFAULT_JURISDICTION
from structfirst.engine.query_parser import parse_query, query_terms
from structfirst.engine.symbolic_plane import SymbolicPlane, rule_seeds
from structfirst.engine.text_planes import ColbertReranker, TextSearchPlane
from structfirst.fusion.rrf import FusedCandidate, reciprocal_rank_fusion
from structfirst.ingest.citation_graph import load_graph
from structfirst.ingest.duckdb_store import connect_readonly
from structfirst.ingest.snapshot import Lease, Snapshot, SnapshotError, lease
from structfirst.rules.library_loader import default_library

NEEDS_INDEX = {"lexical": "lucene", "dense": "dense", "colbert": "colbert"}  # snapshot sub-dirs
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
        snapshot_lease: Lease | None = None,
        index_dir: Path | None = None,
    ) -> None:
        self.snapshot = snapshot
        self.catalog = catalog
        self._plane_factories = planes
        self._reranker_factory = reranker
        self._planes: dict[tuple[str, float, float], Plane] = {}
        self._reranker: ColbertReranker | None = None
        self._lock = threading.Lock()
        self._lease = snapshot_lease
        self.index_dir = index_dir
        self._readers = _Readers()

    @classmethod
    def open(cls, index_dir: Path | str, *, full_verify: bool = False) -> Engine:
        """Open (and lease) the current snapshot of `index_dir`; planes load on first use.
        `full_verify` also checks every file's sha256 (sizes are always checked)."""
        index_dir = Path(index_dir)
        held = lease(index_dir, full=full_verify)
        try:
            parts = _load(held.snapshot, index_dir)
        except BaseException:
            held.release()
            raise
        return cls(*parts, snapshot_lease=held, index_dir=index_dir)

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
            snapshot, catalog, planes, reranker = _load(held.snapshot, self.index_dir)
        except BaseException:
            held.release()
            raise
        with self._readers.switching():
            old = self._lease
            self.snapshot, self.catalog = snapshot, catalog
            self._plane_factories, self._reranker_factory = planes, reranker
            self._planes, self._reranker, self._lease = {}, None, held
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
        parsed = parse_query(
            question,
            as_of=as_of,
            jurisdiction=jurisdiction,
            corpus_jurisdictions=self.catalog.jurisdictions,
            default_jurisdiction=self.catalog.default_jurisdiction(DEFAULT_JURISDICTION),
        )
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


def _load(
    snapshot: Snapshot, index_dir: Path
) -> tuple[
    Snapshot, Catalog, dict[str, Callable[[EngineConfig], Plane]], Callable[[], ColbertReranker]
]:
    """The catalog, graph and plane factories of `snapshot`; SnapshotError names the file when
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
        "lexical": lambda cfg: TextSearchPlane.lexical(root / "lucene", cfg.bm25_k1, cfg.bm25_b),
        "dense": lambda cfg: TextSearchPlane.dense(root / "dense"),
        "graph": lambda cfg: GraphPlane(graph, catalog),
        "symbolic": lambda cfg: SymbolicPlane(
            catalog, index_dir, default_library(index_dir, snapshot.snapshot_id)
        ),
    }
    return snapshot, catalog, planes, lambda: ColbertReranker(root / "colbert")


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
