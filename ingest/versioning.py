"""Collapse the successive editions of each source family into versions.

A *family* is every edition of one source document: all annual editions of Title 11, all
versions of Regulation M, ... (the id of the parsed `Document` node, e.g. `/us/usc/t11`).
Parsers yield one node per provision per edition; this module turns them into *versions*, each
valid over a half-open interval `[effective_from, effective_to)` and identified as
`<node id>@<effective_from>` (`structfirst.ingest.model.version_id`).

The rule
--------
1. Editions of a family are ordered by `Edition.effective_from` (d_0 < d_1 < ...). Two editions
   of a family with the same date are one edition: the first one ingested is kept and the other
   is reported in `VersionedCorpus.warnings`.
2. A provision's *content key* is its type, heading and text after `normalize_text` (Unicode
   NFKC, typographic quotes and dashes folded, whitespace collapsed). A run of consecutive
   editions with the same key is ONE version, not one per edition.
3. A version whose text first appears in edition k starts at d_k (d_0 for the first edition of
   the family), except where a note gives a precise date: the EFFECTIVE_DATE facts on the
   provision or on any of its ancestors (the section), and the §104 THRESHOLD facts of the
   provision. If any such date d satisfies d_{k-1} < d <= d_k, the version starts at the latest
   of them instead (the `basis` attribute says which rule applied).
4. A version ends where the next version of the provision starts. A provision that disappears
   ends at the start date of the first edition lacking it (with the same precise-date rule); a
   provision present in the newest edition is open-ended (`effective_to` None).
5. Threshold adjustments: the dated dollar amounts of 11 U.S.C. §104 change a provision's
   operative text without the printed text changing (the Code keeps printing "$5,000" in
   §547(c)(9) and lists the adjustments in notes). Each adjustment date inside a version's
   interval therefore splits it, and each piece's text has the amount in force substituted for
   the printed one (printed text kept in `attrs["printed_text"]`, amounts in force in
   `attrs["amounts_in_force"]`). Threshold facts are deduplicated across editions (one per
   node, series, effective_from and value; the first source kept) and each series' effective_to
   is recomputed as the next adjustment's effective_from.
6. Edges of an edition (contains, cross_refs, defines, uses, annotates, interprets,
   derived_from) are mapped from logical ids to every pair of versions that both stem from that
   edition and whose intervals overlap; a target outside the family is mapped to its versions
   overlapping the source version. Duplicates (same source, target, type) are dropped, the first
   provenance kept. Per-edition facts and unresolved references attach to the versions of their
   node in that edition, deduplicated the same way.
7. Emitted on top: SUPERSEDES edges (newer version -> the version it replaces), EFFECTIVE edges
   (version -> `Date` node of its effective_from, with the basis of the date), a `Threshold`
   node per threshold fact (ANNOTATES the provision versions it applies to, as does the note
   that published the amount, e.g. §104's "Adjustment of Dollar Amounts"; it ends no later than
   the last version of the provision that states the amount), `Jurisdiction` and
   `Authority` nodes, APPLIES_IN edges (version -> its jurisdiction; authority -> jurisdiction).

Everything is deterministic: the same parsed input gives the same ids in the same order.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from functools import lru_cache
from typing import Any

from structfirst.ingest.model import (
    Edge,
    EdgeType,
    Edition,
    Fact,
    FactKind,
    Node,
    NodeType,
    ParsedDocument,
    Provenance,
    UnresolvedRef,
)

VERSIONING_VERSION = "versioning-1"
SYNTHETIC_SOURCE = "structfirst:versioning"

_FOLD = str.maketrans(
    {
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u2013": "-",
        "\u2014": "-",
        "\u2012": "-",
        "\u2212": "-",
        "\u00a0": " ",
    }
)
_WS = re.compile(r"\s+")
_DOLLARS = re.compile(r"\$\s?(\d{1,3}(?:,\d{3})+|\d+)(\.\d{2})?")
_OLD_VALUE_KEYS = ("old_value", "previous_value", "from_value", "old", "previous", "from")


@lru_cache(maxsize=1 << 20)
def prov_id_of(prov: Provenance) -> str:
    """`prov.prov_id`, memoized: many edges share their version's provenance."""
    return prov.prov_id


