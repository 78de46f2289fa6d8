"""What every retrieval plane takes and returns."""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any, Protocol

from structfirst.engine.relevance_feedback import RM3

if TYPE_CHECKING:
    from structfirst.engine.catalog import ArtifactVersion, Catalog

# graph scaffolding, not text: never a candidate, so never allowed
SCAFFOLDING_TYPES = frozenset({"Date", "Jurisdiction", "Authority"})


def jurisdiction_admits(query_jurisdiction: str, artifact_jurisdiction: str) -> bool:
    """Path-prefix match: "us-federal" admits "us-federal/cfpb", not the other way round."""
    return artifact_jurisdiction == query_jurisdiction or artifact_jurisdiction.startswith(
        query_jurisdiction + "/"
    )


@dataclass(frozen=True, slots=True)
class HardFilter:
    """The hard metadata filter as criteria over indexed fields, not as a list of version ids.

    A version passes when it is text (not graph scaffolding), its jurisdiction is
    `jurisdiction` or below it (path prefix), its authority is one of `authorities` (any when
    None) and effective_from <= as_of < effective_to (an open end admits). Each plane applies it
    natively: Lucene term and numeric range clauses, a FAISS selector and ColBERT's candidate
    filter from numpy masks over interval and code columns, and `version_id in filter` in the
    graph and symbolic planes. Its cost does not grow with the number of versions it admits.
    `bool(filter)` says whether any version of the catalog passes.
    """

    as_of: date | None  # None: every version, whatever its interval (a no-filter baseline)
    jurisdiction: str | None
    authorities: frozenset[str] | None
    catalog: Catalog = field(compare=False, repr=False)

    def admits(self, version: ArtifactVersion) -> bool:
        return (
            version.type not in SCAFFOLDING_TYPES
            and (self.as_of is None or version.valid_at(self.as_of))
            and (self.jurisdiction is None
                 or jurisdiction_admits(self.jurisdiction, version.jurisdiction))
            and (self.authorities is None or version.authority in self.authorities)
        )

    def __contains__(self, version_id: object) -> bool:
        version = self.catalog.versions.get(version_id)  # type: ignore[arg-type]
        return version is not None and self.admits(version)

    def __bool__(self) -> bool:
        return self.catalog.any_admitted(self)


# what a plane must stay inside: the hard filter, or an explicit set of version ids
Allowed = HardFilter | AbstractSet[str]


@dataclass(frozen=True, slots=True)
class PlaneQuery:
    """A query as the planes see it: text, parsed structure and the hard metadata filter."""

    text: str  # the text sent to the lexical and dense planes
    as_of: date
    allowed: Allowed  # the versions that pass jurisdiction, as-of and authority filters
    query_type: str
    seeds: tuple[str, ...] = ()  # canonical ids of the cited provisions
    terms: tuple[str, ...] = ()  # defined terms the question asks about
    facts: dict[str, Any] = field(default_factory=dict)  # rule-vocabulary facts from the question
    predicate: str | None = None
    rule_words: str = ""  # the question's words besides its facts (they name rules)
    expansion: tuple[str, ...] = ()  # statutory terms for the question's paraphrases
    expansion_weight: float = 0.0  # their BM25 weight (the question's own words weigh 1)
    feedback: RM3 | None = None  # pseudo-relevance feedback for the lexical plane


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
