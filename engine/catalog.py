"""In-memory catalog of artifact versions: the hard metadata filters every plane applies.

Loaded once from the snapshot's DuckDB `artifacts` table. `hard_filter()` gives the query's
filter as criteria (`engine.plane.HardFilter`), which every plane applies natively;
`VersionColumns` holds the interval and code columns (numpy) that the dense and ColBERT planes
and `allowed()` evaluate it on. `allowed()` enumerates the version ids a filter admits, for
checks and explicit sets; the query path never needs the list.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

import duckdb
import numpy as np
from structfirst.engine.plane import SCAFFOLDING_TYPES, HardFilter, jurisdiction_admits
from structfirst.ingest.index_builder import OPEN_END, OPEN_START, day_interval

PROVISION_TYPES = frozenset({"Section", "Clause"})  # the levels of one provision's family
SECTION_DEPTH = 4  # slashes in a section's node id: /us/usc/t11/s547


def parent_node(node_id: str) -> str:
    return node_id.rsplit("/", 1)[0]


_COLUMNS = (
    "version_id, node_id, type, citation, heading, text, hierarchy_path, jurisdiction, authority, "
    "effective_from, effective_to, source_id, span_start, span_end, "
    "json_extract_string(attrs, '$.note_kind')"
)
# Legislative history, commentary on a provision rather than law: the US Code's "Historical and
# Revision Notes" class, and notes headed as committee reports or legislative statements
# (the Code's markup files many of those under its miscellaneous class)
LEGISLATIVE_HISTORY_NOTE_KINDS = frozenset({"historicalandrevision-note"})
LEGISLATIVE_HISTORY_HEADING = re.compile(
    r"^\s*(?:(?:senate|house|conference)\s+(?:committee\s+)?report|legislative\s+statements?|"
    r"historical\s+and\s+revision\s+notes?|history\s+of\s+bankruptcy\s+acts)\b",
    re.I,
)


@dataclass(frozen=True, slots=True)
class ArtifactVersion:
    version_id: str
    node_id: str
    type: str
    citation: str | None
    heading: str | None
    text: str
    hierarchy_path: str | None
    jurisdiction: str
    authority: str
    effective_from: date | None
    effective_to: date | None
    source_id: str
    span_start: int
    span_end: int
    note_kind: str | None = None  # a note's class in its source's markup

    @property
    def is_legislative_history(self) -> bool:
        return self.type == "Note" and (
            self.note_kind in LEGISLATIVE_HISTORY_NOTE_KINDS
            or bool(LEGISLATIVE_HISTORY_HEADING.match(self.heading or ""))
        )

    def valid_at(self, day: date) -> bool:
        start_ok = self.effective_from is None or self.effective_from <= day
        return start_ok and (self.effective_to is None or day < self.effective_to)


class VersionColumns:
    """The filter's columns over a sequence of versions, one row each (an index's rows, or the
    catalog): day ordinals of [from, to), jurisdiction and authority codes, and whether the row
    is text. A row with no version (an id the catalog lacks) is never admitted."""

    def __init__(self, versions: Sequence[ArtifactVersion | None]) -> None:
        n = len(versions)
        self._from = np.full(n, OPEN_END, dtype=np.int64)
        self._to = np.full(n, OPEN_START, dtype=np.int64)
        self._text = np.zeros(n, dtype=bool)
        jurisdiction_code: dict[str, int] = {}
        authority_code: dict[str, int] = {}
        self._jurisdiction = np.zeros(n, dtype=np.int32)
        self._authority = np.zeros(n, dtype=np.int32)
        for row, v in enumerate(versions):
            if v is None:
                continue
            self._from[row], self._to[row] = day_interval(v.effective_from, v.effective_to)
            self._text[row] = v.type not in SCAFFOLDING_TYPES
            self._jurisdiction[row] = jurisdiction_code.setdefault(
                v.jurisdiction, len(jurisdiction_code)
            )
            self._authority[row] = authority_code.setdefault(v.authority, len(authority_code))
        self.jurisdictions: list[str] = list(jurisdiction_code)  # by code
        self.authorities: list[str] = list(authority_code)

    def __len__(self) -> int:
        return len(self._from)

    def mask(self, where: HardFilter) -> np.ndarray:
        """Boolean row mask of the versions `where` admits."""
        mask = self._text.copy()
        if where.as_of is not None:
            day = where.as_of.toordinal()
            mask &= (self._from <= day) & (day < self._to)
        if where.jurisdiction is not None:
            table = np.array(
                [jurisdiction_admits(where.jurisdiction, j) for j in self.jurisdictions] or [False]
            )
            mask &= table[self._jurisdiction]
        if where.authorities is not None:
            table = np.array([a in where.authorities for a in self.authorities] or [False])
            mask &= table[self._authority]
        return mask


class Catalog:
    def __init__(self, versions: Iterable[ArtifactVersion]) -> None:
        self.versions: dict[str, ArtifactVersion] = {v.version_id: v for v in versions}
        self._ids = np.array(list(self.versions), dtype=object)
        vals = list(self.versions.values())
        self.columns = VersionColumns(vals)
        self.jurisdictions: frozenset[str] = frozenset(v.jurisdiction for v in vals)
        self._text_jurisdictions = frozenset(
            v.jurisdiction for v in vals if v.type not in SCAFFOLDING_TYPES
        )
        self.by_node: dict[str, list[ArtifactVersion]] = {}
        self.terms: dict[str, list[ArtifactVersion]] = {}  # DefinedTerm versions by lower name
        self.children: dict[str, list[str]] = {}  # node id -> its direct children's, in order
        for v in vals:
            if v.node_id not in self.by_node and v.type in PROVISION_TYPES:
                self.children.setdefault(parent_node(v.node_id), []).append(v.node_id)
            self.by_node.setdefault(v.node_id, []).append(v)
            if v.type == "DefinedTerm":
                self.terms.setdefault((v.heading or v.text).strip().lower(), []).append(v)

    @classmethod
    def load(cls, con: duckdb.DuckDBPyConnection) -> Catalog:
        rows = con.execute(f"SELECT {_COLUMNS} FROM artifacts").fetchall()
        return cls(ArtifactVersion(*row) for row in rows)

    def default_jurisdiction(self, fallback: str) -> str:
        """The jurisdiction a question that names none is asked in: the corpus's own when all
        of its text shares one top-level jurisdiction (`jp`, or `us-federal` with
        `us-federal/cfpb`), else `fallback`."""
        families = {j.split("/", 1)[0] for j in self._text_jurisdictions}
        return families.pop() if len(families) == 1 else fallback

    def jurisdiction_known(self, jurisdiction: str) -> bool:
        return any(jurisdiction_admits(jurisdiction, j) for j in self.jurisdictions)

    def hard_filter(
        self,
        as_of: date | None,
        jurisdiction: str | None,
        authorities: frozenset[str] | None = None,
    ) -> HardFilter:
        """The filter of text valid at `as_of` (any date when None) within `jurisdiction`
        (prefix) and `authorities`; the graph's Date, Jurisdiction and Authority nodes never
        pass."""
        return HardFilter(as_of, jurisdiction, authorities, self)

    def allowed(
        self,
        as_of: date | None,
        jurisdiction: str | None,
        authorities: frozenset[str] | None = None,
    ) -> frozenset[str]:
        """The version ids `hard_filter(as_of, jurisdiction, authorities)` admits."""
        mask = self.columns.mask(self.hard_filter(as_of, jurisdiction, authorities))
        return frozenset(self._ids[mask].tolist())

    def any_admitted(self, where: HardFilter) -> bool:
        return bool(self.columns.mask(where).any())

    def columns_for(self, version_ids: Sequence[str]) -> VersionColumns:
        """The filter's columns for an index whose row i holds `version_ids[i]`."""
        return VersionColumns([self.versions.get(v) for v in version_ids])

    def ancestors(self, node_id: str) -> list[str]:
        """The provisions enclosing `node_id` in the index, nearest first, up to its section."""
        out, node = [], node_id
        while node.count("/") > SECTION_DEPTH:
            node = parent_node(node)
            if node in self.by_node and self.by_node[node][0].type in PROVISION_TYPES:
                out.append(node)
        return out

    def version_at(self, node_id: str, as_of: date) -> ArtifactVersion | None:
        return next((v for v in self.by_node.get(node_id, ()) if v.valid_at(as_of)), None)

    def earliest_start(self, jurisdiction: str | None) -> date | None:
        starts = [
            v.effective_from
            for v in self.versions.values()
            if v.effective_from
            and (jurisdiction is None or jurisdiction_admits(jurisdiction, v.jurisdiction))
        ]
        return min(starts, default=None)

    def record(self, version_id: str) -> dict[str, Any]:
        v = self.versions[version_id]
        return {
            "version_id": v.version_id,
            "node_id": v.node_id,
            "type": v.type,
            "citation": v.citation,
            "heading": v.heading,
            "hierarchy_path": v.hierarchy_path,
            "effective_from": v.effective_from.isoformat() if v.effective_from else None,
            "effective_to": v.effective_to.isoformat() if v.effective_to else None,
            "jurisdiction": v.jurisdiction,
            "authority": v.authority,
            "text": v.text,
            "source": {"source_id": v.source_id, "span": [v.span_start, v.span_end]},
        }