def normalize_text(text: str | None) -> str:
    """Text as compared across editions: NFKC, folded quotes/dashes, collapsed whitespace."""
    if not text:
        return ""
    return _WS.sub(" ", unicodedata.normalize("NFKC", text).translate(_FOLD)).strip()


def family_key(doc: ParsedDocument) -> str:
    """The id of the document's `Document` node, else the commonest 4-segment id prefix."""
    for node in doc.nodes:
        if node.type == NodeType.DOCUMENT:
            return node.id
    counts: dict[str, int] = defaultdict(int)
    for node in doc.nodes:
        counts["/".join(node.id.split("/")[:4])] += 1
    if counts:
        return max(sorted(counts), key=lambda k: counts[k])
    return doc.edition.source_id


def threshold_series(fact: Fact) -> str:
    """The series a threshold fact belongs to (one dollar amount of one provision)."""
    return str(fact.attrs.get("series") or fact.node_id)


def _old_value(fact: Fact) -> float | None:
    for key in _OLD_VALUE_KEYS:
        value = fact.attrs.get(key)
        if value is not None:
            try:
                return float(str(value).replace(",", "").replace("$", ""))
            except ValueError:
                return None
    return None


def _fact_date(fact: Fact) -> date | None:
    if fact.effective_from is not None:
        return fact.effective_from
    if isinstance(fact.value, str):
        try:
            return date.fromisoformat(fact.value[:10])
        except ValueError:
            return None
    return None


def format_amount(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


@dataclass(slots=True)
class VersionedCorpus:
    """Versions and everything attached to them; edge endpoints are version ids."""

    nodes: list[Node] = field(default_factory=list)  # node.version_id is the version id
    edges: list[Edge] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)  # attrs["version_id"]: version or None
    unresolved: list[UnresolvedRef] = field(default_factory=list)  # src is a version id
    parent_version: dict[str, str] = field(default_factory=dict)  # version -> parent version
    editions: dict[str, list[Edition]] = field(default_factory=dict)  # family -> editions used
    warnings: list[str] = field(default_factory=list)

    def by_version_id(self) -> dict[str, Node]:
        return {n.version_id: n for n in self.nodes}


@dataclass(slots=True)
class _Version:
    node: Node  # the version node (effective_from/to set)
    editions: list[int]  # indices of the family's editions it stems from
    family: str


@dataclass(slots=True)
class _Family:
    key: str
    docs: list[ParsedDocument]
    dates: list[date]
    # (edition index, node id) -> versions of that node stemming from that edition
    members: dict[tuple[int, str], list[_Version]] = field(default_factory=dict)


