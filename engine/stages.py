"""The retrieval stages: the planes, the ColBERT vote, the hierarchy demotion, neural scores,
section-family expansion.

Each wraps an existing plane or rule of the query path behind the `Stage` interface of
`engine/pipeline.py`. The symbolic stage runs before the graph stage: the clauses its decided
rules formalize become seeds of the graph walk (the frame's query carries them on).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from structfirst.engine.catalog import Catalog
from structfirst.engine.pipeline import QueryFrame, Stage
from structfirst.engine.plane import Plane
from structfirst.engine.symbolic_plane import SymbolicPlane, rule_seeds
from structfirst.fusion.rrf import FusedCandidate


class NeuralScorer(Protocol):
    """f_theta(q, d) for a list of candidates: the ColBERT MaxSim, or a trained cross-encoder."""

    def scores(self, text: str, version_ids: Sequence[str]) -> dict[str, float]: ...


class SymbolicStage(Stage):
    """Plane 4: rule verdicts and their clauses; the roots', grounds' and links' clauses are
    put first among the query's seeds, so the graph stage walks from them."""

    name = "symbolic"

    def __init__(self, plane: SymbolicPlane, k: int) -> None:
        self.plane = plane
        self.k = k

    def transform(self, frame: QueryFrame) -> QueryFrame:
        if not frame.query.allowed:
            return frame
        hits, verdicts = self.plane.evaluate(frame.query, self.k)
        query = replace(frame.query, seeds=merge_seeds(frame.query.seeds, rule_seeds(verdicts)))
        return replace(
            frame,
            query=query,
            ranked={**frame.ranked, self.name: tuple(hits)},
            verdicts=tuple(verdicts),
        )


class RetrievalStage(Stage):
    """One candidate-generating plane (lexical, dense, graph): its top k within the filter."""

    def __init__(self, plane: Plane, k: int) -> None:
        self.plane = plane
        self.k = k

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.plane.name

    def transform(self, frame: QueryFrame) -> QueryFrame:
        if not frame.query.allowed:
            return frame
        hits = self.plane.retrieve(frame.query, self.k)
        return replace(frame, ranked={**frame.ranked, self.name: tuple(hits)})


class NeuralScores(Stage):
    """f_theta(q, d) over the top `depth` candidates, into the frame's `neural_scores`."""

    name = "neural"

    def __init__(self, scorer: NeuralScorer, depth: int) -> None:
        self.scorer = scorer
        self.depth = depth

    def transform(self, frame: QueryFrame) -> QueryFrame:
        head = [c.version_id for c in frame.candidates[: self.depth]]
        scores = self.scorer.scores(frame.query.text, head) if head else {}
        return replace(frame, neural_scores={**frame.neural_scores, **scores})


class ColbertVote(Stage):
    """Re-order the top `depth`: the late-interaction (MaxSim) rank adds one more RRF term,
    1 / (k + rank), to each candidate's fused score, so the reranker votes alongside the
    planes instead of overriding their structural evidence (H2 to H4)."""

    name = "rerank"

    def __init__(self, scorer: NeuralScorer, depth: int, rrf_k: int) -> None:
        self.scorer = scorer
        self.depth = depth
        self.rrf_k = rrf_k

    def transform(self, frame: QueryFrame) -> QueryFrame:
        if not frame.candidates:
            return frame
        head, tail = list(frame.candidates[: self.depth]), frame.candidates[self.depth :]
        scores = self.scorer.scores(frame.query.text, [c.version_id for c in head])
        by_score = sorted(head, key=lambda c: -scores.get(c.version_id, float("-inf")))
        vote = {c.version_id: c.score + 1.0 / (self.rrf_k + i) for i, c in enumerate(by_score, 1)}
        head.sort(key=lambda c: (-vote[c.version_id], c.version_id))
        return replace(
            frame,
            candidates=(*head, *tail),
            neural_scores={**frame.neural_scores, **scores},
        )


class SectionFamily(Stage):
    """Section-family expansion: each of the top `depth` candidates brings in the provisions
    enclosing it (up to its section) and its direct children, in force under the query's hard
    filter, right after it, so the learned fusion can choose the level (a section's lead-in
    with its children, or the clause itself); the order of the others is unchanged."""

    name = "family"

    def __init__(self, catalog: Catalog, depth: int, max_children: int = 12) -> None:
        self.catalog = catalog
        self.depth = depth
        self.max_children = max_children

    def transform(self, frame: QueryFrame) -> QueryFrame:
        seen = {c.version_id for c in frame.candidates}
        out: list[FusedCandidate] = []
        for i, cand in enumerate(frame.candidates):
            out.append(cand)
            if i >= self.depth:
                continue
            for vid in self._family(cand.version_id, frame):
                if vid not in seen:
                    seen.add(vid)
                    out.append(FusedCandidate(vid))
        return replace(frame, candidates=tuple(out))

    def _family(self, version_id: str, frame: QueryFrame) -> list[str]:
        """The version ids of the candidate's ancestors and children allowed for the query."""
        node = self.catalog.versions[version_id].node_id
        kin = [*self.catalog.ancestors(node), *self.catalog.children.get(node, ())[
            : self.max_children]]
        found = (self.catalog.version_at(n, frame.query.as_of) for n in kin)
        return [v.version_id for v in found if v and v.version_id in frame.query.allowed]


class HierarchyDemotion(Stage):
    """Move each clause `penalty` places down when a provision enclosing it already ranks
    higher: the enclosing provision's indexed text holds the clause's words, so the clause adds
    little new evidence there, and the places go to provisions not yet represented (H4)."""

    name = "hierarchy"

    def __init__(self, catalog: Catalog, penalty: int) -> None:
        self.catalog = catalog
        self.penalty = penalty

    def transform(self, frame: QueryFrame) -> QueryFrame:
        demoted = demote_enclosed(list(frame.candidates), self.catalog, self.penalty)
        return replace(frame, candidates=tuple(demoted))


def demote_enclosed(
    fused: list[FusedCandidate], catalog: Catalog, penalty: int
) -> list[FusedCandidate]:
    """`fused` with every clause whose enclosing provision ranks higher moved `penalty` down."""
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
