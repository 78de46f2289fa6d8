"""Structural features of each candidate: one stage shared by fusion, reranker and calibrator.

`StructuralFeatures` writes into every candidate's `features` a dict whose keys are exactly
`FEATURE_NAMES`, in that order, each a float. The features are the reference's modality scores
(normalized, with explicit sentinels where a plane did not return the candidate) and its
structural signals phi(d, q). Each `feature_*` function below computes one group and says what
its features mean; `FEATURE_DOCS` maps every feature name to its meaning.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from decimal import Decimal

import networkx as nx
from structfirst.engine.catalog import ArtifactVersion, Catalog, jurisdiction_admits
from structfirst.engine.pipeline import QueryFrame, Stage
from structfirst.engine.plane import PlaneHit
from structfirst.engine.query_parser import QUERY_TYPES
from structfirst.fusion.rrf import FusedCandidate
from structfirst.rules.parameters import ParameterTable, ParamValue

PLANES = ("lexical", "dense", "graph", "symbolic")
MISSING_SCORE = -1.0  # a plane's normalized score when it did not return the candidate
MISSING_PATH = -1.0  # graph path length when the walk did not reach the candidate
OPEN_END_DAYS = 36525.0  # days until the end of a version still in force (100 years)
AUTHORITIES = ("statute", "regulation", "interpretation", "note")
PATH_EDGES = ("contains", "cross_refs", "defines", "uses", "annotates", "interprets")
VERDICT_KINDS = ("true", "false", "undetermined", "value")
AGREEMENT_DEPTH = 10  # "modality agreement": the plane placed the candidate in its top 10
EXCEPTION_DEPTH = 20  # an exception link counts among the top 20 candidates
FAMILY_HEAD = 20  # family_descendants_head counts the planes' fused top 20
EXCEPTION_WORDS = re.compile(r"\b(except|notwithstanding|subject to|other than)\b", re.I)
_AMOUNT = re.compile(r"\$\s?(\d[\d,]*(?:\.\d+)?)")
_DAYS = re.compile(r"\b(\d{1,4})\s+days\b", re.I)
_WORD = re.compile(r"[a-z]+")
HEADING_STOP_WORDS = frozenset(
    "a an and as at by for from in into of on or other such than that the their to under upon "
    "with without general definition".split()
)

FEATURE_DOCS: dict[str, str] = {
    **{f"{p}_score": f"{p} plane score, min-max normalized over its list; -1 if absent"
       for p in PLANES},
    **{f"{p}_rrank": f"1 / rank in the {p} plane's list; 0 if absent" for p in PLANES},
    "rrf_score": "unweighted reciprocal rank fusion score, sum of 1 / (60 + rank)",
    "neural_score": "f_theta (ColBERT MaxSim or a trained cross-encoder) min-max normalized "
    "over the scored head; -1 if not scored",
    "planes_returning": "how many planes returned the candidate",
    "planes_top10": "fraction of the planes that ran which placed it in their top 10",
    "graph_path_length": "edges on the graph walk's path from a seed (0: a seed); -1 unreached",
    **{f"graph_via_{e}": f"1 if the graph path takes a {e} edge" for e in PATH_EDGES},
    **{f"rule_{v}": f"1 if a rule with verdict {v!r} rests on the clause" for v in VERDICT_KINDS},
    "rule_formalized": "1 if the clause is one a rule formalizes (not only a premise's)",
    "jurisdiction_match": "1 if the question's jurisdiction admits the candidate's",
    "date_valid": "1 if the version is in force at the as-of date",
    "days_since_start": "days from the version's start to the as-of date (0 if no start)",
    "days_until_end": f"days from the as-of date to the version's end ({OPEN_END_DAYS:.0f} open)",
    **{f"authority_{a}": f"1 if the candidate's authority is {a}" for a in AUTHORITIES},
    "legislative_history": "1 if the candidate is a legislative-history note (committee "
    "reports, legislative statements): commentary, not law",
    "is_defined_term": "1 if the candidate is a defined-term node",
    "hierarchy_depth": "levels below its section (a section is 0)",
    "enclosing_ranks_higher": "1 if a provision enclosing it ranks higher in the input order",
    "family_descendants_head": "how many of the planes' top 20 (fused order) lie inside it",
    "family_descendant_rrank": "1 / fused rank of the best-ranked provision inside it; 0 none",
    "family_ancestor_rrank": "1 / fused rank of the best-ranked provision enclosing it; 0 none",
    "family_children": "direct sub-provisions it has in the index (a lead-in has some)",
    "term_overlap": "defined terms the candidate defines or uses that the question names",
    "heading_overlap": "share of the candidate's heading words (stop words aside) the question "
    "or its thesaurus expansion uses; 0 without a heading",
    "section_heading_overlap": "the same for the heading of the section that holds it",
    "citation_exact": "1 if the question cites exactly this provision",
    "citation_within": "1 if the candidate lies inside a provision the question cites",
    "citation_encloses": "1 if the candidate encloses a provision the question cites",
    "exception_link": "1 if an exception-worded cross-reference joins it to another top-20 "
    "candidate",
    **{f"qtype_{t}": f"1 if the question is of type {t}" for t in QUERY_TYPES},
    "location_section": "1 if the question asks where the law on something is (which section, "
    "where in the Code) and the candidate is a whole section",
    "contradictions": "dated parameters of the provision whose value at the as-of date the "
    "candidate's text does not state while stating other amounts or periods",
}
FEATURE_NAMES: tuple[str, ...] = tuple(FEATURE_DOCS)


def plane_positions(
    ranked: Mapping[str, Sequence[PlaneHit]],
) -> dict[str, dict[str, tuple[int, float]]]:
    """Per plane: version id -> (1-based rank, min-max normalized score); a plane listing a
    version twice keeps its best rank."""
    out: dict[str, dict[str, tuple[int, float]]] = {}
    for plane, hits in ranked.items():
        scores = [h.score for h in hits]
        low, high = (min(scores), max(scores)) if scores else (0.0, 0.0)
        seen: dict[str, tuple[int, float]] = {}
        for rank, h in enumerate(hits, 1):
            norm = 1.0 if high == low else (h.score - low) / (high - low)
            seen.setdefault(h.version_id, (rank, norm))
        out[plane] = seen
    return out


def feature_plane_scores(
    vid: str, positions: Mapping[str, Mapping[str, tuple[int, float]]]
) -> dict[str, float]:
    """Per plane: the normalized score and the reciprocal rank; sentinels when absent."""
    out: dict[str, float] = {}
    for plane in PLANES:
        found = positions.get(plane, {}).get(vid)
        if found is None:
            out[f"{plane}_score"], out[f"{plane}_rrank"] = MISSING_SCORE, 0.0
        else:
            out[f"{plane}_score"], out[f"{plane}_rrank"] = found[1], 1.0 / found[0]
    return out


def feature_agreement(
    vid: str, positions: Mapping[str, Mapping[str, tuple[int, float]]]
) -> dict[str, float]:
    """How many planes returned the candidate, and the fraction with it in their top 10."""
    ranks = [positions[p].get(vid, (0, 0.0))[0] for p in PLANES if p in positions]
    returning = sum(r > 0 for r in ranks)
    top = sum(0 < r <= AGREEMENT_DEPTH for r in ranks)
    agreement = top / len(ranks) if ranks else 0.0
    return {"planes_returning": float(returning), "planes_top10": agreement}


def feature_graph_path(paths: Sequence[str]) -> dict[str, float]:
    """The shortest graph path's length in edges and the edge types it takes, from paths like
    `s547/b -cross_refs-> s547/c <-defines- s101/31`."""
    out = {f"graph_via_{e}": 0.0 for e in PATH_EDGES}
    if not paths:
        return {"graph_path_length": MISSING_PATH, **out}
    shortest = min(paths, key=lambda p: (p.count(" -") + p.count(" <-"), p))
    edges = re.findall(r" -(\w+)-> | <-(\w+)- ", shortest)
    for a, b in edges:
        if (a or b) in PATH_EDGES:
            out[f"graph_via_{a or b}"] = 1.0
    return {"graph_path_length": float(len(edges)), **out}


def feature_rule_support(support: Sequence[Mapping[str, str]]) -> dict[str, float]:
    """Which verdicts the clause supports (true, false, undetermined, a parameter's value) and
    whether a rule formalizes it rather than only citing it in a premise."""
    out = {f"rule_{v}": float(any(s.get("verdict") == v for s in support)) for v in VERDICT_KINDS}
    out["rule_formalized"] = float(any(s.get("role") == "formalized clause" for s in support))
    return out


def feature_validity(v: ArtifactVersion, as_of: date, jurisdiction: str) -> dict[str, float]:
    """Jurisdiction match, date validity, days since the start and until the end."""
    since = (as_of - v.effective_from).days if v.effective_from else 0
    until = (v.effective_to - as_of).days if v.effective_to else OPEN_END_DAYS
    return {
        "jurisdiction_match": float(jurisdiction_admits(jurisdiction, v.jurisdiction)),
        "date_valid": float(v.valid_at(as_of)),
        "days_since_start": float(since),
        "days_until_end": float(until),
    }


def feature_authority(v: ArtifactVersion) -> dict[str, float]:
    """One-hot authority, whether the node is legislative history, and whether it is a
    defined term."""
    out = {f"authority_{a}": float(v.authority == a) for a in AUTHORITIES}
    out["legislative_history"] = float(v.is_legislative_history)
    out["is_defined_term"] = float(v.type == "DefinedTerm")
    return out


def feature_hierarchy(node_id: str, higher: set[str]) -> dict[str, float]:
    """Depth below the section, and whether a provision enclosing it is in `higher` (the node
    ids ranked above it)."""
    parts = node_id.split("/")
    enclosed = any("/".join(parts[:n]) in higher for n in range(5, len(parts)))
    return {
        "hierarchy_depth": float(max(0, len(parts) - 5)),
        "enclosing_ranks_higher": float(enclosed),
    }


def feature_family(node_id: str, family: FamilyRanks, children: int) -> dict[str, float]:
    """Where its section family ranks among the candidates the planes returned: provisions
    inside it and enclosing it, and how many children it has."""
    parts = node_id.split("/")
    around = [family.rank[a] for a in ("/".join(parts[:n]) for n in range(2, len(parts)))
              if a in family.rank]
    inside = family.best_inside.get(node_id)
    return {
        "family_descendants_head": float(family.inside_head.get(node_id, 0)),
        "family_descendant_rrank": 1.0 / inside if inside else 0.0,
        "family_ancestor_rrank": 1.0 / min(around) if around else 0.0,
        "family_children": float(children),
    }


@dataclass(slots=True)
class FamilyRanks:
    """Node id -> 1-based fused rank of the candidates some plane returned (the family
    expansion's additions do not count), and per enclosing node the best rank inside it and
    how many of the top `FAMILY_HEAD` lie inside it."""

    rank: dict[str, int] = field(default_factory=dict)
    best_inside: dict[str, int] = field(default_factory=dict)
    inside_head: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, node_ids: Sequence[str]) -> FamilyRanks:
        out = cls()
        for rank, node in enumerate(node_ids, 1):
            if node in out.rank:
                continue
            out.rank[node] = rank
            parts = node.split("/")
            for n in range(2, len(parts)):
                up = "/".join(parts[:n])
                out.best_inside.setdefault(up, rank)
                if rank <= FAMILY_HEAD:
                    out.inside_head[up] = out.inside_head.get(up, 0) + 1
        return out


def feature_citation(node_id: str, cited: Sequence[str]) -> dict[str, float]:
    """Whether the question cites the provision, a provision enclosing it, or one inside it."""
    return {
        "citation_exact": float(node_id in cited),
        "citation_within": float(any(node_id.startswith(c + "/") for c in cited)),
        "citation_encloses": float(any(c.startswith(node_id + "/") for c in cited)),
    }


def feature_query_type(query_type: str) -> dict[str, float]:
    """One-hot query type."""
    return {f"qtype_{t}": float(query_type == t) for t in QUERY_TYPES}


def feature_location(asks_location: bool, v: ArtifactVersion) -> dict[str, float]:
    """Whether a question asking where the law on something is meets a whole section."""
    return {"location_section": float(asks_location and v.type == "Section")}


def words(text: str) -> frozenset[str]:
    return frozenset(w.rstrip("s") for w in _WORD.findall(text.lower()))


def feature_term_overlap(terms: Sequence[str], question: frozenset[str]) -> dict[str, float]:
    """Defined terms (of the candidate) all of whose words occur in the question."""
    return {"term_overlap": float(sum(bool(w) and w <= question for w in map(words, terms)))}


def heading_overlap(heading: str | None, question: frozenset[str]) -> float:
    """Share of the heading's content words that `question` (a `words` set) holds."""
    content = words(heading or "") - HEADING_STOP_WORDS
    return len(content & question) / len(content) if content else 0.0


def feature_headings(
    heading: str | None, section_heading: str | None, question: frozenset[str]
) -> dict[str, float]:
    """How much of the candidate's heading, and its section's, the question says."""
    return {
        "heading_overlap": heading_overlap(heading, question),
        "section_heading_overlap": heading_overlap(section_heading, question),
    }


def stated_values(text: str, unit: str) -> set[Decimal]:
    """The dollar amounts (unit "USD") or day counts (unit "days") a text states."""
    pattern = _DAYS if unit == "days" else _AMOUNT
    return {Decimal(m.replace(",", "")) for m in pattern.findall(text)}


def feature_contradictions(
    v: ArtifactVersion, as_of: date, parameters: ParameterTable | None
) -> dict[str, float]:
    """Dated parameters of this provision whose value at `as_of` differs from every amount (or
    period) the candidate's text states; a text stating none contradicts nothing."""
    count = 0
    for name in parameters.names() if parameters is not None else ():
        spec = parameters.series[name].spec
        if spec.provision != v.node_id:
            continue
        value = parameters.lookup(name, as_of)
        stated = stated_values(v.text, spec.unit)
        if isinstance(value, ParamValue) and stated and Decimal(value.value) not in stated:
            count += 1
    return {"contradictions": float(count)}


class StructuralFeatures(Stage):
    """Writes `FEATURE_NAMES` into each candidate's features; the order is left unchanged."""

    name = "features"

    def __init__(
        self, catalog: Catalog, graph: nx.MultiDiGraph, parameters: ParameterTable | None
    ) -> None:
        self.catalog = catalog
        self.graph = graph
        self.parameters = parameters

    def transform(self, frame: QueryFrame) -> QueryFrame:
        parsed, query = frame.parsed, frame.query
        question = words(" ".join([parsed.question, *query.terms, *query.expansion]))
        cited = parsed.seeds
        top = {c.version_id for c in frame.candidates[:EXCEPTION_DEPTH]}
        neural = normalized(frame.neural_scores)
        positions = plane_positions(frame.ranked)
        family = FamilyRanks.of([
            self.catalog.versions[c.version_id].node_id for c in frame.candidates if c.plane_ranks
        ])
        higher: set[str] = set()
        out = []
        for cand in frame.candidates:
            v = self.catalog.versions[cand.version_id]
            f: dict[str, float] = {
                **feature_plane_scores(cand.version_id, positions),
                "rrf_score": sum(1.0 / (60 + r) for r in cand.plane_ranks.values()),
                "neural_score": neural.get(cand.version_id, MISSING_SCORE),
                **feature_agreement(cand.version_id, positions),
                **feature_graph_path(cand.paths),
                **feature_rule_support(cand.rule_support),
                **feature_validity(v, query.as_of, parsed.jurisdiction.value),
                **feature_authority(v),
                **feature_hierarchy(v.node_id, higher),
                **feature_family(v.node_id, family, len(self.catalog.children.get(v.node_id, ()))),
                **feature_term_overlap(self._terms(v), question),
                **feature_headings(v.heading, self._section_heading(v, query.as_of), question),
                **feature_citation(v.node_id, cited),
                "exception_link": self._exception_link(cand.version_id, top),
                **feature_query_type(query.query_type),
                **feature_location(parsed.asks_location, v),
                **feature_contradictions(v, query.as_of, self.parameters),
            }
            higher.add(v.node_id)
            out.append(replace(cand, features={n: f[n] for n in FEATURE_NAMES}))
        return replace(frame, candidates=tuple(out))

    def _section_heading(self, v: ArtifactVersion, as_of: date) -> str | None:
        """The heading of the section holding `v` (its own when it is one)."""
        section = "/".join(v.node_id.split("/")[:5])
        found = self.catalog.version_at(section, as_of)
        return found.heading if found else None

    def _terms(self, v: ArtifactVersion) -> list[str]:
        """The defined terms the candidate is, defines or uses (their headings)."""
        terms = [v.heading or ""] if v.type == "DefinedTerm" else []
        if v.version_id in self.graph:
            for _, dst, kind in self.graph.out_edges(v.version_id, keys=True):
                if kind in ("uses", "defines"):
                    term = self.catalog.versions.get(dst)
                    terms.append(term.heading or "" if term else "")
        return terms

    def _exception_link(self, vid: str, top: set[str]) -> float:
        """1.0 if a cross-reference joins `vid` and another top candidate and the referring
        clause's text is exception-worded ("except", "notwithstanding", "subject to")."""
        if vid not in self.graph:
            return 0.0
        edges = [(vid, d) for _, d, k in self.graph.out_edges(vid, keys=True) if k == "cross_refs"]
        edges += [(s, vid) for s, _, k in self.graph.in_edges(vid, keys=True) if k == "cross_refs"]
        for src, dst in edges:
            other = dst if src == vid else src
            if other != vid and other in top and self._exception_worded(src):
                return 1.0
        return 0.0

    def _exception_worded(self, vid: str) -> bool:
        v = self.catalog.versions.get(vid)
        return bool(v and EXCEPTION_WORDS.search(v.text))


def normalized(scores: Mapping[str, float]) -> dict[str, float]:
    """Min-max normalized scores (all 1.0 when they are equal)."""
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    return {k: 1.0 if high == low else (s - low) / (high - low) for k, s in scores.items()}


def feature_matrix(candidates: Sequence[FusedCandidate]) -> list[list[float]]:
    """Rows of `FEATURE_NAMES` values; a candidate without features is a ValueError."""
    rows = []
    for cand in candidates:
        if set(cand.features) != set(FEATURE_NAMES):
            raise ValueError(
                f"candidate {cand.version_id} has no structural features (the features stage "
                "must run before a learned stage)"
            )
        rows.append([cand.features[n] for n in FEATURE_NAMES])
    return rows