class _Builder:
    def __init__(self) -> None:
        self.out = VersionedCorpus()
        self.families: list[_Family] = []
        self.by_node: dict[str, list[_Version]] = defaultdict(list)
        self.thresholds: list[Fact] = []  # deduplicated, effective_to recomputed
        self.edge_seen: set[tuple[str, str, str]] = set()

    # -- families ---------------------------------------------------------------------------
    def add_families(self, docs: Sequence[ParsedDocument]) -> None:
        grouped: dict[str, list[ParsedDocument]] = defaultdict(list)
        for doc in docs:
            grouped[family_key(doc)].append(doc)
        for key in sorted(grouped):
            kept: dict[date, ParsedDocument] = {}
            for doc in grouped[key]:
                day = doc.edition.effective_from
                if day in kept:
                    self.out.warnings.append(
                        f"{doc.edition.source_id}: same family ({key}) and date ({day}) as "
                        f"{kept[day].edition.source_id}; edition skipped"
                    )
                    continue
                kept[day] = doc
            ordered = [kept[d] for d in sorted(kept)]
            fam = _Family(key, ordered, [d.edition.effective_from for d in ordered])
            self.families.append(fam)
            self.out.editions[key] = [d.edition for d in ordered]
            self._version_family(fam)

    def _version_family(self, fam: _Family) -> None:
        occurrences: dict[str, list[tuple[int, Node]]] = defaultdict(list)
        for idx, doc in enumerate(fam.docs):
            seen: set[str] = set()
            for node in doc.nodes:
                if node.id in seen:
                    self.out.warnings.append(
                        f"{doc.edition.source_id}: duplicate node id {node.id}; first kept"
                    )
                    continue
                seen.add(node.id)
                occurrences[node.id].append((idx, node))
        precise = self._precise_dates(fam)
        series = _SeriesIndex(self._dedupe_thresholds(fam))
        last = len(fam.docs) - 1
        for node_id in sorted(occurrences):
            relevant = series.relevant(node_id)
            runs = _runs(occurrences[node_id])
            starts = [self._start(fam, node_id, run[0][0], precise, relevant) for run in runs]
            pieces: list[_Piece] = []
            for i, run in enumerate(runs):
                end_idx = run[-1][0]
                start, basis, basis_prov = starts[i]
                if end_idx == last:
                    end = None
                elif i + 1 < len(runs) and runs[i + 1][0][0] == end_idx + 1:
                    end = starts[i + 1][0]
                else:
                    end = self._start(fam, node_id, end_idx + 1, precise, [])[0]
                pieces += _pieces(fam, run, start, end, basis, basis_prov, relevant)
            for piece in _merge(pieces):
                v = piece.version(fam)
                self.by_node[node_id].append(v)
                for idx in v.editions:
                    fam.members.setdefault((idx, node_id), []).append(v)

    def _precise_dates(self, fam: _Family) -> dict[str, list[tuple[date, Fact]]]:
        found: dict[str, dict[date, Fact]] = defaultdict(dict)
        for doc in fam.docs:
            for fact in doc.facts:
                if fact.kind == FactKind.EFFECTIVE_DATE:
                    day = _fact_date(fact)
                    if day is not None:
                        found[fact.node_id].setdefault(day, fact)
        return {k: sorted(v.items()) for k, v in found.items()}

    def _dedupe_thresholds(self, fam: _Family) -> list[Fact]:
        seen: dict[tuple[str, str, date | None], Fact] = {}
        for doc in fam.docs:
            for fact in doc.facts:
                if fact.kind != FactKind.THRESHOLD:
                    continue
                key = (fact.node_id, threshold_series(fact), fact.effective_from)
                kept = seen.setdefault(key, fact)
                if kept.value != fact.value:
                    self.out.warnings.append(
                        f"{fact.provenance.source_id}: threshold {key[1]} of {fact.node_id} on "
                        f"{fact.effective_from} is {fact.value}, {kept.provenance.source_id} says "
                        f"{kept.value}; first kept"
                    )
        by_series: dict[tuple[str, str], list[Fact]] = defaultdict(list)
        for fact in seen.values():
            by_series[(fact.node_id, threshold_series(fact))].append(fact)
        result: list[Fact] = []
        for key in sorted(by_series):
            series = sorted(by_series[key], key=lambda f: f.effective_from or date.min)
            for i, fact in enumerate(series):
                nxt = series[i + 1].effective_from if i + 1 < len(series) else None
                result.append(replace(fact, effective_to=nxt, attrs={**fact.attrs}))
        self.thresholds += result
        return result

    def _start(
        self,
        fam: _Family,
        node_id: str,
        idx: int,
        precise: dict[str, list[tuple[date, Fact]]],
        relevant: Sequence[_Series],
    ) -> tuple[date, str, Provenance | None]:
        """Start date of a version first seen in edition `idx`, its basis and provenance."""
        day = fam.dates[idx]
        if idx == 0:
            return day, "edition", None
        lo = fam.dates[idx - 1]
        best: tuple[date, str, Provenance | None] | None = None
        for probe in _self_and_ancestors(node_id):
            for d, fact in precise.get(probe, ()):
                if lo < d <= day and (best is None or d > best[0]):
                    best = (d, "effective_date_note", fact.provenance)
        for ser in relevant:
            for d, fact in zip(ser.starts, ser.facts, strict=True):
                if lo < d <= day and (best is None or d > best[0]):
                    best = (d, "threshold_adjustment", fact.provenance)
        return best if best is not None else (day, "edition", None)

    # -- edges, facts, unresolved -----------------------------------------------------------
    def _versions_in(self, fam: _Family, idx: int, node_id: str) -> list[_Version]:
        return fam.members.get((idx, node_id), [])

    def _targets(self, fam: _Family, idx: int, node_id: str, src: Node) -> list[_Version]:
        local = self._versions_in(fam, idx, node_id)
        pool = local or self.by_node.get(node_id, [])
        return [v for v in pool if _overlap(src, v.node)]

    def _add_edge(self, edge: Edge) -> None:
        key = (edge.src, edge.dst, str(edge.type))
        if key not in self.edge_seen:
            self.edge_seen.add(key)
            self.out.edges.append(edge)

    def map_edges(self) -> None:
        for fam in self.families:
            for idx, doc in enumerate(fam.docs):
                for edge in doc.edges:
                    for sv in self._versions_in(fam, idx, edge.src):
                        for dv in self._targets(fam, idx, edge.dst, sv.node):
                            self._add_edge(
                                replace(edge, src=sv.node.version_id, dst=dv.node.version_id)
                            )

    def map_facts(self) -> None:
        seen: set[tuple[Any, ...]] = set()
        for fam in self.families:
            for idx, doc in enumerate(fam.docs):
                for fact in doc.facts:
                    if fact.kind in (FactKind.THRESHOLD, FactKind.EFFECTIVE_DATE):
                        continue
                    for v in self._versions_in(fam, idx, fact.node_id) or [None]:
                        vid = v.node.version_id if v else None
                        key = (vid or fact.node_id, fact.kind, fact.value, fact.text)
                        if key not in seen:
                            seen.add(key)
                            self.out.facts.append(
                                replace(fact, attrs={**fact.attrs, "version_id": vid})
                            )
            # effective-date facts: one per node and date, attached to the first edition's version
            dated: dict[tuple[str, date | None, str], tuple[int, Fact]] = {}
            for idx, doc in enumerate(fam.docs):
                for fact in doc.facts:
                    if fact.kind == FactKind.EFFECTIVE_DATE:
                        dated.setdefault(
                            (fact.node_id, _fact_date(fact), str(fact.value)), (idx, fact)
                        )
            for (_, _, _), (idx, fact) in sorted(dated.items(), key=lambda kv: _sort_key(kv[0])):
                vs = self._versions_in(fam, idx, fact.node_id)
                vid = vs[0].node.version_id if vs else None
                self.out.facts.append(replace(fact, attrs={**fact.attrs, "version_id": vid}))

    def map_unresolved(self) -> None:
        seen: set[tuple[str, str, str]] = set()
        for fam in self.families:
            for idx, doc in enumerate(fam.docs):
                for ref in doc.unresolved:
                    for v in self._versions_in(fam, idx, ref.src):
                        key = (v.node.version_id, ref.text, ref.reason)
                        if key not in seen:
                            seen.add(key)
                            self.out.unresolved.append(replace(ref, src=v.node.version_id))

    # -- synthetic nodes --------------------------------------------------------------------
    def supersedes_and_effective(self) -> None:
        dates: dict[date, Node] = {}
        for node_id in sorted(self.by_node):
            versions = sorted(self.by_node[node_id], key=lambda v: v.node.effective_from)
            for prev, cur in zip(versions, versions[1:], strict=False):
                self._add_edge(
                    Edge(
                        cur.node.version_id,
                        prev.node.version_id,
                        EdgeType.SUPERSEDES,
                        cur.node.provenance,
                        {"effective_from": cur.node.effective_from.isoformat()},
                    )
                )
            for v in versions:
                day = v.node.effective_from
                if day not in dates:
                    dates[day] = _synthetic(
                        f"/date/{day.isoformat()}", NodeType.DATE, day.isoformat(), "", ""
                    )
                self._add_edge(
                    Edge(
                        v.node.version_id,
                        dates[day].id,
                        EdgeType.EFFECTIVE,
                        v.node.provenance,
                        {"basis": v.node.attrs.get("basis", "edition")},
                    )
                )
        self.out.nodes.extend(dates[d] for d in sorted(dates))

    def threshold_nodes(self) -> None:
        per_node_series: dict[str, set[str]] = defaultdict(set)
        for fact in self.thresholds:
            per_node_series[fact.node_id].add(threshold_series(fact))
        notes = self._source_notes()
        for fact in self.thresholds:
            owner_id = next(
                (p for p in _self_and_ancestors(fact.node_id) if p in self.by_node), None
            )
            owners = self.by_node.get(owner_id, []) if owner_id else []
            start = fact.effective_from
            at_start = next((v for v in owners if _valid_at(v.node, start)), None)
            series = threshold_series(fact)
            suffix = "" if len(per_node_series[fact.node_id]) == 1 else "-" + _slug(series)
            ref = at_start or (owners[-1] if owners else None)
            # an amount is in force no longer than the provision that states it
            ends = [v.node.effective_to for v in owners]
            if owners and None not in ends and (fact.effective_to or date.max) > max(ends):
                fact = replace(fact, effective_to=max(ends))
            tnode = Node(
                id=f"{fact.node_id}#threshold{suffix}",
                type=NodeType.THRESHOLD,
                text=fact.text,
                provenance=fact.provenance,
                jurisdiction=ref.node.jurisdiction if ref else "",
                authority=ref.node.authority if ref else fact.attrs.get("authority", "note"),
                parent=fact.node_id,
                heading=f"${format_amount(float(fact.value))}" if _is_number(fact.value) else None,
                citation=ref.node.citation if ref else None,
                effective_from=fact.effective_from,
                effective_to=fact.effective_to,
                attrs={
                    "value": fact.value,
                    "unit": fact.unit,
                    "series": series,
                    "fact_id": fact.fact_id,
                    "previous_value": _old_value(fact),
                },
            )
            self.out.nodes.append(tnode)
            fact_vid = at_start.node.version_id if at_start else None
            if ref is not None:
                self.out.parent_version[tnode.version_id] = ref.node.version_id
                path = ref.node.attrs.get("hierarchy_path")
                tnode.attrs["hierarchy_path"] = f"{path} > threshold" if path else None
            self.out.facts.append(
                replace(fact, attrs={**fact.attrs, "version_id": fact_vid, "series": series})
            )
            publishing = self._notes_containing(notes, fact.provenance)
            for v in owners:
                if _overlap(tnode, v.node):
                    for src in (tnode.version_id, *publishing):
                        self._add_edge(
                            Edge(
                                src,
                                v.node.version_id,
                                EdgeType.ANNOTATES,
                                fact.provenance,
                                {"series": series},
                            )
                        )

    def _source_notes(self) -> dict[str, list[tuple[int, int, list[str]]]]:
        """Per source file, each note read from it: its span and the versions it stems into."""
        out: dict[str, list[tuple[int, int, list[str]]]] = defaultdict(list)
        for fam in self.families:
            for idx, doc in enumerate(fam.docs):
                for node in doc.nodes:
                    if node.type == NodeType.NOTE:
                        vids = [v.node.version_id for v in self._versions_in(fam, idx, node.id)]
                        out[node.provenance.source_id].append((*node.provenance.span, vids))
        return out

    @staticmethod
    def _notes_containing(
        notes: dict[str, list[tuple[int, int, list[str]]]], prov: Provenance
    ) -> list[str]:
        """The versions of the innermost note whose text holds `prov` (the §104 table that
        published an adjusted amount), none when it was read from no note."""
        a, b = prov.span
        around = [n for n in notes.get(prov.source_id, ()) if n[0] <= a and b <= n[1]]
        return min(around, key=lambda n: n[1] - n[0])[2] if around else []

    def jurisdictions(self) -> None:
        pairs: set[tuple[str, str]] = set()
        versions = [v.node for vs in self.by_node.values() for v in vs]
        for node in sorted(versions, key=lambda n: n.version_id):
            if not node.jurisdiction:
                continue
            pairs.add((str(node.authority), node.jurisdiction))
            self._add_edge(
                Edge(
                    node.version_id,
                    f"/jurisdiction/{node.jurisdiction}",
                    EdgeType.APPLIES_IN,
                    node.provenance,
                )
            )
        for j in sorted({j for _, j in pairs}):
            self.out.nodes.append(_synthetic(f"/jurisdiction/{j}", NodeType.JURISDICTION, j, j, ""))
        for a in sorted({a for a, _ in pairs}):
            self.out.nodes.append(_synthetic(f"/authority/{a}", NodeType.AUTHORITY, a, "", a))
        for a, j in sorted(pairs):
            self._add_edge(
                Edge(f"/authority/{a}", f"/jurisdiction/{j}", EdgeType.APPLIES_IN, _SYNTH_PROV)
            )

    def hierarchy(self) -> None:
        """Parent versions and `attrs["hierarchy_path"]` ("Title 11 > Chapter 5 > § 547 > (c)")."""
        for node_id in sorted(self.by_node):
            for v in self.by_node[node_id]:
                parent = self._parent_version(v)
                if parent is not None:
                    self.out.parent_version[v.node.version_id] = parent.node.version_id
        labels: dict[str, str] = {}
        for node_id in sorted(self.by_node):
            for v in self.by_node[node_id]:
                if v.node.attrs.get("hierarchy_path"):
                    continue  # the parser's own path wins
                chain: list[str] = []
                cur: str | None = v.node.version_id
                hops = 0
                while cur is not None and hops < 64:
                    if cur not in labels:
                        labels[cur] = _label(self._by_vid[cur])
                    chain.append(labels[cur])
                    cur = self.out.parent_version.get(cur)
                    hops += 1
                v.node.attrs["hierarchy_path"] = " > ".join(reversed(chain))

    def _parent_version(self, v: _Version) -> _Version | None:
        parent_id = v.node.parent
        if not parent_id:
            return None
        candidates = self.by_node.get(parent_id, [])
        day = v.node.effective_from
        at = next((p for p in candidates if _valid_at(p.node, day)), None)
        if at is None:
            shared = [
                p for p in candidates if set(p.editions) & set(v.editions) and p.family == v.family
            ]
            at = shared[0] if shared else None
        return at

    def finish(self) -> VersionedCorpus:
        self.out.nodes[:0] = [
            v.node for node_id in sorted(self.by_node) for v in self.by_node[node_id]
        ]
        self._by_vid: dict[str, Node] = {}
        unique: list[Node] = []
        for node in self.out.nodes:
            if node.version_id in self._by_vid:
                self.out.warnings.append(f"duplicate version {node.version_id}; first kept")
                continue
            self._by_vid[node.version_id] = node
            unique.append(node)
        self.out.nodes = unique
        self.hierarchy()
        self.out.edges.sort(key=lambda e: (str(e.type), e.src, e.dst))
        return self.out


