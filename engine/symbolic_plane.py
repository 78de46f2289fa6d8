"""Plane 4: the rule library evaluated against the facts the question carries.

Rules are selected by the query's seed citations and predicate words. With facts, each selected
rule yields a three-valued verdict with its trace; the clauses it formalizes and the clauses its
premises cite become candidates, marked with the verdict they support. Without facts, the plane
answers the dated parameters (thresholds) of the cited provisions at the as-of date.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from structfirst.engine.catalog import Catalog
from structfirst.engine.plane import PlaneHit, PlaneQuery
from structfirst.rules.evaluator import evaluate
from structfirst.rules.library_loader import Library, default_library
from structfirst.rules.parameters import NoValue
from structfirst.rules.selection import select_rules

DATE_FACTS = frozenset({"filing_date", "transfer_date"})
PRIMARY_SCORE, PRIMARY_FALSE_SCORE, CITED_SCORE = 1.0, 0.95, 0.7
GROUND_SCORE, PREMISE_SCORE, UNDETERMINED_SCORE = 0.8, 0.5, 0.3


def _within(a: str, b: str) -> bool:
    return a == b or a.startswith(b + "/")


class SymbolicPlane:
    name = "symbolic"

    def __init__(self, catalog: Catalog, index_dir: Path, library: Library | None = None) -> None:
        self.catalog = catalog
        self.library = library or default_library(index=index_dir)

    def evaluate(self, query: PlaneQuery, k: int) -> tuple[list[PlaneHit], list[dict[str, Any]]]:
        """Candidates (best first) and the plain-data verdicts or parameter lookups behind them."""
        predicates = [query.predicate] if query.predicate else []
        rules = select_rules(self.library, query.seeds, predicates)
        if rules and set(query.facts) - DATE_FACTS:
            verdicts = [
                v.to_dict() for v in evaluate(rules, query.facts, query.as_of, library=self.library)
            ]
        else:
            verdicts = self._parameter_lookups(query)
        hits: dict[str, PlaneHit] = {}
        for order, verdict in enumerate(verdicts):
            for node_id, base, support in self._supported(verdict):
                score = base - 0.001 * order  # earlier (more central) rules first on ties
                version = self.catalog.version_at(node_id, query.as_of)
                if version is None or version.version_id not in query.allowed:
                    continue
                hit = hits.setdefault(version.version_id, PlaneHit(version.version_id, 0.0))
                hit.score = max(hit.score, score)
                hit.rule_support.append(support)
        ranked = sorted(hits.values(), key=lambda h: (-h.score, h.version_id))
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
    def _supported(verdict: dict[str, Any]) -> Iterable[tuple[str, float, dict[str, Any]]]:
        """(clause id, score, support) for the clauses a verdict rests on.

        A decided rule's primary citation scores highest (a satisfied rule above a failed one),
        then its other citations and the premises that grounded it; an undetermined rule's
        clauses score lowest.
        """
        label = {"rule": verdict["rule"], "verdict": verdict["verdict"]}
        decided = verdict["verdict"] in ("true", "false", "value")
        for i, cite in enumerate(verdict.get("citations", [])):
            if not decided:
                score = UNDETERMINED_SCORE
            elif i == 0:
                score = PRIMARY_SCORE if verdict["verdict"] != "false" else PRIMARY_FALSE_SCORE
            else:
                score = CITED_SCORE
            yield cite, score, {**label, "role": "formalized clause"}
        grounds = set(verdict.get("grounds", []))
        for premise in verdict.get("premises", []):
            ref = f"{premise['clause']}.{premise['premise']}"
            score = GROUND_SCORE if ref in grounds and decided else PREMISE_SCORE
            support = {
                **label,
                "role": "premise",
                "premise": premise["text"],
                "value": premise["value"],
            }
            yield premise["citation"], score, support


def rule_seeds(verdicts: list[dict[str, Any]]) -> tuple[str, ...]:
    """The primary clauses of the decided rules: seeds for the graph plane's walk."""
    return tuple(
        v["citations"][0]
        for v in verdicts
        if v.get("citations") and v["verdict"] in ("true", "false", "value")
    )
