"""Resolve textual cross-references in US Code statutory text to node ids.

`link_crossrefs(doc)` scans the own text of every Section and Clause node of a parsed title
(not notes) for references and resolves each relative to the citing node:

* "section 547(c)", "§ 101(31)", "sections 101(3), 101(18), ... and 1326(b)(3) of this title",
  "section 523(a)(2), (4), or (6)" (a bare group continues the previous item from the level of
  its first enumerator), "sections 1121 through 1129" (a range also links the sections
  in between) -> `/us/usc/t11/s547/c`, ...;
* "subsection (c)", "subsections (c) and (i) of this section" -> the citing section's (c);
* "paragraph (2)", "subparagraph (A)", "clause (ii)" -> the nearest enclosing node (the citing
  node itself first) that has a child of that level and number;
* "paragraph (1) of this subsection", "clause (i) of this subparagraph" -> under the enclosing
  node of the named level; "paragraph (2) of subsection (b)", "subsection (a) of section 362"
  chain from right to left;
* "chapter 7 of this title", "chapter 7", "subchapter IV of chapter 7", "subchapter III of this
  chapter" -> the chapter/subchapter nodes.

References qualified "of title 28", "of the Internal Revenue Code of 1986", "of such Act",
"of Public Law ..." and the like are external: they become UnresolvedRef with reason
"outside this title" and are left out of the resolution-rate denominator. Every other reference
that names no node of the document becomes an UnresolvedRef with reason "no such section",
"no such subdivision", "no such chapter" or "indefinite reference" ("of such section").

Edges: one CROSS_REFS edge per (citing node, target), attrs {"text": the reference as written,
"relative": bool}; provenance is the citing node's, with confidence 0.9 for relative
references resolved by the nearest-enclosing-level rule. `resolution_rate(doc)` returns
(resolved, in-title total) counted over distinct (citing node, target) edges plus distinct
(citing node, reference text) unresolved in-title references.

citeurl is not used: its relative-reference support does not cover "subsection (c) of this
section" style references, and it adds nothing for "section 547(c)" that the regexes here miss.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from structfirst.ingest.model import (
    Edge,
    EdgeType,
    Node,
    NodeType,
    ParsedDocument,
    Provenance,
    UnresolvedRef,
)

__all__ = [
    "link_crossrefs",
    "resolution_rate",
    "resolve_loc_list",
    "OUTSIDE",
]

OUTSIDE = "outside this title"

_LEVELS = {
    "subsection": "subsection", "paragraph": "paragraph", "subparagraph": "subparagraph",
    "clause": "clause", "subclause": "subclause", "item": "item", "subitem": "subitem",
}  # fmt: skip
_LEVEL_ORDER = ["section", *_LEVELS]

_ENUM = r"\((?:\d{1,4}[A-Z]{0,3}|[a-z]{1,6}|[A-Z]{1,6})\)"
_ENUM_TOKEN_RE = re.compile(r"\((\w+)\)")
_KW_RE = re.compile(
    r"(?<![A-Za-z])(?P<kw>§§?|(?:sub)?sections?|(?:sub)?paragraphs?|(?:sub)?clauses?|"
    r"(?:sub)?items?|(?:sub)?chapters?)(?![A-Za-z])\s*",
    re.I,
)
_SEC_ITEM_RE = re.compile(rf"(\d{{1,5}}[A-Za-z]{{0,3}}(?:[-–.]\d+)?)((?:{_ENUM})*)")
_ENUM_GROUP_RE = re.compile(rf"(?:{_ENUM})+")
_CH_ITEM_RE = re.compile(r"(\d{1,3}[A-Z]?|[IVXLC]+)\b")
_SEP_RE = re.compile(r"\s*(?:,\s*(?:and|or|and/or)?\s*|\s(?:and|or|through|to)\s)\s*")
_RANGE_RE = re.compile(r"\b(?:through|to)\b")

_QUAL_RE = re.compile(
    r"\s*,?\s*of\s+(?:"
    r"(?P<this>this|such|that|the same)\s+(?P<thislevel>title|chapter|subchapter|part|section|"
    r"subsection|paragraph|subparagraph|clause|subclause|Act|Code|law|subtitle)\b"
    r"|title\s+(?P<title>\d+)(?:,?\s+United States Code)?"
    r"|(?P<qkw>(?:sub)?(?:section|paragraph|clause)|subparagraph|chapter)\s+"
    r"(?P<qitem>\d{1,5}[A-Za-z]{0,3}(?:[-–]\d+)?(?:" + _ENUM + r")*|(?:" + _ENUM + r")+|[IVXLC]+\b)"
    r"|(?P<ext>the\s+[A-Z][\w.'’-]*(?:\s+(?:[A-Z][\w.'’-]*|of|and|for|on|the|to))*?\s+"
    r"(?:Act|Code|Rules|Procedure|Evidence|Regulations)(?:,?\s+(?:of\s+)?\d{4})?"
    r"|the\s+[A-Z][\w.'’-]*|Public\s+Law|Pub\.\s*L\.|the\s+Revised\s+Statutes|"
    r"an?\s+Act\b|[A-Z][a-z]+\s+(?:Act|Code)\b)"
    r")"
)


def _enum_style(tok: str, prev: str | None) -> str:
    if tok[0].isdigit():
        return "digit"
    lower = tok.islower()
    romanish = set(tok.lower()) <= set("ivxlc")
    if romanish and (len(tok) > 1 or (prev is not None and prev[0].isalpha() and prev.isupper())):
        return "roman" if lower else "ROMAN"
    return "lower" if lower else "upper"


def _styles(toks: list[str]) -> list[str]:
    out: list[str] = []
    prev: str | None = None
    for t in toks:
        out.append(_enum_style(t, prev))
        prev = t
    return out


def resolve_loc_list(groups: list[str]) -> list[list[str]]:
    """["(b)(5)(C)", "(6)(C)", "(10)(C)"] -> [[b,5,C], [b,6,C], [b,10,C]]: a later group
    replaces the first one from the level of its first enumerator on."""
    out: list[list[str]] = []
    base: list[str] | None = None
    for g in groups:
        toks = _ENUM_TOKEN_RE.findall(g)
        if not toks:
            continue
        if base is None:
            base = toks
            out.append(toks)
            continue
        styles = _styles(base)
        first = _styles(toks)[0]
        idx = next((i for i, s in enumerate(styles) if s == first), None)
        if idx is None and first == "roman":  # base "(i)" read as a letter
            idx = next(
                (
                    i
                    for i, (st, t) in enumerate(zip(styles, base, strict=True))
                    if st == "lower" and len(t) == 1 and t in "ivx"
                ),
                None,
            )
        if idx is None and first == "lower" and toks[0] in ("i", "v", "x"):
            idx = next((i for i, st in enumerate(styles) if st == "roman"), None)
        if idx is None and toks[0].islower() and len(toks[0]) == 1:  # "(b)" typo for "(B)"
            up = [toks[0].upper()] + toks[1:]
            idx = next((i for i, s in enumerate(styles) if s == "upper"), None)
            if idx is not None:
                toks = up
        if idx is None:
            out.append(toks)
            continue
        out.append(base[:idx] + toks)
    return out


@dataclass(slots=True)
class _Ref:
    text: str
    targets: list[str]
    relative: bool
    reason: str | None = None  # set when unresolved


class _Index:
    def __init__(self, doc: ParsedDocument) -> None:
        self.nodes = {n.id: n for n in doc.nodes}
        root = next(
            (n for n in doc.nodes if n.parent is None and n.type == NodeType.DOCUMENT), None
        )
        self.root_id = root.id if root else ""
        m = re.match(r"/us/usc/t(\d+)", self.root_id)
        self.title_num = m.group(1) if m else ""
        self.children: dict[str, list[str]] = {}
        self.chapters: dict[str, str] = {}
        for n in doc.nodes:
            if n.parent and n.type in (NodeType.CLAUSE, NodeType.SECTION, NodeType.DOCUMENT):
                self.children.setdefault(n.parent, []).append(n.id)
            if n.type == NodeType.DOCUMENT and n.attrs.get("level") == "chapter":
                seg = n.id.rsplit("/", 1)[-1]
                self.chapters.setdefault(seg[2:].split("_")[0], n.id)
        self.sections = {
            n.id.rsplit("/s", 1)[-1]: n.id
            for n in doc.nodes
            if n.type == NodeType.SECTION and n.parent is not None
        }

    def level(self, node: Node) -> str:
        if node.type == NodeType.SECTION:
            return "section"
        return node.attrs.get("level", "")

    def ancestors(self, node_id: str) -> list[Node]:
        out: list[Node] = []
        cur = self.nodes.get(node_id)
        while cur is not None:
            out.append(cur)
            cur = self.nodes.get(cur.parent) if cur.parent else None
        return out

    def enclosing(self, node_id: str, level: str) -> Node | None:
        for a in self.ancestors(node_id):
            if self.level(a) == level:
                return a
        return None

    def section_of(self, node_id: str) -> Node | None:
        return self.enclosing(node_id, "section")

    def child(self, parent_id: str, tok: str, level: str | None = None) -> str | None:
        cid = f"{parent_id}/{tok}"
        node = self.nodes.get(cid)
        if node is None:
            return None
        if level and self.level(node) != level:
            return None
        return cid

    def path(self, base_id: str, toks: list[str]) -> str | None:
        cur = base_id
        for t in toks:
            nxt = self.child(cur, t)
            if nxt is None:
                return None
            cur = nxt
        return cur


def _section_key(num: str) -> str:
    return num.replace("–", "-")


def _sec_sort_key(num: str) -> tuple[int, str]:
    m = re.match(r"(\d+)(.*)", num)
    return (int(m.group(1)), m.group(2)) if m else (0, num)


_EXT_MENTION_RE = re.compile(
    r"\bof\s+(?:title\s+(?P<title>\d+)|the\s+[A-Z][\w.'’-]*(?:\s+[\w.'’-]+){0,8}?\s+(?:Act|Code)\b)"
)
_EXT_AFTER_RE = re.compile(
    r"\bof\s+(?:title\s+(?P<title>\d+)|the\s+[A-Z][\w.'’-]*|such\s+(?:Act|Code|title))"
)


class _Resolver:
    def __init__(self, doc: ParsedDocument) -> None:
        self.idx = _Index(doc)
        self.text = ""
        self.context = ""
        self.recent: list[str] = []

    # -- qualifiers ------------------------------------------------------------------------
    def qualifiers(self, text: str, pos: int) -> tuple[list[re.Match[str]], int]:
        quals: list[re.Match[str]] = []
        while True:
            m = _QUAL_RE.match(text, pos)
            if not m:
                return quals, pos
            quals.append(m)
            pos = m.end()
            if m.group("ext") or m.group("title") or m.group("this"):
                return quals, pos

    def anchor(self, src: Node, quals: list[re.Match[str]]) -> tuple[str | None, str | None, bool]:
        """(anchor node id or None for 'relative', reason if unresolvable, in_title flag)."""
        idx = self.idx
        anchor: str | None = None
        for q in reversed(quals):
            if q.group("ext"):
                return None, OUTSIDE, False
            if q.group("title"):
                if q.group("title") != idx.title_num:
                    return None, OUTSIDE, False
                continue
            if q.group("this"):
                word = q.group("this").lower()
                lvl = q.group("thislevel").lower()
                if lvl in ("act", "code", "law"):
                    return None, OUTSIDE, False
                if word != "this":
                    if self.external_before(q.start()):
                        return None, OUTSIDE, False
                    return None, "indefinite reference", True
                if lvl in ("title",):
                    continue
                if lvl in ("chapter", "subchapter", "part", "subtitle"):
                    node = next(
                        (a for a in idx.ancestors(src.id) if a.attrs.get("level") == lvl), None
                    )
                    if node is None:
                        return None, f"no enclosing {lvl}", True
                    anchor = node.id
                    continue
                node = idx.enclosing(src.id, lvl)
                if node is None and lvl == "subsection":
                    node = idx.section_of(src.id)  # a section without subsections
                if node is None:
                    return None, f"no enclosing {lvl}", True
                anchor = node.id
                continue
            kw = q.group("qkw").lower()
            item = q.group("qitem")
            if kw == "chapter":
                ch = idx.chapters.get(item)
                if ch is None:
                    return None, "no such chapter", True
                anchor = ch
                continue
            if kw == "section":
                m = _SEC_ITEM_RE.fullmatch(item)
                if not m:
                    return None, "no such section", True
                sec = idx.sections.get(_section_key(m.group(1)))
                if sec is None:
                    return None, "no such section", True
                toks = _ENUM_TOKEN_RE.findall(m.group(2))
                anchor = idx.path(sec, toks) if toks else sec
                if anchor is None:
                    return None, "no such subdivision", True
                continue
            toks = _ENUM_TOKEN_RE.findall(item)
            if not toks:
                return None, "no such subdivision", True
            target = self.subdivision(src, kw, toks, anchor)
            if target is None:
                return None, "no such subdivision", True
            anchor = target
        return anchor, None, True

    # -- targets ---------------------------------------------------------------------------
    def subdivision(self, src: Node, kw: str, toks: list[str], anchor: str | None) -> str | None:
        idx = self.idx
        level = _LEVELS.get(kw.lower().rstrip("s"))
        if anchor is not None:
            return idx.path(anchor, toks)
        if level == "subsection":
            sec = idx.section_of(src.id)
            return idx.path(sec.id, toks) if sec else None
        # up from the citing node to its section; then, for "... of subsection (a) of this
        # section other than paragraph (8)", up from the levels named last in the same text
        for start in (src.id, *reversed(self.recent)):
            for a in idx.ancestors(start):
                first = idx.child(a.id, toks[0], level)
                if first is not None:
                    return idx.path(first, toks[1:]) if len(toks) > 1 else first
                if a.type == NodeType.SECTION:
                    break
        return None

    def external_before(self, pos: int) -> bool:
        """Whether the text before `pos` names another title or an Act (for "such ...")."""
        before = self.text[:pos]
        last = None
        for m in _EXT_MENTION_RE.finditer(before):
            last = m
        if last is None:  # the Act may be named in the chapeau above
            for m in _EXT_MENTION_RE.finditer(self.context):
                last = m
        if last is None:
            return False
        return not (last.group("title") and last.group("title") == self.idx.title_num)

    def refs(self, src: Node) -> list[_Ref]:
        text = src.text
        self.text = text
        self.recent = []
        anc = self.idx.ancestors(src.id)[1:]
        cut = next((i for i, a in enumerate(anc) if a.type == NodeType.SECTION), len(anc) - 1)
        self.context = " ".join(a.text for a in reversed(anc[: cut + 1]))
        out: list[_Ref] = []
        pos = 0
        while True:
            m = _KW_RE.search(text, pos)
            if not m:
                return out
            kw = m.group("kw").lower()
            start = m.start()
            pos = m.end()
            if kw.startswith("§") or kw.startswith("section"):
                ref, pos = self.section_ref(src, text, start, pos)
            elif "chapter" in kw:
                ref, pos = self.chapter_ref(src, text, start, pos, kw)
            else:
                ref, pos = self.subdivision_ref(src, text, start, pos, kw)
            if ref is None:
                continue
            if ref.reason and ref.reason != OUTSIDE and not ref.targets:
                ref.reason = self.reclassify(text, start, pos, kw, ref.reason)
            out.append(ref)
            self.recent.extend(ref.targets)

    def reclassify(self, text: str, start: int, end: int, kw: str, reason: str) -> str:
        """Second look at an unresolved reference: external by its context?"""
        before = text[max(0, start - 90) : start]
        if re.search(r"\bsuch\s+$", before):
            return OUTSIDE if self.external_before(start) else "indefinite reference"
        if kw.startswith("§") and re.search(r"(?:Pub\.\s*L\.|Stat\.|title [IVXL]+)[^;]*$", before):
            return OUTSIDE  # "Pub. L. 105–277, div. I, title VI, §603(1)"
        if reason in ("no such section", "no such subdivision") and kw.startswith(("§", "section")):
            after = re.split(r"[;:]|\.\s", text[end : end + 200], maxsplit=1)[0]
            m = _EXT_AFTER_RE.search(after)
            if m and not (m.group("title") and m.group("title") == self.idx.title_num):
                # "section 414(d), or ... section 403(b), of the Internal Revenue Code"
                return OUTSIDE
        return reason

    def _list(self, text: str, pos: int, item_re: re.Pattern[str], bare_ok: bool):
        items: list[tuple[re.Match[str], bool]] = []  # (match, range_from_previous)
        m = item_re.match(text, pos)
        if not m:
            return items, pos
        items.append((m, False))
        pos = m.end()
        while True:
            s = _SEP_RE.match(text, pos)
            if not s:
                break
            nxt = item_re.match(text, s.end())
            if nxt is None and bare_ok:
                nxt = _ENUM_GROUP_RE.match(text, s.end())
            if nxt is None:
                break
            items.append((nxt, bool(_RANGE_RE.search(s.group(0)))))
            pos = nxt.end()
        return items, pos

    def _qualified(
        self, src: Node, text: str, start: int, pos: int
    ) -> tuple[str, str | None, _Ref | None, int]:
        """Read the qualifiers after a reference's items ("of this title", "of such Act"):
        (the reference as written, its anchor, an unresolved _Ref when the qualifiers make it
        unresolvable, where they end)."""
        quals, end = self.qualifiers(text, pos)
        written = text[start:end].strip()
        anchor, reason, _in_title = self.anchor(src, quals)
        failed = _Ref(written, [], False, reason) if reason else None
        return written, anchor, failed, end

    def _with_ranges(self, hits: list[tuple[str, bool]]) -> list[str]:
        """The targets in order, each range ("sections 1121 through 1129") filled in between
        its ends; `hits` are (target, range_from_previous)."""
        targets: list[str] = []
        prev: str | None = None
        for target, is_range in hits:
            if is_range and prev is not None:
                targets += self.between(prev, target)
            targets.append(target)
            prev = target
        return targets

    def section_ref(self, src: Node, text: str, start: int, pos: int) -> tuple[_Ref | None, int]:
        idx = self.idx
        items, pos = self._list(text, pos, _SEC_ITEM_RE, bare_ok=True)
        if not items:
            return None, pos
        written, _anchor, failed, qend = self._qualified(src, text, start, pos)
        if failed is not None:
            return failed, qend
        hits: list[tuple[str, bool]] = []
        missing: str | None = None
        prev_num: str | None = None
        prev_toks: list[str] = []
        for m, is_range in items:
            if m.re is _SEC_ITEM_RE:
                num = _section_key(m.group(1))
                groups = [m.group(2)] if m.group(2) else []
                toks = resolve_loc_list(groups)[0] if groups else []
            else:
                if prev_num is None:
                    continue
                num = prev_num
                toks = resolve_loc_list(["".join(f"({t})" for t in prev_toks), m.group(0)])[1]
            prev_num, prev_toks = num, toks
            sec = idx.sections.get(num)
            if sec is None:
                missing = missing or "no such section"
                continue
            target = idx.path(sec, toks) if toks else sec
            if target is None:
                missing = missing or "no such subdivision"
                continue
            hits.append((target, is_range))
        targets = self._with_ranges(hits)
        if not targets:
            return _Ref(written, [], False, missing or "no such section"), qend
        ref = _Ref(written, targets, False)
        if missing:
            ref.reason = missing  # partially resolved: the rest is reported too
        return ref, qend

    def between(self, a: str, b: str) -> list[str]:
        idx = self.idx
        na, nb = idx.nodes.get(a), idx.nodes.get(b)
        if na is None or nb is None:
            return []
        if na.type == NodeType.SECTION and nb.type == NodeType.SECTION:
            ka = _sec_sort_key(a.rsplit("/s", 1)[-1])
            kb = _sec_sort_key(b.rsplit("/s", 1)[-1])
            return [sid for num, sid in idx.sections.items() if ka < _sec_sort_key(num) < kb]
        if na.parent != nb.parent or na.parent is None:
            return []
        sibs = idx.children.get(na.parent, [])
        try:
            i, j = sibs.index(a), sibs.index(b)
        except ValueError:
            return []
        return sibs[i + 1 : j] if i < j else []

    def subdivision_ref(
        self, src: Node, text: str, start: int, pos: int, kw: str
    ) -> tuple[_Ref | None, int]:
        items, pos = self._list(text, pos, _ENUM_GROUP_RE, bare_ok=False)
        if not items:
            return None, pos
        written, anchor, failed, qend = self._qualified(src, text, start, pos)
        if failed is not None:
            return failed, qend
        locs = resolve_loc_list([m.group(0) for m, _ in items])
        hits: list[tuple[str, bool]] = []
        for (_m, is_range), toks in zip(items, locs, strict=False):
            t = self.subdivision(src, kw, toks, anchor)
            if t is not None:
                hits.append((t, is_range))
        targets = self._with_ranges(hits)
        if not targets:
            return _Ref(written, [], anchor is None, "no such subdivision"), qend
        ref = _Ref(written, targets, anchor is None)
        if len(targets) < len(locs):
            ref.reason = "no such subdivision"
        return ref, qend

    def chapter_ref(
        self, src: Node, text: str, start: int, pos: int, kw: str
    ) -> tuple[_Ref | None, int]:
        idx = self.idx
        items, pos = self._list(text, pos, _CH_ITEM_RE, bare_ok=False)
        if not items:
            return None, pos
        written, anchor, failed, qend = self._qualified(src, text, start, pos)
        if failed is not None:
            return failed, qend
        targets: list[str] = []
        for m, _r in items:
            num = m.group(1)
            if kw.startswith("sub"):
                base = anchor
                if base is None:
                    ch = next(
                        (a for a in idx.ancestors(src.id) if a.attrs.get("level") == "chapter"),
                        None,
                    )
                    base = ch.id if ch else None
                t = idx.nodes.get(f"{base}/sch{num}") if base else None
                if t is not None:
                    targets.append(t.id)
            else:
                if anchor is not None and idx.nodes.get(anchor) is not None:
                    # "chapter 1 of subtitle II" and the like
                    cand = f"{anchor}/ch{num}"
                    if cand in idx.nodes:
                        targets.append(cand)
                        continue
                ch = idx.chapters.get(num)
                if ch is not None:
                    targets.append(ch)
        if not targets:
            return _Ref(written, [], False, "no such chapter"), qend
        return _Ref(written, targets, False), qend


_SCANNED = (NodeType.SECTION, NodeType.CLAUSE)


def link_crossrefs(doc: ParsedDocument) -> tuple[list[Edge], list[UnresolvedRef]]:
    """CROSS_REFS edges and unresolved references of one parsed title (see module doc)."""
    resolver = _Resolver(doc)
    edges: list[Edge] = []
    unresolved: list[UnresolvedRef] = []
    seen_edges: set[tuple[str, str]] = set()
    seen_unres: set[tuple[str, str]] = set()
    for node in doc.nodes:
        if node.type not in _SCANNED or not node.text or node.attrs.get("status"):
            continue  # a repealed/omitted section's text is an editorial summary
        for ref in resolver.refs(node):
            for t in ref.targets:
                if t == node.id or (node.id, t) in seen_edges:
                    continue
                seen_edges.add((node.id, t))
                p = node.provenance
                conf = 0.9 if ref.relative else 1.0
                prov = Provenance(p.source_id, p.span, p.parser_version, conf)
                attrs = {"text": ref.text, "relative": ref.relative}
                edges.append(Edge(node.id, t, EdgeType.CROSS_REFS, prov, attrs))
            if ref.reason and (node.id, ref.text) not in seen_unres:
                seen_unres.add((node.id, ref.text))
                unresolved.append(UnresolvedRef(node.id, ref.text, node.provenance, ref.reason))
    return edges, unresolved


def resolution_rate(doc: ParsedDocument) -> tuple[int, int]:
    """(resolved, in-title total): distinct cross_refs edges vs those plus the distinct
    unresolved references that are not outside the title."""
    resolved = sum(1 for e in doc.edges if e.type == EdgeType.CROSS_REFS)
    missing = sum(1 for u in doc.unresolved if u.reason != OUTSIDE)
    return resolved, resolved + missing