_SYNTH_PROV = Provenance(SYNTHETIC_SOURCE, (0, 0), VERSIONING_VERSION)


def _synthetic(node_id: str, type_: NodeType, text: str, jurisdiction: str, authority: str) -> Node:
    return Node(
        id=node_id,
        type=type_,
        text=text,
        provenance=_SYNTH_PROV,
        jurisdiction=jurisdiction,
        authority=authority,  # type: ignore[arg-type]
        heading=text,
    )


def _runs(occ: list[tuple[int, Node]]) -> list[list[tuple[int, Node]]]:
    runs: list[list[tuple[int, Node]]] = []
    prev_key: tuple[str, str, str] | None = None
    prev_idx = -2
    for idx, node in occ:
        key = (str(node.type), normalize_text(node.heading), normalize_text(node.text))
        if runs and idx == prev_idx + 1 and key == prev_key:
            runs[-1].append((idx, node))
        else:
            runs.append([(idx, node)])
        prev_key, prev_idx = key, idx
    return runs


def _members(
    run: list[tuple[int, Node]], dates: list[date], start: date, p_start: date, p_end: date | None
) -> list[int]:
    """Editions of `run` whose slot of time overlaps the piece [p_start, p_end)."""
    idxs = [i for i, _ in run]
    found = []
    for j, idx in enumerate(idxs):
        slot_from = start if j == 0 else dates[idx]
        slot_to = dates[idxs[j + 1]] if j + 1 < len(idxs) else None
        if (p_end is None or slot_from < p_end) and (slot_to is None or p_start < slot_to):
            found.append(idx)
    return found or [idxs[-1]]


