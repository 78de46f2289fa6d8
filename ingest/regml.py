"""CFPB eRegulations RegML (namespace ``eregs``) to a `ParsedDocument`.

One file is one compiled version of a CFR part (e.g. 12 CFR part 1013, Regulation M, as in
force from its ``<effectiveDate>``). The parser yields:

* **Nodes.** The part (Document, ``/us/cfr/t12/p1013``), named subparts
  (``/us/cfr/t12/p1005/subpart-B``; the unnamed single subpart of a part gets no node),
  sections (``/us/cfr/t12/s1013.2``), paragraphs from their labels (``1013-2-e-1`` ->
  ``/us/cfr/t12/s1013.2/e/1``, Clause), appendices (``/us/cfr/t12/p1013/appA``, their
  sections ``.../appA/1`` and paragraphs), and the official interpretations (Supplement I)
  under ``/us/cfr/t12/p1013/supp-i``: ``1013-2-Interp`` -> ``supp-i/s1013.2``,
  ``1013-2-e-Interp`` -> ``supp-i/s1013.2/e``, comment ``1013-2-e-Interp-1-i`` (comment
  2(e)-1.i) -> ``supp-i/s1013.2/e/cmt1/i``, introduction ``1013-Interp-h1-1`` ->
  ``supp-i/h1/cmt1``, appendix comments ``1005-A-Interp-1`` -> ``supp-i/appA/cmt1``.
  Regulation text has authority REGULATION, Supplement I INTERPRETATION; jurisdiction
  ``us-federal/cfpb``. A paragraph without a label (rare) gets ``<parent>/unl<k>``, k its
  1-based position among the parent's paragraphs. Every node's attrs carry ``label`` (the
  RegML label, when there is one), ``marker`` and ``hierarchy_path``
  ("12 CFR Part 1013 > § 1013.2 > (e) > (1)").
* **Defined terms.** Each ``<def term>`` yields a DefinedTerm ``<scope>/term/<slug>``
  (attrs ``term``, ``scope``), a ``defines`` edge from the defining paragraph and a
  ``contains`` edge from it (the term's parent). The scope is read from the text: the
  definition's sentence and paragraph, then the chapeaus of its ancestors and their earlier
  unmarked paragraphs ("For the purposes of this part", "For purposes of this subpart",
  "For purposes of this section", "this paragraph"); without one it is the part, with
  confidence 0.8.
* **References.** Each ``<ref target reftype>`` whose target names a node of the document
  (a RegML label, or an external ``CFR:12-1013`` that is this part) is a ``cross_refs``
  edge (attrs ``text``, ``reftype``, ``count``), one per (source, target) pair, with the
  span of its first ``<ref>``; a ``term`` ref also yields a ``uses`` edge to the
  DefinedTerm it names (attrs ``text``, ``via``: "ref"). A target outside the document
  (``USC:15-1601``, ``CFR:12-226-2``, a label absent from this version) is an
  `UnresolvedRef` whose reason names the canonical id it would have.
* **Statute links.** Statute citations in the text (``15 U.S.C. 1693``, "section 183(b) of
  the Act", "sections 916 and 917 of the Act", "EFTA section 915(a)") are mapped to
  ``/us/usc/t15/...`` ids ("the Act" is the part's act: TILA for 1013, ECOA for 1002, EFTA
  for 1005). Where the sentence says the text implements or is issued pursuant to the
  statute ("to implement", "pursuant to", "carries out", "issued under") the paragraph gets
  a ``derived_from`` edge to it (confidence 0.9; the part gets one too when the paragraph
  is in its first, authority section); any other plain-text statute citation is an
  `UnresolvedRef`.
* **Interpretations.** Each Supplement I node gets an ``interprets`` edge to the regulation
  node its label names (``1013-2-e-Interp-1`` -> ``/us/cfr/t12/s1013.2/e``). When that
  label is absent from the version the edge goes to its nearest present ancestor with
  attrs ``exact`` False and a warning.

Not parsed: tables of contents, and the section-by-section ``<analysis>`` some versions
carry (Federal Register preamble text, not regulation). Amendment notices
(``cfr-12/notice/``) are change sets between versions and are refused with an IngestError.

Spans are [start, end) character offsets into the file decoded as UTF-8: one regular-
expression pass tokenizes the markup (comments, CDATA, processing instructions, start,
end and empty tags) and pairs each start tag with its end tag; the n-th start tag is the
n-th element of lxml's document-order iteration, and the two are checked to have the same
name. A node's span is its element's (from ``<`` of its start tag to ``>`` of its end
tag); an edge from a ``<ref>`` has the ``<ref>`` element's span; a defined term the
``<def>``'s; statute links the span of the ``<content>`` they were read from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from lxml import etree
from structfirst.ingest.corpus import default_source_id
from structfirst.ingest.model import (
    Authority,
    Edge,
    EdgeType,
    Edition,
    IngestError,
    Node,
    NodeType,
    ParsedDocument,
    Provenance,
    UnresolvedRef,
)

PARSER_VERSION = "regml/1"
JURISDICTION = "us-federal/cfpb"
NS = "{eregs}"

# ---------------------------------------------------------------------------------------
# Spans: a tokenizer pass over the decoded text.

_TOKEN = re.compile(
    r"<!--.*?-->"
    r"|<!\[CDATA\[.*?\]\]>"
    r"|<\?.*?\?>"
    r"|<!DOCTYPE(?:[^>\[]|\[.*?\])*>"
    r"|</(?P<end>[^\s>]+)\s*>"
    r"|<(?P<start>[^\s/>!?]+)(?:\s+[^\s=/>]+\s*=\s*(?:\"[^\"]*\"|'[^']*'))*\s*(?P<empty>/?)>",
    re.S,
)


def _element_spans(text: str, source: str) -> list[tuple[str, int, int]]:
    """(local name, start, end) of every element, in start-tag (document) order."""
    spans: list[list] = []
    stack: list[int] = []
    for m in _TOKEN.finditer(text):
        start_name = m.group("start")
        if start_name is not None:
            spans.append([start_name.rpartition(":")[2], m.start(), m.end()])
            if not m.group("empty"):
                stack.append(len(spans) - 1)
        elif m.group("end") is not None:
            if not stack:
                raise IngestError(source, f"offset {m.start()}", "unbalanced end tag")
            spans[stack.pop()][2] = m.end()
    if stack:
        raise IngestError(source, f"offset {spans[stack[-1]][1]}", "unclosed element")
    return [(n, s, e) for n, s, e in spans]


def _local(el: etree._Element) -> str:
    return etree.QName(el).localname


# ---------------------------------------------------------------------------------------
# Text of a <content> element.

_WS = re.compile(r"\s+")


class _Flat:
    """Flattened, whitespace-normalized text with the positions of chosen elements."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.n = 0
        self.marks: list[tuple[etree._Element, int, int]] = []
        self.images: list[str] = []

    def add(self, s: str) -> None:
        s = _WS.sub(" ", s)
        if not s:
            return
        if s[0] == " " and (self.n == 0 or self.parts[-1].endswith(" ")):
            s = s[1:]
            if not s:
                return
        self.parts.append(s)
        self.n += len(s)

    def walk(self, el: etree._Element) -> None:
        self.add(el.text or "")
        for ch in el:
            if isinstance(ch.tag, str):
                name = _local(ch)
                start = self.n
                if name == "graphic":
                    url = (ch.findtext(NS + "url") or "").strip()
                    alt = (ch.findtext(NS + "altText") or "").strip()
                    if url:
                        self.images.append(url)
                    self.add(f" [image{': ' + alt if alt else ''}] ")
                elif name == "table":
                    rows = []
                    for row in ch.iter(NS + "columnHeaderRow", NS + "row"):
                        cells = [
                            _WS.sub(" ", "".join(c.itertext())).strip()
                            for c in row
                            if isinstance(c.tag, str)
                        ]
                        rows.append(" | ".join(cells))
                    self.add(" " + " ; ".join(rows) + " ")
                elif name == "footnote":
                    pass
                else:
                    self.walk(ch)
                if name in ("def", "ref"):
                    self.marks.append((ch, start, self.n))
            self.add(ch.tail or "")

    def text(self) -> str:
        return "".join(self.parts).rstrip()


