"""The artifact model every parser yields and every store reads.

A *node* is a typed piece of a legal document (a section, a clause, a defined term, ...),
an *edge* a typed relation between two nodes, and a *fact* a typed value (an amount, a date,
a duration, a threshold) read from a node's text. Every one of them carries a `Provenance`:
the source file, the literal character span in it, the parser version, a confidence and a
deterministic provenance id, so re-ingesting the same input yields the same ids.

Node ids are canonical, USLM-style (`/us/usc/t11/s547/c/9`, `/us/cfr/t12/s1013.2/e/1`).
A parser yields one node per provision per edition; `structfirst.ingest.versioning` later
collapses editions into versions identified as `<id>@<effective_from ISO date>`.
"""

from __future__ import annotations

import uuid
from dataclasses import asdict, dataclass, field
from datetime import date
from enum import StrEnum
from typing import Any

PROV_NAMESPACE = uuid.UUID("6f1c9a3e-2b7d-5e41-9c0a-5f3e7d2a1b44")


class NodeType(StrEnum):
    DOCUMENT = "Document"
    SECTION = "Section"
    CLAUSE = "Clause"
    DEFINED_TERM = "DefinedTerm"
    CITATION = "Citation"
    THRESHOLD = "Threshold"
    DATE = "Date"
    JURISDICTION = "Jurisdiction"
    AUTHORITY = "Authority"
    NOTE = "Note"


class EdgeType(StrEnum):
    CONTAINS = "contains"
    CROSS_REFS = "cross_refs"
    DEFINES = "defines"
    USES = "uses"
    SUPERSEDES = "supersedes"
    EFFECTIVE = "effective"
    APPLIES_IN = "applies_in"
    DERIVED_FROM = "derived_from"
    ANNOTATES = "annotates"  # a note (amendment, effective date, §104 table) to its provision
    INTERPRETS = "interprets"  # an official interpretation to the paragraph it interprets


class FactKind(StrEnum):
    AMOUNT = "amount"  # a dollar amount in the text ("$7,575")
    DATE = "date"  # a calendar date in the text ("April 1, 2019")
    DURATION = "duration"  # "90 days", "one year"
    THRESHOLD = "threshold"  # a dated value of an adjusted dollar amount (§104 tables)
    EFFECTIVE_DATE = "effective_date"  # a precise effective date given by a note


class Authority(StrEnum):
    """Kinds of authority, from most to least binding."""

    STATUTE = "statute"
    REGULATION = "regulation"
    INTERPRETATION = "interpretation"  # e.g. CFPB official interpretations (Supplement I)
    NOTE = "note"  # editorial notes of the publisher
    OTHER = "other"


AUTHORITY_WEIGHT: dict[Authority, float] = {
    Authority.STATUTE: 1.0,
    Authority.REGULATION: 0.8,
    Authority.INTERPRETATION: 0.6,
    Authority.NOTE: 0.3,
    Authority.OTHER: 0.2,
}


def stable_id(*parts: object) -> str:
    """A deterministic UUID5 over `parts`, used for provenance and fact ids."""
    return str(uuid.uuid5(PROV_NAMESPACE, "\x1f".join(str(p) for p in parts)))


@dataclass(frozen=True, slots=True)
class Provenance:
    source_id: str  # path of the source file, relative to the corpus root when possible
    span: tuple[int, int]  # [start, end) character offsets into the decoded source file
    parser_version: str
    confidence: float = 1.0

    @property
    def prov_id(self) -> str:
        return stable_id(self.source_id, self.span[0], self.span[1], self.parser_version)


@dataclass(slots=True)
class Node:
    id: str  # canonical id without version suffix
    type: NodeType
    text: str  # the node's own text (for a container: its chapeau/heading text)
    provenance: Provenance
    jurisdiction: str  # e.g. "us-federal", "us-federal/cfpb", "us-ia"
    authority: Authority
    parent: str | None = None
    heading: str | None = None
    citation: str | None = None  # human-readable citation, e.g. "11 U.S.C. § 547(c)(9)"
    effective_from: date | None = None  # the edition's or version's start, inclusive
    effective_to: date | None = None  # exclusive; None is open-ended
    attrs: dict[str, Any] = field(default_factory=dict)

    @property
    def version_id(self) -> str:
        return version_id(self.id, self.effective_from)


@dataclass(slots=True)
class Edge:
    src: str
    dst: str
    type: EdgeType
    provenance: Provenance
    attrs: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class Fact:
    node_id: str  # the node the fact was read from, or the provision a threshold applies to
    kind: FactKind
    value: float | str  # numbers for amounts/durations(days)/thresholds; ISO text for dates
    text: str  # the literal text the value was read from
    provenance: Provenance
    unit: str | None = None  # "USD", "days"
    effective_from: date | None = None
    effective_to: date | None = None
    attrs: dict[str, Any] = field(default_factory=dict)

    @property
    def fact_id(self) -> str:
        return stable_id(self.node_id, self.kind, self.value, self.provenance.prov_id)


@dataclass(slots=True)
class UnresolvedRef:
    """A textual cross-reference that names no node of the parsed document."""

    src: str  # the citing node
    text: str  # the reference as written, e.g. "section 1129(a)(9)"
    provenance: Provenance
    reason: str  # e.g. "target not in this title", "no such subsection"


@dataclass(slots=True)
class Edition:
    """One published edition (or version) of a source document."""

    source_id: str
    name: str  # e.g. "2018 Main Edition", "2016-28710"
    effective_from: date  # date the edition's text is taken to be in force from
    laws_enacted_through: date | None = None
    document_number: str | None = None


@dataclass(slots=True)
class ParsedDocument:
    edition: Edition
    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    unresolved: list[UnresolvedRef] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # e.g. scanned PDF pages with no text layer


def version_id(node_id: str, effective_from: date | None) -> str:
    return f"{node_id}@{effective_from.isoformat()}" if effective_from else node_id


def to_record(obj: Node | Edge | Fact) -> dict[str, Any]:
    """A JSON-ready dict of a node, edge or fact (dates as ISO strings)."""
    rec = asdict(obj)
    for key, value in list(rec.items()):
        if isinstance(value, date):
            rec[key] = value.isoformat()
    rec["prov_id"] = obj.provenance.prov_id
    return rec


class IngestError(ValueError):
    """Bad input: the message names the file and the line, field or offset at fault."""

    def __init__(self, source: str, where: str, problem: str) -> None:
        super().__init__(f"{source}: {where}: {problem}")
        self.source, self.where, self.problem = source, where, problem

    def __reduce__(self) -> tuple[type[IngestError], tuple[str, str, str]]:
        """Pickled with its three parts (it crosses from a Ray task or worker process)."""
        return (type(self), (self.source, self.where, self.problem))