@dataclass(slots=True)
class _Series:
    """One dollar amount's dated values (all its threshold facts, whatever node they name)."""

    key: str
    starts: list[date] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    chain: set[float] = field(default_factory=set)  # every value it ever had, old ones too

    def value_at(self, day: date) -> float | None:
        i = bisect_right(self.starts, day) - 1
        return self.values[i] if i >= 0 else None


class _SeriesIndex:
    """The threshold series of a family and which of them may be printed in which node."""

    def __init__(self, thresholds: Sequence[Fact]) -> None:
        by_key: dict[str, dict[date, Fact]] = defaultdict(dict)
        self.near: dict[str, set[str]] = defaultdict(set)  # node id -> series on it
        self.below: dict[str, set[str]] = defaultdict(set)  # node id -> series under it
        for fact in thresholds:
            if fact.effective_from is None or not _is_number(fact.value):
                continue
            key = threshold_series(fact)
            by_key[key].setdefault(fact.effective_from, fact)
            self.near[fact.node_id].add(key)
            for anc in list(_self_and_ancestors(fact.node_id))[1:]:
                self.below[anc].add(key)
        self.series: dict[str, _Series] = {}
        for key, dated in by_key.items():
            ser = _Series(key)
            for day in sorted(dated):
                fact = dated[day]
                ser.starts.append(day)
                ser.values.append(float(fact.value))
                ser.facts.append(fact)
                ser.chain.add(float(fact.value))
                if (old := _old_value(fact)) is not None:
                    ser.chain.add(old)
            self.series[key] = ser

    def relevant(self, node_id: str) -> list[_Series]:
        """Series of facts on the node, on an ancestor or on a descendant of it."""
        keys = set(self.below.get(node_id, ()))
        for probe in _self_and_ancestors(node_id):
            keys |= self.near.get(probe, set())
        return [self.series[k] for k in sorted(keys)]