# ---------------------------------------------------------------------------------------
# Statutes: "the Act" and section numbers to U.S.C. sections.


def _tila(n: str) -> str | None:
    if not n.isdigit():
        return None
    k = int(n)
    if 102 <= k <= 113:
        return str(1600 + k - 101)
    if 121 <= k <= 141:
        return str(1510 + k)
    if k == 181:
        return "1667"
    if 182 <= k <= 187:
        return "1667" + "abcdef"[k - 182]
    return None


def _ecoa(n: str) -> str | None:
    special = {"704A": "1691c-1", "704B": "1691c-2"}
    if n in special:
        return special[n]
    if n.isdigit() and 701 <= int(n) <= 707:
        return "1691" + ["", "a", "b", "c", "d", "e", "f"][int(n) - 701]
    return None


def _efta(n: str) -> str | None:
    if not n.isdigit():
        return None
    k = int(n)
    table = {
        902: "1693",
        915: "1693l-1",
        916: "1693m",
        917: "1693n",
        918: "1693o",
        919: "1693o-1",
        920: "1693o-2",
        921: "1693p",
        922: "1693q",
    }
    if k in table:
        return table[k]
    if 903 <= k <= 914:
        return "1693" + "abcdefghijkl"[k - 903]
    return None


_ACT_MAPPERS = {"tila": _tila, "ecoa": _ecoa, "efta": _efta}
_PART_ACT = {"1013": "tila", "1026": "tila", "1002": "ecoa", "1005": "efta"}
_ACT_NAMES = {
    "truth in lending act": "tila",
    "consumer leasing act": "tila",
    "equal credit opportunity act": "ecoa",
    "electronic fund transfer act": "efta",
    "efta": "efta",
    "tila": "tila",
    "ecoa": "ecoa",
}

