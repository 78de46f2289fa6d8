"""Plane 3: typed walks over the citation graph, Retrieve_G(S, tau, t).

From the seed nodes of the query, a walk follows only the edge types (and directions) that the
query type allows, and reaches only nodes valid at the as-of date: each neighbour is replaced by
the version of the same provision that is in the query's allowed set, or dropped. Every hit
carries its path, e.g. `s547/b -cross_refs-> s547/c`. Membership is checked per node
(`version_id in query.allowed`: a hard filter checks the version's interval, jurisdiction and
authority directly), so a walk costs the same at any corpus size.

Walk cost: a `contains` step down the hierarchy, or a step from a term to the clause defining
it, costs 0.5, any other step 1; the score of a node is 1 / (1 + cost of its cheapest path).
"""

from __future__ import annotations

import heapq
import re
from dataclasses import dataclass

import networkx as nx
from structfirst.engine.catalog import Catalog
from structfirst.engine.plane import PlaneHit, PlaneQuery

OUT, IN = "out", "in"


@dataclass(frozen=True, slots=True)
class WalkSpec:
    steps: frozenset[tuple[str, str]]  # (edge type, direction)
    max_cost: float


CITATION_WALK = WalkSpec(frozenset({("contains", OUT), ("cross_refs", OUT)}), 2.0)
# an exception's or a threshold's amount is set by the note that adjusts it (annotates, in)
EXCEPTION_WALK = WalkSpec(
    frozenset(
        {("contains", OUT), ("cross_refs", OUT), ("uses", OUT), ("defines", IN), ("annotates", IN)}
    ),
    4.0,
)
DEFINITION_WALK = WalkSpec(
    frozenset({("uses", OUT), ("defines", IN), ("defines", OUT), ("contains", OUT)}), 2.5
)
THRESHOLD_WALK = WalkSpec(
    frozenset({("contains", OUT), ("cross_refs", OUT), ("annotates", IN)}), 2.0
)
COMPARISON_WALK = WalkSpec(
    frozenset(
        {
            ("contains", OUT),
            ("cross_refs", OUT),
            ("derived_from", OUT),
            ("derived_from", IN),
            ("interprets", IN),
        }
    ),
    2.0,
)
WALK_BY_QUERY_TYPE: dict[str, WalkSpec] = {
    "lookup": CITATION_WALK,
    "multi_clause_synthesis": CITATION_WALK,
    "exception_application": EXCEPTION_WALK,
    "definition": DEFINITION_WALK,
    "threshold_check": THRESHOLD_WALK,
    "jurisdiction_comparison": COMPARISON_WALK,
}
STEP_COST = {("contains", OUT): 0.5, ("defines", IN): 0.5}
SEED_ORDER_COST = 1e-3


def _words(text: str) -> frozenset[str]:
    return frozenset(w.rstrip("s") for w in re.findall(r"[a-z]+", text.lower()))


def focus_words(query: PlaneQuery) -> frozenset[str]:
    """Words of the question, of its fact names (`creditor_is_insider`) and of its terms."""
    texts = [query.text, *query.terms, *(name.replace("_", " ") for name in query.facts)]
    return frozenset().union(*(_words(t) for t in texts))


def short_id(node_id: str) -> str:
    """`/us/usc/t11/s547/c/9` -> `s547/c/9` for readable paths."""
    parts = node_id.strip("/").split("/")
    return "/".join(parts[3:]) if len(parts) > 3 else node_id


class GraphPlane:
    name = "graph"

    def __init__(self, graph: nx.MultiDiGraph, catalog: Catalog) -> None:
        self.graph = graph
        self.catalog = catalog

    def seeds(self, query: PlaneQuery) -> list[str]:
        """Seed versions: each seed citation's node, or its nearest existing ancestor, at as-of."""
        found = []
        for node_id in query.seeds:
            probe = node_id
            while probe.count("/") > 3:
                version = self.catalog.version_at(probe, query.as_of)
                if version is not None:
                    if version.version_id in query.allowed:
                        found.append(version.version_id)
                    break
                probe = probe.rsplit("/", 1)[0]
        found += self._term_seeds(query)
        return list(dict.fromkeys(found))

    def _term_seeds(self, query: PlaneQuery) -> list[str]:
        terms = sorted({t.strip().lower() for t in query.terms})
        return [
            v.version_id
            for term in terms
            for v in self.catalog.terms.get(term, ())
            if v.version_id in query.allowed
        ]

    def retrieve(self, query: PlaneQuery, k: int) -> list[PlaneHit]:
        spec = WALK_BY_QUERY_TYPE.get(query.query_type, CITATION_WALK)
        seeds = self.seeds(query)
        focus = focus_words(query)
        best: dict[str, tuple[float, str]] = {}
        # Seeds in the order given (cited provisions, then the rules' clauses) by a tiny cost.
        heap = [
            (i * SEED_ORDER_COST, vid, short_id(self.catalog.versions[vid].node_id))
            for i, vid in enumerate(seeds)
        ]
        heapq.heapify(heap)
        while heap and len(best) < k:
            cost, vid, path = heapq.heappop(heap)
            if vid in best:
                continue
            best[vid] = (cost, path)
            for edge_type, direction, neighbour in self._neighbours(vid):
                if (edge_type, direction) not in spec.steps:
                    continue
                if edge_type == "uses" and not self._in_focus(neighbour, focus):
                    continue
                step = STEP_COST.get((edge_type, direction), 1.0)
                target = self._valid_version(neighbour, query)
                if target is None or target in best or cost + step > spec.max_cost:
                    continue
                arrow = f" -{edge_type}-> " if direction == OUT else f" <-{edge_type}- "
                label = short_id(self.catalog.versions[target].node_id)
                heapq.heappush(heap, (cost + step, target, path + arrow + label))
        hits = [PlaneHit(vid, 1.0 / (1.0 + cost), path) for vid, (cost, path) in best.items()]
        return sorted(hits, key=lambda h: (-h.score, h.version_id))[:k]

    def _in_focus(self, term_vid: str, focus: frozenset[str]) -> bool:
        """A `uses` step is taken only to a term the question speaks of (in its words, its
        facts or its quoted terms), so a walk does not fan out to every term a clause uses."""
        version = self.catalog.versions.get(term_vid)
        term = (version.heading or "") if version else ""
        return bool(term) and _words(term) <= focus

    def _neighbours(self, vid: str):
        for _, dst, edge_type in self.graph.out_edges(vid, keys=True):
            yield edge_type, OUT, dst
        for src, _, edge_type in self.graph.in_edges(vid, keys=True):
            yield edge_type, IN, src

    def _valid_version(self, vid: str, query: PlaneQuery) -> str | None:
        if vid in query.allowed:
            return vid
        version = self.catalog.versions.get(vid)
        if version is None:
            return None
        current = self.catalog.version_at(version.node_id, query.as_of)
        return current.version_id if current and current.version_id in query.allowed else None