@dataclass(slots=True)
class _Piece:
    start: date
    end: date | None
    members: list[int]
    src: Node
    text: str
    amounts: dict[str, float]
    basis: str
    basis_source: str

    def key(self) -> tuple[str, str, str]:
        return str(self.src.type), normalize_text(self.src.heading), normalize_text(self.text)

    def version(self, fam: _Family) -> _Version:
        attrs: dict[str, Any] = {
            **self.src.attrs,
            "family": fam.key,
            "editions": [fam.docs[m].edition.name for m in self.members],
            "basis": self.basis,
            "basis_source": self.basis_source,
        }
        if self.amounts:
            attrs["amounts_in_force"] = dict(sorted(self.amounts.items()))
        if self.text != self.src.text:
            attrs["printed_text"] = self.src.text
        node = replace(
            self.src,
            text=self.text,
            effective_from=self.start,
            effective_to=self.end,
            attrs=attrs,
        )
        return _Version(node, self.members, fam.key)


def _pieces(
    fam: _Family,
    run: list[tuple[int, Node]],
    start: date,
    end: date | None,
    basis: str,
    basis_prov: Provenance | None,
    relevant: Sequence[_Series],
) -> list[_Piece]:
    """The run [start, end) cut at every adjustment date of the relevant series."""
    cuts = sorted(
        {d for ser in relevant for d in ser.starts if start < d and (end is None or d < end)}
    )
    bounds = [start, *cuts]
    by_idx = dict(run)
    pieces = []
    for i, p_start in enumerate(bounds):
        p_end = bounds[i + 1] if i + 1 < len(bounds) else end
        members = _members(run, fam.dates, start, p_start, p_end)
        src = by_idx[members[0]]
        text, amounts = _substitute(src.text, relevant, p_start) if relevant else (src.text, {})
        source = (
            basis_prov.source_id
            if i == 0 and basis_prov
            else fam.docs[members[0]].edition.source_id
        )
        pieces.append(
            _Piece(
                p_start,
                p_end,
                members,
                src,
                text,
                amounts,
                basis if i == 0 else "threshold_adjustment",
                source,
            )
        )
    return pieces