_SUB = r"(?:\((?:[A-Za-z0-9]{1,4})\))"
_USC = re.compile(
    r"\b(?P<title>\d{1,2})\s+U\.\s?S\.\s?C\.\s*(?:§+\s*)?(?P<sec>\d+[a-z]*(?:-\d+)?)"
    rf"(?P<sub>{_SUB}*)(?P<etseq>,?\s+et\s+seq\.)?"
)
_ITEM = rf"(?:\d+[A-Z]?{_SUB}*|{_SUB}+)"
_SECTIONS_OF = re.compile(
    rf"\b[Ss]ections?\s+(?P<list>{_ITEM}(?:(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|through)\s+)"
    rf"{_ITEM})*)\s+of\s+(?:the\s+)?(?P<act>Act|act|Federal act|Truth in Lending Act|"
    r"Consumer Leasing Act|Equal Credit Opportunity Act|Electronic Fund Transfer Act)\b"
)
_ACT_SECTIONS = re.compile(
    rf"\b(?P<act>EFTA|TILA|ECOA)\s+[Ss]ections?\s+(?P<list>{_ITEM}(?:(?:\s*,\s*(?:and\s+|or\s+)?"
    rf"|\s+(?:and|or|through)\s+){_ITEM})*)"
)
_ITEM_SPLIT = re.compile(rf"{_ITEM}|through")
_CUE = re.compile(
    r"\b(?:to implement|implements|implementing the|issued (?:under|pursuant to)|pursuant to|"
    r"carries out|carry out|under the authority of)\b",
    re.I,
)
_SENTENCE = re.compile(r"(?<=[.;:])\s+(?=[A-Z(“\"§])")


def _usc_id(title: str, sec: str, sub: str) -> str:
    path = "".join("/" + s for s in re.findall(r"\(([^)]+)\)", sub))
    return f"/us/usc/t{title}/s{sec}{path}"


_NAMED_ACT = re.compile(
    r"\b(?:(?P<cla>consumer leasing provisions of the Truth in Lending Act|Consumer Leasing Act)"
    r"|(?P<tila>Truth in Lending Act)|(?P<ecoa>Equal Credit Opportunity Act)"
    r"|(?P<efta>Electronic Fund Transfer Act))\b",
    re.I,
)
_ACT_ROOT = {"cla": "1667", "tila": "1601", "ecoa": "1691", "efta": "1693"}


@dataclass(slots=True)
class _Mention:
    text: str
    start: int
    target: str | None  # canonical U.S.C. id, None when the section maps to none known
    why: str
    cue_only: bool = False  # a bare act name: a link only where the sentence says "implement"


def _statute_mentions(text: str, part: str) -> list[_Mention]:
    out: list[_Mention] = []
    for m in _USC.finditer(text):
        out.append(_Mention(m.group(0), m.start(), _usc_id(m["title"], m["sec"], m["sub"]), ""))
    for m in _NAMED_ACT.finditer(text):
        key = m.lastgroup or ""
        out.append(_Mention(m.group(0), m.start(), f"/us/usc/t15/s{_ACT_ROOT[key]}", "", True))
    for rx in (_SECTIONS_OF, _ACT_SECTIONS):
        for m in rx.finditer(text):
            act_word = m["act"]
            act = _ACT_NAMES.get(act_word.lower()) or (
                _PART_ACT.get(part) if act_word.lower() in ("act", "federal act") else None
            )
            mapper = _ACT_MAPPERS.get(act or "")
            items = _ITEM_SPLIT.findall(m["list"])
            last_num: str | None = None
            prev_through = False
            for item in items:
                if item == "through":
                    prev_through = True
                    continue
                num_m = re.match(r"(\d+[A-Z]?)", item)
                if num_m:
                    num, sub = num_m.group(1), item[num_m.end() :]
                    nums = [num]
                    if prev_through and last_num and last_num.isdigit() and num.isdigit():
                        lo, hi = int(last_num), int(num)
                        if 0 < hi - lo <= 20:
                            nums = [str(k) for k in range(lo + 1, hi + 1)]
                    last_num = num
                else:  # "(c)" continuing the previous number
                    if last_num is None:
                        continue
                    nums, sub = [last_num], item
                prev_through = False
                for num in nums:
                    usc = mapper(num) if mapper else None
                    target = _usc_id("15", usc, sub) if usc else None
                    why = "" if usc else f"section {num} of {act_word}: no U.S.C. section known"
                    out.append(_Mention(m.group(0), m.start(), target, why))
    return out


# ---------------------------------------------------------------------------------------
# Labels to ids.

_SCOPE = re.compile(
    r"\b(?:for (?:the )?purposes? of|as used in)\s+this\s+"
    r"(part|subpart|section|paragraph|appendix)\b",
    re.I,
)
_SCOPE_PARA_OF = re.compile(
    r"\bfor (?:the )?purposes? of paragraph\s+(?P<path>(?:\([A-Za-z0-9]+\))+)\s+of this section\b",
    re.I,
)
_SCOPE_IN = re.compile(r"\bin\s+this\s+(part|subpart|section|paragraph|appendix)\b", re.I)
_INTERP = re.compile(r"^(?P<pre>.+?)-Interp(?:-(?P<suf>.+))?$")
_UNMARKED = re.compile(r"^(?:[ph]\d+|unl\d+)$")


def _clean(tok: str) -> str:
    """A label token as an id segment: 'e' -> 'e', '30(a)' -> '30-a' (distinct from '30a')."""
    tok = re.sub(r"\(([^)]*)\)", r"-\1", tok)
    return re.sub(r"[^A-Za-z0-9.-]", "", tok).strip("-")


