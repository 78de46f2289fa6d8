"""In-memory catalog of artifact versions: the hard metadata filters every plane applies.

Loaded once from the snapshot's DuckDB `artifacts` table. `allowed()` returns the version ids
whose jurisdiction, authority and `[effective_from, effective_to)` interval admit a query;
every plane receives that set and must not return anything outside it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any

import duckdb
import numpy as np

_OPEN_END = date.max.toordinal()
# graph scaffolding, not text: never a candidate, so never in an allowed set
SCAFFOLDING_TYPES = frozenset({"Date", "Jurisdiction", "Authority"})
_COLUMNS = (
    "version_id, node_id, type, citation, heading, text, hierarchy_path, jurisdiction, authority, "
    "effective_from, effective_to, source_id, span_start, span_end"
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

    def valid_at(self, day: date) -> bool:
        start_ok = self.effective_from is None or self.effective_from <= day
        return start_ok and (self.effective_to is None or day < self.effective_to)


def jurisdiction_admits(query_jurisdiction: str, artifact_jurisdiction: str) -> bool:
    """Path-prefix match: "us-federal" admits "us-federal/cfpb", not the other way round."""
    return artifact_jurisdiction == query_jurisdiction or artifact_jurisdiction.startswith(
        query_jurisdiction + "/"
    )


class Catalog:
    def __init__(self, versions: Iterable[ArtifactVersion]) -> None:
        self.versions: dict[str, ArtifactVersion] = {v.version_id: v for v in versions}
        self._ids = np.array(list(self.versions), dtype=object)
        vals = list(self.versions.values())
        self._from = np.array(
            [v.effective_from.toordinal() if v.effective_from else 0 for v in vals], dtype=np.int64
        )
        self._to = np.array(
            [v.effective_to.toordinal() if v.effective_to else _OPEN_END for v in vals],
            dtype=np.int64,
        )
        self._jurisdiction = np.array([v.jurisdiction for v in vals], dtype=object)
        self._authority = np.array([v.authority for v in vals], dtype=object)
        self._text = np.array([v.type not in SCAFFOLDING_TYPES for v in vals], dtype=bool)
        self.jurisdictions: frozenset[str] = frozenset(self._jurisdiction.tolist())
        self.by_node: dict[str, list[ArtifactVersion]] = {}
        for v in vals:
            self.by_node.setdefault(v.node_id, []).append(v)

    @classmethod
    def load(cls, con: duckdb.DuckDBPyConnection) -> Catalog:
        rows = con.execute(f"SELECT {_COLUMNS} FROM artifacts").fetchall()
        return cls(ArtifactVersion(*row) for row in rows)

    def default_jurisdiction(self, fallback: str) -> str:
        """The jurisdiction a question that names none is asked in: the corpus's own when all
        of its text shares one top-level jurisdiction (`jp`, or `us-federal` with
        `us-federal/cfpb`), else `fallback`."""
        families = {j.split("/", 1)[0] for j in self._jurisdiction[self._text].tolist()}
        return families.pop() if len(families) == 1 else fallback

    def jurisdiction_known(self, jurisdiction: str) -> bool:
        return any(jurisdiction_admits(jurisdiction, j) for j in self.jurisdictions)

    def allowed(
        self,
        as_of: date | None,
        jurisdiction: str | None,
        authorities: frozenset[str] | None = None,
    ) -> frozenset[str]:
        """Version ids of text valid at `as_of` (every version when None) within `jurisdiction`
        (prefix) and `authorities`; the graph's Date, Jurisdiction and Authority nodes are never
        allowed."""
        mask = self._text.copy()
        if as_of is not None:
            day = as_of.toordinal()
            mask &= (self._from <= day) & (day < self._to)
        if jurisdiction is not None:
            admitted = [j for j in self.jurisdictions if jurisdiction_admits(jurisdiction, j)]
            mask &= np.isin(self._jurisdiction, admitted)
        if authorities is not None:
            mask &= np.isin(self._authority, list(authorities))
        return frozenset(self._ids[mask].tolist())

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