def _merge(pieces: list[_Piece]) -> list[_Piece]:
    """Adjacent pieces with the same (operative) text are one version."""
    merged: list[_Piece] = []
    for piece in pieces:
        prev = merged[-1] if merged else None
        if prev is not None and prev.end == piece.start and prev.key() == piece.key():
            prev.end = piece.end
            prev.members = sorted(set(prev.members) | set(piece.members))
        else:
            merged.append(piece)
    return merged


def _substitute(text: str, relevant: Sequence[_Series], day: date) -> tuple[str, dict[str, float]]:
    """Printed amounts of a series replaced by the series' amount in force on `day`."""
    amounts: dict[str, float] = {}

    def swap(match: re.Match[str]) -> str:
        printed = float(match.group(1).replace(",", ""))
        for ser in relevant:
            if printed in ser.chain:
                value = ser.value_at(day)
                if value is None:
                    continue  # before the first adjustment we know of: the printed amount
                amounts[ser.key] = value
                return match.group(0) if printed == value else "$" + format_amount(value)
        return match.group(0)

    return _DOLLARS.sub(swap, text), amounts


def _self_and_ancestors(node_id: str) -> Iterable[str]:
    parts = node_id.split("/")
    for end in range(len(parts), 3, -1):
        yield "/".join(parts[:end])