def _slug(term: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", term.lower()).strip("-") or "term"


@dataclass(slots=True)
class _Frame:
    node_id: str
    kind: str
    text: str
    intro: list[str] = field(default_factory=list)  # earlier unmarked child paragraphs


class _Parser:
    def __init__(self, text: str, root: etree._Element, source_id: str) -> None:
        self.text = text
        self.src = source_id
        self.nodes: list[Node] = []
        self.by_id: dict[str, Node] = {}
        self.edges: dict[tuple[str, str, EdgeType], Edge] = {}
        self.unresolved: list[UnresolvedRef] = []
        self.warnings: list[str] = []
        self.label_node: dict[str, str] = {}
        self.defs_by_label: dict[str, list[tuple[str, str]]] = {}
        # src node, <ref>, its text, target, reftype
        self.refs: list[tuple[str, etree._Element, str, str, str]] = []
        self.interps: list[tuple[str, str, etree._Element]] = []  # node id, label prefix, el
        self.elements: dict[etree._Element, tuple[int, int]] = {}
        spans = _element_spans(text, source_id)
        elements = [el for el in root.iter() if isinstance(el.tag, str)]
        if len(elements) != len(spans):
            raise IngestError(source_id, "offsets", "tokenizer and parser disagree on elements")
        for el, (name, s, e) in zip(elements, spans, strict=True):
            if _local(el) != name:
                raise IngestError(
                    source_id, f"offset {s}", f"expected <{_local(el)}>, saw <{name}>"
                )
            self.elements[el] = (s, e)
        self.root = root

    # -- helpers ------------------------------------------------------------------------
    def prov(self, el: etree._Element, confidence: float = 1.0) -> Provenance:
        return Provenance(self.src, self.elements[el], PARSER_VERSION, confidence)

    def add_edge(self, src: str, dst: str, etype: EdgeType, prov: Provenance, **attrs) -> None:
        key = (src, dst, etype)
        edge = self.edges.get(key)
        if edge is None:
            self.edges[key] = Edge(src, dst, etype, prov, attrs)
        elif "count" in edge.attrs:
            edge.attrs["count"] += 1

    def add_node(self, node: Node, el: etree._Element) -> Node:
        if node.id in self.by_id:
            k = 2
            while f"{node.id}~{k}" in self.by_id:
                k += 1
            self.warnings.append(
                f"{self.src}: line {el.sourceline}: duplicate id {node.id}; kept as {node.id}~{k}"
            )
            node.id = f"{node.id}~{k}"
        node.effective_from = self.eff
        self.nodes.append(node)
        self.by_id[node.id] = node
        label = node.attrs.get("label")
        if label and label not in self.label_node:
            self.label_node[label] = node.id
        if node.parent:
            self.add_edge(node.parent, node.id, EdgeType.CONTAINS, node.provenance)
        return node

    def add_section(
        self,
        el: etree._Element,
        nid: str,
        parent_id: str,
        text: str,
        heading: str,
        citation: str,
        path: str,
        authority: Authority = Authority.REGULATION,
    ) -> Node:
        """Add a section-level node (subpart, section, appendix, interpretations) for `el`;
        an empty heading becomes None."""
        attrs = {"label": el.get("label") or "", "hierarchy_path": path}
        node = Node(
            nid,
            NodeType.SECTION,
            text,
            self.prov(el),
            JURISDICTION,
            authority,
            parent_id,
            heading or None,
            citation,
            attrs=attrs,
        )
        return self.add_node(node, el)

    def reg_id(self, label: str) -> str | None:
        """Canonical id of a regulation-text label (no -Interp), or None."""
        toks = label.split("-")
        if toks[0] != self.part:
            return None
        if len(toks) == 1:
            return self.part_id
        if toks[1] == "Subpart":
            return f"{self.part_id}/subpart" + (f"-{_clean(toks[2])}" if len(toks) > 2 else "")
        if toks[1] == "Appendices":
            return f"{self.part_id}/appendices"
        rest = "".join("/" + _clean(t) for t in toks[2:])
        if re.fullmatch(r"\d+[a-z]*", toks[1]):
            return f"/us/cfr/t{self.title}/s{self.part}.{toks[1]}{rest}"
        if re.fullmatch(r"[A-Z]{1,2}", toks[1]):
            return f"{self.part_id}/app{toks[1]}{rest}"
        return None

    def label_id(self, label: str) -> str | None:
        m = _INTERP.match(label)
        if not m:
            return self.reg_id(label)
        pre, suf = m["pre"], m["suf"]
        if pre == self.part:
            base = self.supp_id
        else:
            rid = self.reg_id(pre)
            if rid is None:
                return None
            for prefix in (self.part_id + "/", f"/us/cfr/t{self.title}/"):
                if rid.startswith(prefix):
                    rid = rid[len(prefix) :]
                    break
            base = f"{self.supp_id}/{rid}"
        if not suf:
            return base
        toks = suf.split("-")
        path = []
        if re.fullmatch(r"h\d+", toks[0]):
            path.append(toks.pop(0))
        if toks:
            path.append("cmt" + _clean(toks[0]))
            path.extend(_clean(t) for t in toks[1:])
        return base + "".join("/" + p for p in path)

    def designation(self, pre: str) -> str:
        """Comment designation of a regulation label: '2(e)(1)', 'app. A-1', 'I'."""
        toks = pre.split("-")[1:]
        if not toks:
            return "I"
        if toks[0] == "Appendices":
            return "app."
        if re.fullmatch(r"[A-Z]{1,2}", toks[0]):
            return "app. " + "-".join(toks)
        return toks[0] + "".join(f"({t})" for t in toks[1:] if not _UNMARKED.match(t))

    # -- walk ---------------------------------------------------------------------------
    def parse(self) -> ParsedDocument:
        root = self.root
        if _local(root) != "regulation":
            raise IngestError(
                self.src,
                f"line {root.sourceline}",
                f"root element <{_local(root)}> is not <regulation> (notices are change sets, "
                "not compiled versions)",
            )
        pre = root.find(NS + "preamble")
        fd = root.find(NS + "fdsys")
        part_el = root.find(NS + "part")
        if pre is None or part_el is None:
            raise IngestError(self.src, "preamble", "missing <preamble> or <part>")
        docnum = (pre.findtext(NS + "documentNumber") or "").strip()
        eff_text = (pre.findtext(NS + "effectiveDate") or "").strip()
        if not docnum:
            raise IngestError(self.src, "preamble/documentNumber", "missing")
        try:
            self.eff = date.fromisoformat(eff_text)
        except ValueError:
            raise IngestError(
                self.src, "preamble/effectiveDate", f"not an ISO date: {eff_text!r}"
            ) from None
        self.part = (part_el.get("label") or pre.findtext(f"{NS}cfr/{NS}section") or "").strip()
        self.title = (
            (fd.findtext(NS + "cfrTitleNum") if fd is not None else None)
            or pre.findtext(f"{NS}cfr/{NS}title")
            or ""
        ).strip()
        if not self.part.isdigit() or not self.title.isdigit():
            raise IngestError(self.src, "part", f"no CFR title/part: {self.title!r}/{self.part!r}")
        self.part_id = f"/us/cfr/t{self.title}/p{self.part}"
        self.supp_id = f"{self.part_id}/supp-i"
        self.base_cite = f"{self.title} CFR part {self.part}"
        self.edition = Edition(self.src, docnum, self.eff, None, docnum)

        name = (fd.findtext(NS + "title") if fd is not None else "") or ""
        letter = (pre.findtext(NS + "regLetter") or "").strip()
        heading = name.strip() + (f" (Regulation {letter})" if letter else "")
        doc = Node(
            self.part_id,
            NodeType.DOCUMENT,
            heading,
            self.prov(part_el),
            JURISDICTION,
            Authority.REGULATION,
            None,
            heading,
            self.base_cite,
            attrs={
                "label": self.part,
                "hierarchy_path": f"{self.title} CFR Part {self.part}",
                "document_number": docnum,
            },
        )
        self.add_node(doc, part_el)
        frame = _Frame(self.part_id, "part", heading)
        content = part_el.find(NS + "content")
        for ch in content if content is not None else []:
            self.walk_container(ch, doc, [frame])
        self.resolve()
        return ParsedDocument(
            self.edition, self.nodes, list(self.edges.values()), [], self.unresolved, self.warnings
        )

    def walk_container(self, el: etree._Element, parent: Node, frames: list[_Frame]) -> None:
        if not isinstance(el.tag, str):
            return
        name = _local(el)
        label = el.get("label") or ""
        path = parent.attrs["hierarchy_path"]
        if name == "subpart":
            title = _WS.sub(" ", el.findtext(NS + "title") or "").strip()
            if not title:  # the single unnamed subpart: no node of its own
                for ch in el.find(NS + "content") if el.find(NS + "content") is not None else []:
                    self.walk_container(ch, parent, frames)
                return
            letter = el.get("subpartLetter") or label.rsplit("-", 1)[-1]
            node = self.add_section(
                el,
                self.reg_id(label) or f"{self.part_id}/subpart-{_clean(letter)}",
                parent.id,
                title,
                title,
                f"{self.base_cite}, subpart {letter}",
                f"{path} > Subpart {letter}",
            )
            sub_frames = [*frames, _Frame(node.id, "subpart", title)]
            for ch in el.find(NS + "content") if el.find(NS + "content") is not None else []:
                self.walk_container(ch, node, sub_frames)
        elif name == "section":
            subject = _WS.sub(" ", el.findtext(NS + "subject") or "").strip()
            sec = el.get("sectionNum") or label.split("-")[1]
            head = re.sub(r"^§+\s*[\d.]+\s*", "", subject)
            node = self.add_section(
                el,
                self.reg_id(label) or f"/us/cfr/t{self.title}/s{self.part}.{sec}",
                parent.id,
                subject,
                head,
                f"{self.title} CFR {self.part}.{sec}",
                f"{path} > § {self.part}.{sec}",
            )
            self.walk_children(el, node, [*frames, _Frame(node.id, "section", subject)])
        elif name == "appendix":
            letter = el.get("appendixLetter") or label.rsplit("-", 1)[-1]
            title = _WS.sub(" ", el.findtext(NS + "appendixTitle") or "").strip()
            node = self.add_section(
                el,
                self.reg_id(label) or f"{self.part_id}/app{letter}",
                parent.id,
                title,
                title,
                f"{self.base_cite}, App. {letter}",
                f"{path} > Appendix {letter}",
            )
            self.walk_children(el, node, [*frames, _Frame(node.id, "appendix", title)])
        elif name == "interpretations":
            title = _WS.sub(" ", el.findtext(NS + "title") or "").strip()
            nid = self.label_id(label) or self.supp_id
            par = parent
            if nid != self.supp_id and self.supp_id in self.by_id:
                par = self.by_id[self.supp_id]
            seg = "Supplement I" if nid == self.supp_id else (title or "Appendices")
            node = self.add_section(
                el,
                nid,
                par.id,
                title,
                title,
                f"{self.base_cite}, Supp. I",
                f"{par.attrs['hierarchy_path']} > {seg}",
                Authority.INTERPRETATION,
            )
            self.walk_children(el, node, [*frames, _Frame(node.id, "supp", title)])

    def walk_children(self, el: etree._Element, node: Node, frames: list[_Frame]) -> None:
        k = 0
        for ch in el:
            if not isinstance(ch.tag, str):
                continue
            name = _local(ch)
            if name in ("paragraph", "interpParagraph"):
                k += 1
                self.walk_paragraph(ch, node, frames, k)
            elif name in ("appendixSection", "interpSection"):
                self.walk_section_like(ch, node, frames)
            elif name == "reserved":
                if "[Reserved]" not in node.text:
                    node.text = (node.text + " [Reserved]").strip()
                node.attrs["reserved"] = True

    def walk_section_like(self, el: etree._Element, parent: Node, frames: list[_Frame]) -> None:
        name = _local(el)
        label = el.get("label") or ""
        path = parent.attrs["hierarchy_path"]
        if name == "appendixSection":
            subject = _WS.sub(" ", el.findtext(NS + "subject") or "").strip()
            tail = label.split("-", 2)[-1] if label.count("-") >= 2 else label
            letter = label.split("-")[1] if "-" in label else ""
            num = el.get("appendixSecNum") or tail
            marked = not _UNMARKED.match(tail)
            nid = self.reg_id(label) or f"{parent.id}/{_clean(num)}"
            node = self.add_section(
                el,
                nid,
                parent.id,
                subject,
                subject,
                f"{self.base_cite}, App. {letter}" + (f"-{tail}" if marked else ""),
                f"{path} > {letter}-{tail}",
            )
            self.walk_children(el, node, [*frames, _Frame(node.id, "appendixSection", subject)])
        else:  # interpSection
            title = _WS.sub(" ", el.findtext(NS + "title") or "").strip()
            m = _INTERP.match(label)
            pre = m["pre"] if m else ""
            desig = self.designation(pre) if pre else ""
            if pre and re.fullmatch(r"\d+-\d+[a-z]*", pre):
                cite_tail, seg = f"Section {pre.replace('-', '.')}", f"§ {pre.replace('-', '.')}"
            elif desig == "I":
                cite_tail, seg = "Introduction", title or "Introduction"
            else:
                cite_tail, seg = desig, desig or title
            nid = self.label_id(label) if label else None
            node = self.add_section(
                el,
                nid or f"{parent.id}/{_clean(label) or 'section'}",
                parent.id,
                title,
                title,
                f"{self.base_cite}, Supp. I, {cite_tail}",
                f"{path} > {seg}",
                Authority.INTERPRETATION,
            )
            if pre and pre != self.part:
                self.interps.append((node.id, pre, el))
            self.walk_children(el, node, [*frames, _Frame(node.id, "interpSection", title)])

    def walk_paragraph(
        self, el: etree._Element, parent: Node, frames: list[_Frame], k: int
    ) -> None:
        name = _local(el)
        interp = name == "interpParagraph"
        label = el.get("label") or ""
        marker = (el.get("marker") or "").strip()
        if marker == "Interp":
            marker = ""
        title_el = el.find(NS + "title")
        heading = _WS.sub(" ", "".join(title_el.itertext())).strip() if title_el is not None else ""
        content = el.find(NS + "content")
        flat = _Flat()
        if content is not None:
            flat.walk(content)
        text = flat.text()
        path = parent.attrs["hierarchy_path"]
        authority = Authority.INTERPRETATION if interp else Authority.REGULATION

        nid = self.label_id(label) if label else None
        if nid is None:
            nid = f"{parent.id}/unl{k}"
        if interp:
            m = _INTERP.match(label)
            pre, suf = (m["pre"], m["suf"]) if m else ("", None)
            if suf:
                toks = suf.split("-")
                if re.fullmatch(r"h\d+", toks[0]):
                    toks.pop(0)
                desig = self.designation(pre)
                comment = desig + "-" + ".".join(toks) if toks else desig
                citation = f"{self.base_cite}, Supp. I, comment {comment}"
                seg = marker or f"comment {comment}"
            else:
                desig = self.designation(pre)
                citation = f"{self.base_cite}, Supp. I, {desig}"
                seg = desig
        else:
            toks = label.split("-")
            if label and re.fullmatch(r"\d+[a-z]*", toks[1] if len(toks) > 1 else ""):
                own = [t for t in toks[2:] if not _UNMARKED.match(t)]
                citation = f"{self.title} CFR {self.part}.{toks[1]}" + "".join(
                    f"({t})" for t in own
                )
            else:
                own_tail = (
                    [
                        t
                        for t in label.split("-")[len(parent.attrs.get("label", "").split("-")) :]
                        if t and not _UNMARKED.match(t)
                    ]
                    if label
                    else []
                )
                citation = (parent.citation or "") + "".join(f"({t})" for t in own_tail)
            seg = marker or (label.rsplit("-", 1)[-1] if label else f"unl{k}")
        attrs: dict = {"hierarchy_path": f"{path} > {seg}"}
        if label:
            attrs["label"] = label
        if marker:
            attrs["marker"] = marker
        if flat.images:
            attrs["images"] = flat.images
        node = self.add_node(
            Node(
                nid,
                NodeType.CLAUSE,
                text,
                self.prov(el),
                JURISDICTION,
                authority,
                parent.id,
                heading or None,
                citation or None,
                attrs=attrs,
            ),
            el,
        )
        if interp and label:
            m = _INTERP.match(label)
            if m and m["pre"] != self.part:
                self.interps.append((node.id, m["pre"], el))

        # chapeau bookkeeping for definition scopes
        if frames and not marker and not interp:
            frames[-1].intro.append(text)
        here = _Frame(node.id, "paragraph", text)
        if content is not None:
            self.read_content(node, content, flat, [*frames, here])
        sub = 0
        for ch in el:
            if isinstance(ch.tag, str) and _local(ch) in ("paragraph", "interpParagraph"):
                sub += 1
                self.walk_paragraph(ch, node, [*frames, here], sub)

    # -- content: defs, refs, statutes --------------------------------------------------
    def read_content(
        self, node: Node, content: etree._Element, flat: _Flat, frames: list[_Frame]
    ) -> None:
        text = node.text
        for el, start, end in flat.marks:
            name = _local(el)
            if name == "def":
                self.define(node, el, start, end, text, frames)
            else:
                target = el.get("target") or ""
                reftype = el.get("reftype") or ""
                self.refs.append((node.id, el, text[start:end], target, reftype))
        mentions = _statute_mentions(text, self.part)
        if not mentions:
            return
        bounds = [0] + [m.end() for m in _SENTENCE.finditer(text)] + [len(text) + 1]
        ext_texts = [
            text[s:e]
            for el, s, e in flat.marks
            if _local(el) == "ref" and el.get("reftype") == "external" and text[s:e].strip()
        ]
        seen: set[tuple[str | None, str]] = set()
        for mention in mentions:
            i = max(j for j, b in enumerate(bounds) if b <= mention.start)
            sentence = text[bounds[i] : bounds[min(i + 1, len(bounds) - 1)]]
            if mention.target and _CUE.search(sentence):
                prov = Provenance(self.src, self.elements[content], PARSER_VERSION, 0.9)
                attrs = {"text": mention.text, "cue": _CUE.search(sentence).group(0)}
                self.add_edge(node.id, mention.target, EdgeType.DERIVED_FROM, prov, **attrs)
                first_section = f"/us/cfr/t{self.title}/s{self.part}.1"
                if node.id == first_section or node.id.startswith(first_section + "/"):
                    self.add_edge(
                        self.part_id,
                        mention.target,
                        EdgeType.DERIVED_FROM,
                        prov,
                        via=node.id,
                        **attrs,
                    )
                continue
            if mention.cue_only:
                continue
            if any(t in mention.text or mention.text in t for t in ext_texts):
                continue  # a typed <ref> already records it
            key = (mention.target, mention.text)
            if key in seen:
                continue
            seen.add(key)
            reason = (
                f"statute outside this document: {mention.target}"
                if mention.target
                else mention.why
            )
            self.unresolved.append(
                UnresolvedRef(
                    node.id,
                    mention.text,
                    Provenance(self.src, self.elements[content], PARSER_VERSION, 0.9),
                    reason,
                )
            )

    def define(
        self,
        node: Node,
        el: etree._Element,
        start: int,
        end: int,
        text: str,
        frames: list[_Frame],
    ) -> None:
        term = (el.get("term") or "".join(el.itertext())).strip()
        # the sentence holding the definition
        s0 = max([0] + [m.end() for m in _SENTENCE.finditer(text) if m.end() <= start])
        nxt = [m.start() for m in _SENTENCE.finditer(text) if m.start() >= end]
        sentence = text[s0 : (nxt[0] if nxt else len(text))].strip()
        before = text[s0:start]  # "in this part" counts only before the defined word
        scope_id, conf = self.scope(sentence, before, frames)
        tid = f"{scope_id}/term/{_slug(term)}"
        prov = self.prov(el, conf)
        if tid not in self.by_id:
            self.add_node(
                Node(
                    tid,
                    NodeType.DEFINED_TERM,
                    sentence,
                    prov,
                    JURISDICTION,
                    node.authority,
                    node.id,
                    term,
                    f"{node.citation} (“{term}”)" if node.citation else None,
                    attrs={
                        "term": term,
                        "scope": scope_id,
                        "hierarchy_path": f"{node.attrs['hierarchy_path']} > “{term}”",
                    },
                ),
                el,
            )
        self.add_edge(node.id, tid, EdgeType.DEFINES, prov, term=term)
        label = node.attrs.get("label")
        if label:
            self.defs_by_label.setdefault(label, []).append((term, tid))

    def scope(self, sentence: str, before: str, frames: list[_Frame]) -> tuple[str, float]:
        """The node a definition applies to, and the confidence in that reading."""

        def nearest(*kinds: str, upto: int | None = None) -> str | None:
            for f in reversed(frames[: (len(frames) if upto is None else upto + 1)]):
                if f.kind in kinds:
                    return f.node_id
            return None

        def resolve(m: re.Match, i: int) -> str:
            if m.re is _SCOPE_PARA_OF:
                sec = nearest("section", upto=i)
                if sec:
                    para = sec + "".join("/" + p for p in re.findall(r"\(([^)]+)\)", m["path"]))
                    return para if para in self.by_id else sec
                return self.part_id
            word = m.group(1).lower()
            if word == "paragraph":
                return frames[i].node_id if frames[i].kind == "paragraph" else frames[-1].node_id
            if word == "subpart":
                return nearest("subpart", upto=i) or self.part_id
            if word in ("section", "appendix"):
                return nearest(word, upto=i) or self.part_id
            return self.part_id

        last = len(frames) - 1
        for rx, t in ((_SCOPE_PARA_OF, sentence), (_SCOPE, sentence), (_SCOPE_IN, before)):
            m = rx.search(t)
            if m:
                return resolve(m, last), 1.0
        for i in range(last, -1, -1):
            f = frames[i]
            texts = [f.text, *reversed(f.intro)] if i == last else [*reversed(f.intro), f.text]
            for t in texts:
                m = _SCOPE_PARA_OF.search(t) or _SCOPE.search(t)
                if m:
                    return resolve(m, i), 1.0
        # No words say: a definitions section's terms apply to its subpart (or the part),
        # a definition elsewhere to its own section.
        for f in reversed(frames):
            if f.kind == "section":
                if "definition" in f.text.lower():
                    return nearest("subpart") or self.part_id, 0.8
                return f.node_id, 0.8
        return self.part_id, 0.8

    # -- final pass ---------------------------------------------------------------------
    def external_id(self, target: str) -> str | None:
        kind, _, rest = target.partition(":")
        bits = rest.split("-")
        if kind == "USC" and len(bits) >= 2 and bits[0] != "0":
            return f"/us/usc/t{bits[0]}/s{'-'.join(bits[1:])}"
        if kind == "CFR" and len(bits) == 2:
            return f"/us/cfr/t{bits[0]}/p{bits[1]}"
        if kind == "CFR" and len(bits) >= 3:
            return f"/us/cfr/t{bits[0]}/s{bits[1]}.{bits[2]}" + "".join("/" + b for b in bits[3:])
        if kind == "PUBLIC_LAW" and len(bits) == 2:
            return f"/us/pl/{bits[0]}/{bits[1]}"
        if kind == "STATUTES_AT_LARGE" and len(bits) >= 3:
            return f"/us/stat/{bits[0]}/{bits[-1]}"
        return None

    def resolve(self) -> None:
        for src, el, text, target, reftype in self.refs:
            prov = self.prov(el)
            dst = self.label_node.get(target)
            if dst is None and reftype == "external":
                ext = self.external_id(target)
                if ext in self.by_id:
                    dst = ext
                else:
                    why = f"outside this document: {target}" + (f" ({ext})" if ext else "")
                    self.unresolved.append(UnresolvedRef(src, text, prov, why))
                    continue
            if dst is None:
                self.unresolved.append(
                    UnresolvedRef(
                        src, text, prov, f"no element labelled {target!r} in this version"
                    )
                )
                continue
            if dst == src:
                continue
            self.add_edge(src, dst, EdgeType.CROSS_REFS, prov, text=text, reftype=reftype, count=1)
            if reftype == "term":
                terms = self.defs_by_label.get(target, [])
                low = text.lower().strip("“”\"' ")
                pick = [t for t in terms if low.startswith(t[0].lower())]
                chosen = (
                    max(pick, key=lambda t: len(t[0])) if pick else (terms[0] if terms else None)
                )
                if chosen:
                    self.add_edge(src, chosen[1], EdgeType.USES, prov, text=text, via="ref")
        for nid, pre, el in self.interps:
            target = self.label_node.get(pre)
            exact = True
            if target is None:
                exact = False
                toks = pre.split("-")
                while len(toks) > 1 and target is None:
                    toks.pop()
                    target = self.label_node.get("-".join(toks))
                self.warnings.append(
                    f"{self.src}: line {el.sourceline}: {nid} interprets {pre!r}, absent from "
                    f"this version; linked to {target}"
                )
            if target:
                attrs = {"label": pre} if exact else {"label": pre, "exact": False}
                self.add_edge(nid, target, EdgeType.INTERPRETS, self.prov(el), **attrs)


def parse_regml(path: Path, source_id: str | None = None) -> ParsedDocument:
    """Parse one RegML regulation version; see the module docstring for what it yields."""
    path = Path(path)
    src = source_id or default_source_id(path)
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise IngestError(src, f"byte {exc.start}", "not UTF-8") from None
    try:
        root = etree.fromstring(
            raw, etree.XMLParser(huge_tree=True, resolve_entities=False, no_network=True)
        )
    except etree.XMLSyntaxError as exc:
        raise IngestError(src, f"line {exc.lineno}", f"not well-formed XML: {exc.msg}") from None
    return _Parser(text, root, src).parse()
