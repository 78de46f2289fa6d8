"""What every retrieval plane takes and returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class PlaneQuery:
    """A query as the planes see it: text, parsed structure and the hard metadata filter."""

    text: str  # the text sent to the lexical and dense planes
    as_of: date
    allowed: frozenset[str]  # version ids that pass jurisdiction, as-of and authority filters
    query_type: str
    seeds: tuple[str, ...] = ()  # canonical ids of the cited provisions
    terms: tuple[str, ...] = ()  # defined terms the question asks about
    facts: dict[str, Any] = field(default_factory=dict)  # rule-vocabulary facts from the question
    predicate: str | None = None


@dataclass(slots=True)
class PlaneHit:
    version_id: str
    score: float
    path: str | None = None  # graph plane: e.g. "s547/b -cross_refs-> s547/c/9"
    rule_support: list[dict[str, Any]] = field(default_factory=list)  # symbolic plane


class Plane(Protocol):
    name: str

    def retrieve(self, query: PlaneQuery, k: int) -> list[PlaneHit]:
        """At most k hits, best first, every one of them in `query.allowed`."""
        ...