def _valid_at(node: Node, day: date | None) -> bool:
    if day is None:
        return False
    start_ok = node.effective_from is None or node.effective_from <= day
    return start_ok and (node.effective_to is None or day < node.effective_to)


def _overlap(a: Node, b: Node) -> bool:
    a0, b0 = a.effective_from or date.min, b.effective_from or date.min
    a1, b1 = a.effective_to or date.max, b.effective_to or date.max
    return a0 < b1 and b0 < a1


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "x"


def _label(node: Node) -> str:
    label = node.attrs.get("label") or node.attrs.get("num")
    if not label:
        label = node.id.rsplit("/", 1)[-1]
        if node.type == NodeType.SECTION:
            label = f"§ {label.lstrip('s')}"
        elif node.type == NodeType.CLAUSE:
            label = f"({label})"
    heading = (node.heading or "").strip()
    if heading and str(label) not in heading:
        return f"{label} {heading}"
    return heading or str(label)


def _sort_key(key: tuple[str, date | None, str]) -> tuple[str, str, str]:
    return key[0], key[1].isoformat() if key[1] else "", key[2]


def build_versions(docs: Sequence[ParsedDocument]) -> VersionedCorpus:
    """Collapse the editions in `docs` (any order, any families) into versions."""
    builder = _Builder()
    builder.add_families(docs)
    builder.map_edges()
    builder.map_facts()
    builder.map_unresolved()
    builder.supersedes_and_effective()
    builder.threshold_nodes()
    builder.jurisdictions()
    return builder.finish()


def versions_of(corpus: VersionedCorpus, node_id: str) -> list[Node]:
    """The versions of one provision, oldest first."""
    return sorted(
        (n for n in corpus.nodes if n.id == node_id and n.type not in _SYNTHETIC_TYPES),
        key=lambda n: n.effective_from or date.min,
    )


_SYNTHETIC_TYPES = (NodeType.DATE, NodeType.JURISDICTION, NodeType.AUTHORITY)
