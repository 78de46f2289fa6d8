"""Plane 4: the rule library evaluated against the facts the question carries.

Rules are selected by the query's seed citations and predicate words. With facts, each selected
rule yields a three-valued verdict with its trace; the clauses it formalizes and the clauses its
premises cite become candidates, marked with the verdict they support. Without facts, the plane
answers the dated parameters (thresholds) of the cited provisions at the as-of date.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from pathlib import Path
from typing import Any

from structfirst.engine.catalog import Catalog
from structfirst.engine.plane import PlaneHit, PlaneQuery
from structfirst.rules.evaluator import evaluate
from structfirst.rules.library_loader import Library, default_library
from structfirst.rules.parameters import NoValue
from structfirst.rules.selection import select_rules

DATE_FACTS = frozenset({"filing_date", "transfer_date"})
DECIDED = frozenset({"true", "false", "value"})
ROLE_SCORE = {"root": 1.0, "ground": 0.95, "link": 0.9, "decided": 0.75, "undetermined": 0.3}
ROLE_ORDER = {"root": 0, "ground": 1, "link": 2, "decided": 3, "undetermined": 4}
CITED_SCORE, GROUND_SCORE, PREMISE_SCORE = 0.6, 0.5, 0.4


def _within(a: str, b: str) -> bool:
    return a == b or a.startswith(b + "/")


class SymbolicPlane:
    name = "symbolic"

    def __init__(self, catalog: Catalog, index_dir: Path, library: Library | None = None) -> None:
        self.catalog = catalog
        self.library = library or default_library(index=index_dir)

    def evaluate(self, query: PlaneQuery, k: int) -> tuple[list[PlaneHit], list[dict[str, Any]]]:
        """Candidates (best first) and the plain-data verdicts or parameter lookups behind them."""
        verdicts = rule_verdicts(self.library, query.seeds, query.predicate, query.facts,
                                 query.as_of, query.rule_words)
        if not verdicts:
            verdicts = self._parameter_lookups(query)
        hits: dict[str, PlaneHit] = {}
        roles = answer_roles(verdicts)
        for order, verdict in enumerate(verdicts):
            for node_id, base, support in self._supported(verdict, roles[verdict["rule"]]):
                score = base - 0.001 * order  # earlier (more central) rules first on ties
                version = self.catalog.version_at(node_id, query.as_of)
                if version is None or version.version_id not in query.allowed:
                    continue
                hit = hits.setdefault(version.version_id, PlaneHit(version.version_id, 0.0))
                hit.score = max(hit.score, score)
                hit.rule_support.append(support)
        ranked = sorted(hits.values(), key=lambda h: (-h.score, h.version_id))
        # the verdicts in answer order, so the bundle reads root first
        verdicts.sort(key=lambda v: ROLE_ORDER[roles[v["rule"]]])
        return ranked[:k], verdicts

    def _parameter_lookups(self, query: PlaneQuery) -> list[dict[str, Any]]:
        table = self.library.parameters
        out = []
        for name in table.names():
            spec = table.series[name].spec
            if not any(
                _within(spec.provision, s) or _within(s, spec.provision) for s in query.seeds
            ):
                continue
            value = table.lookup(name, query.as_of)
            out.append(
                {
                    "rule": f"parameter {name}",
                    "kind": "parameter",
                    "verdict": "no value" if isinstance(value, NoValue) else "value",
                    "title": spec.title,
                    "citations": [spec.provision],
                    "value": value.to_dict(),
                }
            )
        return out

    @staticmethod
    def _supported(
        verdict: dict[str, Any], role: str
    ) -> Iterable[tuple[str, float, dict[str, Any]]]:
        """(clause id, score, support) for the clauses a verdict rests on.

        `role` places the rule in the answer (see `answer_roles`). The primary citation of a
        root scores highest, then those of the grounds, of the links between them and of other
        decided rules; other citations and the premises' clauses come after every one of them.
        """
        label = {"rule": verdict["rule"], "verdict": verdict["verdict"]}
        primary = ROLE_SCORE[role]
        for i, cite in enumerate(verdict.get("citations", [])):
            score = primary if i == 0 else min(primary, CITED_SCORE)
            yield cite, score, {**label, "role": "formalized clause"}
        grounds = set(verdict.get("grounds", []))
        for premise in verdict.get("premises", []):
            ref = f"{premise['clause']}.{premise['premise']}"
            score = GROUND_SCORE if ref in grounds and role != "undetermined" else PREMISE_SCORE
            support = {
                **label,
                "role": "premise",
                "premise": premise["text"],
                "value": premise["value"],
            }
            yield premise["citation"], score, support


def rule_verdicts(library: Library, seeds: Iterable[str], predicate: str | None,
                  facts: dict[str, Any], as_of: date, question: str = "") -> list[dict[str, Any]]:
    """The plain-data verdicts of the rules the question implicates (`select_rules` on its
    citations, predicate, facts and `question`, its words besides the facts), evaluated on its
    facts; none when it states no fact besides dates."""
    if not set(facts) - DATE_FACTS:
        return []
    rules = select_rules(library, seeds, [predicate] if predicate else [], facts, question)
    return [v.to_dict() for v in evaluate(rules, facts, as_of, library=library)]


def answer_roles(verdicts: list[dict[str, Any]]) -> dict[str, str]:
    """Each verdict's place in the answer: "root" (no other selected rule uses it), "ground"
    (a rule with no rule premises on the path of grounds that decided a root), "link" (a rule
    on that path between them), "decided" (any other decided rule) or "undetermined"."""
    used = {p["rule"]["id"] for v in verdicts for p in v.get("premises", []) if p.get("rule")}
    by_id = {v["rule"]: v for v in verdicts}
    roles = {
        v["rule"]: "undetermined" if v["verdict"] not in DECIDED else "decided" for v in verdicts
    }
    frontier = [v for v in verdicts if v["rule"] not in used]
    for v in frontier:
        roles[v["rule"]] = "root" if v["verdict"] in DECIDED else "undetermined"
    while frontier:
        v = frontier.pop()
        grounds = set(v.get("grounds", []))
        for p in v.get("premises", []):
            sub = by_id.get((p.get("rule") or {}).get("id", ""))
            if (
                sub
                and f"{p['clause']}.{p['premise']}" in grounds
                and roles[sub["rule"]] == "decided"
            ):
                has_rule_premise = any(q.get("rule") for q in sub.get("premises", []))
                roles[sub["rule"]] = "link" if has_rule_premise else "ground"
                frontier.append(sub)
    return roles


def rule_seeds(verdicts: list[dict[str, Any]]) -> tuple[str, ...]:
    """The primary clauses of the roots, grounds and links, in that order: graph-walk seeds."""
    roles = answer_roles(verdicts)
    ordered = sorted(verdicts, key=lambda v: ROLE_ORDER[roles[v["rule"]]])
    return tuple(
        v["citations"][0]
        for v in ordered
        if v.get("citations") and roles[v["rule"]] in ("root", "ground", "link")
    )
