"""Dated dollar thresholds from the "Adjustment of Dollar Amounts" notes of 11 U.S.C.

Every three years (1998, 2001, ..., 2019) the Judicial Conference adjusts the dollar amounts
of the provisions listed in 11 U.S.C. 104 by notice in the Federal Register, effective April 1.
The annual editions record those notices in two places, both read here:

* the note under § 104 ("By notice dated Feb. 5, 2019, 84 F.R. 3488, ... effective Apr. 1,
  2019, as follows:") followed by a table of rows "Section 547(c)(9)—... | $6,425 | $6,825"
  (1998 onward; the 2004 and 2005 editions carry three notices; older tables say "1409(b)—"
  without "Section", sub-rows say "(2)—in paragraph (5)(B)(i)", "in subclause (i)(I)",
  "in paragraph 7(A)(iii)"; several values of one provision are split by
  `<p class="intabledata">`);
* the note of the same name under each adjusted section (2010 edition onward), with the whole
  history: "By notice dated Feb. 16, 2016, 81 F.R. 8748, effective Apr. 1, 2016, in subsec.
  (c)(9), dollar amount "6,225" was adjusted to "6,425"; in subsec. (d)(3), dollar amounts
  "575" and "12,250" were adjusted to "600" and "12,625", respectively; ...".

One THRESHOLD fact per (provision, amount, notice): node_id is the provision
(`/us/usc/t11/s547/c/9`; 28 U.S.C. 1409(b)(1) -> `/us/usc/t28/s1409/b/1`), value the new
amount, unit "USD", effective_from the notice's effective date, effective_to the next
adjustment of the same series when this edition records it, and attrs:

* series: a key that stays the same for one amount across notices and editions. Rows are
  taken in date order; a row continues the series of an earlier row of the same section whose
  new value equals this row's old value (preferring the same provision and position, then the
  same provision, then an enclosing or enclosed provision - the 2010 notice cites
  "101(18)(A), (B)(ii)" where the others cite "101(18)"). A row that continues nothing starts
  the series `<node_id>#<position>` (position = 1-based place of the amount in its row, e.g.
  §109(e) `#1` unsecured, `#2` secured), with `@<date>` appended if that key is taken.
* row_label, old_value, notice_citation ("84 F.R. 3488"), notice_date (ISO),
  position, source ("section-104-table" | "section-note").

A row read from both notes is kept once (the § 104 table wins). `merge_threshold_facts`
combines the facts of several editions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path

from structfirst.ingest.crossrefs import resolve_loc_list
from structfirst.ingest.model import Fact, FactKind, Node, NodeType, ParsedDocument, Provenance
from structfirst.ingest.uscode import (
    DATE_PATTERN,
    PARSER_VERSION,
    clean_html,
    iter_elements,
    parse_date,
    read_source,
)

__all__ = ["parse_adjustments", "adjustments_from_text", "merge_threshold_facts"]

_NOTICE_RE = re.compile(
    rf"By notice dated\s+(?P<nd>{DATE_PATTERN}),\s*(?P<vol>\d+)\s*F\.\s?R\.\s*(?P<page>\d+)"
)
_EFF_RE = re.compile(rf"effective\s+(?P<d>{DATE_PATTERN})")
_AMOUNT_RE = re.compile(r"\$?\s*(\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")
_QUOTED_AMOUNTS = r"(?:[\"“”]\$?[\d,]+[\"“”](?:,?\s*and\s*|,\s*)?)+"
_PROSE_RE = re.compile(
    r"in\s+(?:subsecs?\.|pars?\.|subpars?\.|cls?\.|subcls?\.|section)\s*"
    r"(?P<locs>(?:\(\w+\))+(?:\s*(?:,|and)\s*(?:\(\w+\))+)*)\s*,\s*"
    rf"dollar amounts?\s+(?P<old>{_QUOTED_AMOUNTS})\s*(?:was|were)\s+adjusted\s+to\s+"
    rf"(?P<new>{_QUOTED_AMOUNTS})"
)
_LOC_GROUP_RE = re.compile(r"(?:\(\w+\))+")
_ENUM_TOKEN_RE = re.compile(r"\((\w+)\)")
_CELL_RE = re.compile(r"<t([dh])\b([^>]*)>", re.I)
_ROW_RE = re.compile(r"<tr\b[^>]*>", re.I)


def _amounts(fragment: str) -> list[float]:
    """Amounts of a table cell, one per `<p class="intabledata">` part."""
    parts = re.split(r"<p\b[^>]*>", fragment)
    vals: list[float] = []
    for part in parts:
        text = clean_html(re.sub(r"<sup>.*?</sup>", " ", part, flags=re.S))
        m = _AMOUNT_RE.search(text)
        if m:
            vals.append(float(m.group(1).replace(",", "")))
    return vals


def _quoted_amounts(s: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"[\"“”]\$?([\d,]+)[\"“”]", s)]


@dataclass(slots=True)
class _Row:
    node_id: str
    section: str
    position: int
    old: float | None
    new: float
    eff: date
    notice_date: date | None
    notice_citation: str
    row_label: str
    text: str
    span: tuple[int, int]
    source: str
    order: int = 0


def _node_id(title: str, section: str, enums: list[str]) -> str:
    return f"/us/usc/t{title}/s{section}" + "".join(f"/{e}" for e in enums)


def _fix_brackets(s: str) -> str:
    # "1322(d)(1)(c)[(C)]" -> "1322(d)(1)(C)": the bracket is the editor's correction
    return re.sub(r"\(\w+\)\s*\[(\(\w+\))\]", r"\1", s)


def _table_rows(
    seg: str, seg_start: int, notice: tuple[date | None, str, date], order0: int
) -> list[_Row]:
    notice_date, citation, eff = notice
    rows: list[_Row] = []
    title = "11"
    group: tuple[str, list[list[str]], str] | None = None
    starts = [m.start() for m in _ROW_RE.finditer(seg)] + [len(seg)]
    for a, b in zip(starts, starts[1:], strict=False):
        row_html = seg[a:b]
        cells: list[tuple[str, str, str]] = []
        cms = list(_CELL_RE.finditer(row_html))
        for i, cm in enumerate(cms):
            end = cms[i + 1].start() if i + 1 < len(cms) else len(row_html)
            cls_m = re.search(r'class="([^"]*)"', cm.group(2))
            cls = cls_m.group(1) if cls_m else ""
            cells.append((cm.group(1).lower(), cls, row_html[cm.end() : end]))
        if not cells:
            continue
        if cells[0][0] == "h":
            m = re.search(r"(\d+)\s*U\.S\.C", clean_html(cells[0][2]))
            if m:
                title = m.group(1)
            continue
        left_cls, left_html = cells[0][1], cells[0][2]
        left = clean_html(left_html)
        olds = _amounts(cells[1][2]) if len(cells) > 1 else []
        news = _amounts(cells[2][2]) if len(cells) > 2 else []
        row_end = a + len(row_html.split("</tr>")[0]) + (5 if "</tr>" in row_html else 0)
        span = (seg_start + a, seg_start + row_end)
        if left_cls == "left" or not left_cls.startswith("left"):
            loc_part, _, desc = _fix_brackets(left).partition("—")
            m = re.match(r"^\s*(?:Section\s+|§+\s*)?(\d+[A-Za-z]*)\s*(.*)$", loc_part)
            if not m:
                group = None
                continue
            section = m.group(1)
            locs = resolve_loc_list(_LOC_GROUP_RE.findall(m.group(2))) or [[]]
            group = (section, locs, left)
            targets = [(section, loc) for loc in locs]
            label = left
        else:
            if group is None:
                continue
            section, glocs, glabel = group
            txt = _fix_brackets(left)
            m = re.match(r"^\s*\((\d+)\)\s*—?\s*", txt)
            rownum = m.group(1) if m else None
            rest = txt[m.end() :] if m else txt
            mm = re.match(
                r"^in\s+(?:sub)?(?:paragraph|clause|section)s?\s+(\d*)((?:\(\w+\))*)", rest
            )
            if mm and (mm.group(1) or mm.group(2)):
                extra = ([mm.group(1)] if mm.group(1) else []) + _ENUM_TOKEN_RE.findall(mm.group(2))
            elif rownum:
                extra = [rownum]
            else:
                continue
            targets = [(section, loc + extra) for loc in glocs]
            label = f"{glabel} {left}"
        if not news:
            continue
        for section, loc in targets:
            for k, new in enumerate(news, start=1):
                old = olds[k - 1] if k - 1 < len(olds) else None
                rows.append(
                    _Row(
                        node_id=_node_id(title, section, loc),
                        section=f"t{title}/s{section}",
                        position=k,
                        old=old,
                        new=new,
                        eff=eff,
                        notice_date=notice_date,
                        notice_citation=citation,
                        row_label=label,
                        text=clean_html(row_html),
                        span=span,
                        source="section-104-table",
                        order=order0 + len(rows),
                    )
                )
    return rows


def _notice_of(text: str) -> tuple[date | None, str, date] | None:
    m = _NOTICE_RE.search(text)
    if not m:
        return None
    e = _EFF_RE.search(text, m.end())
    eff = parse_date(e.group("d")) if e else None
    if eff is None:
        return None
    return parse_date(m.group("nd")), f"{m.group('vol')} F.R. {m.group('page')}", eff


def _rows_from_note(note: Node, text: str, order0: int) -> list[_Row]:
    """Rows of one "Adjustment of Dollar Amounts" note (its HTML is text[span])."""
    s0, s1 = note.provenance.span
    html_seg = text[s0:s1]
    section_id = note.parent or ""
    m = re.match(r"^/us/usc/t(\d+)/s([^/]+)$", section_id)
    if not m:
        return []
    title, section = m.group(1), m.group(2)
    toks = [t for t in iter_elements(html_seg, note.provenance.source_id) if t.kind != "comment"]
    rows: list[_Row] = []
    for i, tok in enumerate(toks):
        if tok.kind != "p":
            continue
        ptext = clean_html(tok.inner)
        notice = _notice_of(ptext)
        if notice is None:
            continue
        if re.search(r"as follows:?\s*$", ptext):
            # a table follows: it runs to the next paragraph that is not table matter
            end = len(html_seg)
            for nxt in toks[i + 1 :]:
                if nxt.kind == "p" and not nxt.cls.startswith("tableftnt"):
                    end = nxt.start
                    break
            rows += _table_rows(html_seg[tok.end : end], s0 + tok.end, notice, order0 + len(rows))
            continue
        for pm in _PROSE_RE.finditer(ptext):
            olds = _quoted_amounts(pm.group("old"))
            news = _quoted_amounts(pm.group("new"))
            locs = resolve_loc_list(_LOC_GROUP_RE.findall(_fix_brackets(pm.group("locs"))))
            for loc in locs:
                for k, new in enumerate(news, start=1):
                    rows.append(
                        _Row(
                            node_id=_node_id(title, section, loc),
                            section=f"t{title}/s{section}",
                            position=k,
                            old=olds[k - 1] if k - 1 < len(olds) else None,
                            new=new,
                            eff=notice[2],
                            notice_date=notice[0],
                            notice_citation=notice[1],
                            row_label=f"{title} U.S.C. {section}" + "".join(f"({e})" for e in loc),
                            text=pm.group(0),
                            span=(s0 + tok.start, s0 + tok.end),
                            source="section-note",
                            order=order0 + len(rows),
                        )
                    )
    return rows


def _related(a: str, b: str) -> bool:
    return a == b or a.startswith(b + "/") or b.startswith(a + "/")


def _dedupe(rows: list[_Row]) -> list[_Row]:
    table = [r for r in rows if r.source == "section-104-table"]
    keys = {(r.node_id, r.eff, r.position, r.old, r.new) for r in table}
    out = list(table)
    for r in rows:
        if r.source == "section-104-table":
            continue
        if (r.node_id, r.eff, r.position, r.old, r.new) in keys:
            continue
        if any(
            t.section == r.section
            and t.eff == r.eff
            and t.old == r.old
            and t.new == r.new
            and _related(t.node_id, r.node_id)
            for t in table
        ):
            continue
        keys.add((r.node_id, r.eff, r.position, r.old, r.new))
        out.append(r)
    return out


def _assign_series(rows: list[_Row]) -> dict[int, str]:
    """Series key per row index (see the module docstring)."""
    order = sorted(range(len(rows)), key=lambda i: (rows[i].eff, rows[i].order))
    last: dict[str, _Row] = {}  # series key -> its latest row
    keys: dict[int, str] = {}
    for i in order:
        r = rows[i]
        best: tuple[int, str] | None = None
        if r.old is not None:
            for key, prev in last.items():
                if prev.section != r.section or prev.eff >= r.eff or prev.new != r.old:
                    continue
                if prev.node_id == r.node_id and prev.position == r.position:
                    rank = 0
                elif prev.node_id == r.node_id:
                    rank = 1
                elif _related(prev.node_id, r.node_id):
                    rank = 2
                else:
                    rank = 3
                if best is None or rank < best[0]:
                    best = (rank, key)
        if best is not None:
            key = best[1]
        else:
            key = f"{r.node_id}#{r.position}"
            if key in last:
                key = f"{key}@{r.eff.isoformat()}"
        keys[i] = key
        last[key] = r
    return keys


def _facts(rows: list[_Row], source_id: str) -> list[Fact]:
    keys = _assign_series(rows)
    facts: list[Fact] = []
    for i, r in enumerate(rows):
        facts.append(
            Fact(
                node_id=r.node_id,
                kind=FactKind.THRESHOLD,
                value=r.new,
                text=r.text,
                provenance=Provenance(source_id, r.span, PARSER_VERSION),
                unit="USD",
                effective_from=r.eff,
                attrs={
                    "series": keys[i],
                    "row_label": r.row_label,
                    "old_value": r.old,
                    "notice_citation": r.notice_citation,
                    "notice_date": r.notice_date.isoformat() if r.notice_date else None,
                    "position": r.position,
                    "source": r.source,
                },
            )
        )
    return _set_effective_to(facts)


def _set_effective_to(facts: list[Fact]) -> list[Fact]:
    by_series: dict[str, list[Fact]] = {}
    for f in facts:
        by_series.setdefault(f.attrs["series"], []).append(f)
    for group in by_series.values():
        group.sort(key=lambda f: f.effective_from or date.min)
        for a, b in zip(group, group[1:], strict=False):
            if b.effective_from and a.effective_from and b.effective_from > a.effective_from:
                a.effective_to = b.effective_from
    facts.sort(key=lambda f: (f.attrs["series"], f.effective_from or date.min))
    return facts


def adjustments_from_text(doc: ParsedDocument, text: str) -> list[Fact]:
    """THRESHOLD facts of a parsed Title 11 edition whose decoded source text is `text`."""
    rows: list[_Row] = []
    for node in doc.nodes:
        if node.type != NodeType.NOTE:
            continue
        if not (node.heading or "").lower().startswith("adjustment of dollar amounts"):
            continue
        rows += _rows_from_note(node, text, len(rows))
    return _facts(_dedupe(rows), doc.edition.source_id)


def parse_adjustments(parsed_or_path: ParsedDocument | Path | str) -> list[Fact]:
    """THRESHOLD facts of one Title 11 edition, from a path or an already parsed document.

    For a ParsedDocument the source file is read again from `edition.source_id` (relative to
    the corpus root, or absolute).
    """
    from structfirst.ingest.corpus import corpus_root
    from structfirst.ingest.uscode import parse_uscode

    if isinstance(parsed_or_path, ParsedDocument):
        doc = parsed_or_path
        sid = doc.edition.source_id
        p = Path(sid)
        if not p.is_absolute():
            p = corpus_root() / p
        return adjustments_from_text(doc, read_source(p, sid))
    doc = parse_uscode(Path(parsed_or_path))
    return [f for f in doc.facts if f.kind == FactKind.THRESHOLD]


def merge_threshold_facts(fact_lists: Iterable[Sequence[Fact]]) -> list[Fact]:
    """One fact per (series, effective_from) over several editions, given oldest edition
    first (a later edition's reading wins), with effective_to recomputed per series."""
    merged: dict[tuple[str, date | None], Fact] = {}
    for facts in fact_lists:
        for f in facts:
            if f.kind != FactKind.THRESHOLD:
                continue
            merged[(f.attrs["series"], f.effective_from)] = replace(f, effective_to=None)
    return _set_effective_to(list(merged.values()))
