"""Verdicts and their traces: plain data, JSON-serializable, ready for the evidence bundle."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from enum import StrEnum
from typing import Any


class Tri(StrEnum):
    TRUE = "true"
    FALSE = "false"
    UNDETERMINED = "undetermined"

    def __invert__(self) -> Tri:
        return {Tri.TRUE: Tri.FALSE, Tri.FALSE: Tri.TRUE}.get(self, Tri.UNDETERMINED)


def conj(values: list[Tri]) -> Tri:
    if Tri.FALSE in values:
        return Tri.FALSE
    return Tri.UNDETERMINED if Tri.UNDETERMINED in values else Tri.TRUE


def disj(values: list[Tri]) -> Tri:
    if Tri.TRUE in values:
        return Tri.TRUE
    return Tri.UNDETERMINED if Tri.UNDETERMINED in values else Tri.FALSE


def jsonable(value: Any) -> Any:
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, StrEnum):
        return str(value)
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value


@dataclass
class PremiseTrace:
    """One premise of one clause: its value, what grounded it, and where it comes from."""

    clause: int  # 1-based clause number within the rule
    index: int  # 1-based premise number within the clause
    text: str  # as written in the rule file
    value: Tri
    kind: str  # "fact" | "rule" | "comparison" | "parameter" | "binding" | "constant"
    citation: str
    line: int
    facts: dict[str, Any] = field(default_factory=dict)  # fact name -> value (None = unknown)
    parameters: dict[str, Any] = field(default_factory=dict)  # name -> value record / no value
    rule: dict[str, Any] | None = None  # the rule that decided a predicate premise
    detail: str = ""  # e.g. "6000 < 8575"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "clause": self.clause, "premise": self.index, "text": self.text,
            "value": str(self.value), "kind": self.kind, "citation": self.citation,
            "line": self.line,
        }
        if self.facts:
            out["facts"] = jsonable(self.facts)
        if self.parameters:
            out["parameters"] = jsonable(self.parameters)
        if self.rule is not None:
            out["rule"] = jsonable(self.rule)
        if self.detail:
            out["detail"] = self.detail
        return out


@dataclass
class Verdict:
    """The result of evaluating one rule for one query's facts at one as-of date."""

    rule_id: str
    version: int | None
    head: str
    title: str
    verdict: Tri
    as_of: date
    as_of_source: str  # "filing_date" | "as_of"
    citations: list[str]
    file: str
    line: int
    in_force: bool = True
    effective_from: date | None = None
    effective_to: date | None = None
    clauses: list[dict[str, Any]] = field(default_factory=list)  # {clause, value, line}
    premises: list[PremiseTrace] = field(default_factory=list)
    grounds: list[str] = field(default_factory=list)  # "c.p" ids of the premises that decide
    blocked_by: list[str] = field(default_factory=list)  # "c.p" ids of undetermined premises
    missing_facts: list[str] = field(default_factory=list)
    missing_parameters: list[str] = field(default_factory=list)
    exact: bool = True  # False: undetermined may hide a determined answer (see notes)
    notes: list[str] = field(default_factory=list)
    supporting: dict[str, Verdict] = field(default_factory=dict)  # rule id -> verdict used
    value: Any = None  # what a value rule returns (an amount, a count, a date), when known

    def premise(self, ref: str) -> PremiseTrace:
        c, p = (int(x) for x in ref.split("."))
        return next(t for t in self.premises if t.clause == c and t.index == p)

    def to_dict(self, supporting: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rule": self.rule_id, "version": self.version, "head": self.head,
            "title": self.title, "verdict": str(self.verdict),
            "as_of": self.as_of.isoformat(), "as_of_source": self.as_of_source,
            "in_force": self.in_force,
            "effective": [self.effective_from.isoformat() if self.effective_from else None,
                          self.effective_to.isoformat() if self.effective_to else None],
            "citations": list(self.citations), "file": self.file, "line": self.line,
            "clauses": jsonable(self.clauses),
            "premises": [p.to_dict() for p in self.premises],
            "grounds": list(self.grounds), "blocked_by": list(self.blocked_by),
            "missing_facts": list(self.missing_facts),
            "missing_parameters": list(self.missing_parameters),
            "exact": self.exact, "notes": list(self.notes),
        }
        if self.value is not None:
            out["value"] = jsonable(self.value)
        if supporting:
            out["supporting"] = {k: v.to_dict(supporting=False)
                                 for k, v in sorted(self.supporting.items())}
        return out
