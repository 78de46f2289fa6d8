"""Parser for the US Code annual-edition XHTML files (uscode.house.gov "xhtml" downloads).

One file is one title (or title appendix) of one edition. The markup is flat: every item
(title, chapter, subchapter, section, ...) starts with an `<!-- itempath:/110/CHAPTER 5/... -->`
comment, and its parts are bracketed by `<!-- field-start:X -->` / `<!-- field-end:X -->`
comments (`head`, `statute`, `sourcecredit`, `notes`, `amendment-note`, ...). Statutory text
is a run of `<p class="statutory-body[-Nem|-block|-flushN_hangM]">` paragraphs whose leading
enumerators ("(c)", "(e)(1)", "(A)(i)") and indentation give the hierarchy.

`parse_uscode` returns one `ParsedDocument` per file:

* nodes: the title (`/us/usc/t11`, type Document, attrs level "title"), its structural
  containers (`/us/usc/t11/ch5`, `/us/usc/t11/ch5/schIII`: type Document, attrs level
  "chapter"/"subchapter"/...), sections (`/us/usc/t11/s547`, type Section; appendix titles
  nest sections and rules under their container, `/us/usc/t11a/.../r1001`), the subsection ->
  paragraph -> subparagraph -> clause -> subclause -> item hierarchy as Clause nodes
  (`/us/usc/t11/s101/31/A/i`), editorial notes as Note nodes (`/us/usc/t11/s547/note/amendments`,
  one per note heading, the id slug taken from the heading so that it is stable across
  editions), and DefinedTerm nodes (see `defined_terms`).
* edges: contains (parent -> child, not for notes and terms), annotates (note -> item),
  defines (see `defined_terms`), cross_refs (see `crossrefs`).
* facts: EFFECTIVE_DATE facts read from effective-date and "Adjustment of Dollar Amounts"
  notes (on the section id), and, for Title 11, the THRESHOLD facts of `dollar_adjustments`.
  Text facts (amounts, durations, dates) and USES edges are *not* added here: the pipeline
  runs `text_facts.extract_text_facts` and `defined_terms.link_term_uses` over every document.

Offsets: `Provenance.span` is `[start, end)` in `path.read_bytes().decode("utf-8")` - the file
decoded *without* newline translation (the files have CRLF and stray CR line ends), covering the
whole element (`<p ...>...</p>`) a node was read from. Node.text is that element's text with
tags removed, entities decoded, whitespace collapsed and the leading enumerators removed (they
are in attrs["num"]). A container's text is its chapeau, plus any flush text that follows its
list (attrs["continuation"] holds the flush parts).
"""

from __future__ import annotations

import calendar
import html
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

from structfirst.ingest import crossrefs, defined_terms
from structfirst.ingest.corpus import default_source_id
from structfirst.ingest.model import (
    Authority,
    Edge,
    EdgeType,
    Edition,
    Fact,
    FactKind,
    IngestError,
    Node,
    NodeType,
    ParsedDocument,
    Provenance,
)

PARSER_VERSION = "uscode-xhtml/1"
JURISDICTION = "us-federal"

__all__ = [
    "PARSER_VERSION",
    "MissingSourceError",
    "parse_uscode",
    "parse_date",
    "clean_html",
    "read_source",
    "LEVEL_NAMES",
    "Element",
    "iter_elements",
    "split_enums",
    "DATE_PATTERN",
]


class MissingSourceError(IngestError, FileNotFoundError):
    """The source file does not exist (an IngestError that is also a FileNotFoundError)."""


# ----------------------------------------------------------------------------- text helpers

_BLOCK_TAG_RE = re.compile(
    r"</?(?:p|br|div|td|th|tr|table|caption|h[1-6]|li|ul|ol)\b[^>]*>|<!--.*?-->", re.S | re.I
)
_TAG_RE = re.compile(r"</?[A-Za-z][^>]*>", re.S)
_FOOTNOTE_SUP_RE = re.compile(r"<sup>\s*(?:<a\b[^>]*>[^<]*</a>|\d{1,2})\s*</sup>", re.S)
_WS_RE = re.compile(r"\s+")


def clean_html(fragment: str) -> str:
    """Text of an HTML fragment: footnote markers and tags removed, entities decoded,
    whitespace collapsed."""
    fragment = _FOOTNOTE_SUP_RE.sub("", fragment)
    text = _TAG_RE.sub("", _BLOCK_TAG_RE.sub(" ", fragment)) if "<" in fragment else fragment
    if "&" in text:
        text = html.unescape(text)
    return _WS_RE.sub(" ", text).strip()


def read_source(path: Path, source_id: str) -> str:
    """The decoded file text (no newline translation); IngestError on bad input."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise MissingSourceError(source_id, "open", f"file not found: {path}") from None
    except IsADirectoryError:
        raise IngestError(source_id, "open", f"is a directory, not a file: {path}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        problem = (
            "file ends inside a UTF-8 character (file truncated?)"
            if exc.reason == "unexpected end of data"
            else f"not UTF-8 ({exc.reason})"
        )
        raise IngestError(source_id, f"line {line}, byte offset {exc.start}", problem) from None


MONTHS = {
    "jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4,
    "april": 4, "may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8,
    "sep": 9, "sept": 9, "september": 9, "oct": 10, "october": 10, "nov": 11, "november": 11,
    "dec": 12, "december": 12,
}  # fmt: skip
DATE_PATTERN = (
    r"(?:Jan(?:uary|\.)?|Feb(?:ruary|\.)?|Mar(?:ch|\.)?|Apr(?:il|\.)?|May|June?|July?|"
    r"Aug(?:ust|\.)?|Sep(?:t(?:ember|\.)|\.)|Oct(?:ober|\.)?|Nov(?:ember|\.)?|Dec(?:ember|\.)?)"
    r"\s+\d{1,2},\s+\d{4}"
)
_DATE_PARTS_RE = re.compile(r"([A-Za-z]+)\.?\s+(\d{1,2}),\s+(\d{4})")


def parse_date(text: str) -> date | None:
    """'Apr. 1, 2019' / 'April 1, 2019' / 'Sept. 30, 2019' -> date, else None."""
    m = _DATE_PARTS_RE.search(text)
    if not m:
        return None
    month = MONTHS.get(m.group(1).lower())
    if not month:
        return None
    try:
        return date(int(m.group(3)), month, int(m.group(2)))
    except ValueError:
        return None


def slugify(text: str) -> str:
    text = html.unescape(text).lower().replace("'", "").replace("’", "")
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-") or "x"


# ----------------------------------------------------------------------------- enumerators

LEVEL_NAMES = (
    "subsection", "paragraph", "subparagraph", "clause", "subclause", "item", "subitem",
    "subsubitem",
)  # fmt: skip
_HEAD_CLASS_LEVEL = {f"{name}-head": i for i, name in enumerate(LEVEL_NAMES)}
_HEAD_CLASS_LEVEL["subsubclause-head"] = 5

_ROMAN_RE = re.compile(r"^m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$")
_ROMAN_VAL = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
ENUM_TOKEN = r"\((?:\d{1,4}[A-Z]{0,3}(?:-\d{1,3})?|[a-z]{1,6}|[A-Z]{1,6})\)"
_LEAD_ENUMS_RE = re.compile(rf"^\s*((?:{ENUM_TOKEN}\s?)+)")
_ENUM_RE = re.compile(r"\(([^)]+)\)")
_NUM_RE = re.compile(r"(\d+)([A-Z]{0,3})(?:-(\d+))?$")


def _roman_value(s: str) -> int | None:
    s = s.lower()
    if not s or not _ROMAN_RE.match(s):
        return None
    total = 0
    for i, ch in enumerate(s):
        v = _ROMAN_VAL[ch]
        total += -v if i + 1 < len(s) and _ROMAN_VAL[s[i + 1]] > v else v
    return total


def _suffix_value(s: str) -> int:
    v = 0
    for ch in s:
        v = v * 27 + (ord(ch) - 64)
    return v


def enum_candidates(tok: str) -> list[tuple[int, tuple[int, int]]]:
    """The (level, ordinal) readings of an enumerator such as "c", "4A", "ii", "I", "aa"."""
    out: list[tuple[int, tuple[int, int]]] = []
    m = _NUM_RE.match(tok)
    if m:
        out.append((1, (int(m.group(1)), _suffix_value(m.group(2)) * 1000 + int(m.group(3) or 0))))
        return out
    if not tok.isalpha():
        return out
    # the levels of a single letter, a roman numeral, a doubled and a tripled letter, by case
    if tok.islower():
        letter, roman, double, triple, before_a = 0, 3, 5, 7, ord("a") - 1
    elif tok.isupper():
        letter, roman, double, triple, before_a = 2, 4, 6, None, ord("A") - 1
    else:
        return out
    same = len(set(tok)) == 1
    if len(tok) == 1:
        out.append((letter, (ord(tok) - before_a, 0)))
    rv = _roman_value(tok)
    if rv:
        out.append((roman, (rv, 0)))
    if same and len(tok) == 2:
        out.append((double, (ord(tok[0]) - before_a, 0)))
    if same and len(tok) == 3 and triple is not None:
        out.append((triple, (ord(tok[0]) - before_a, 0)))
    return out


def _is_successor(prev: tuple[int, int], new: tuple[int, int]) -> bool:
    if new == (prev[0] + 1, 0):
        return True
    return new[0] == prev[0] and new[1] > prev[1] and new[1] - prev[1] <= 1000


def split_enums(text: str) -> tuple[list[str], str]:
    """Leading enumerators of a paragraph's text and the rest: "(e)(1) For ..." ->
    (["e", "1"], "For ...")."""
    m = _LEAD_ENUMS_RE.match(text)
    if not m:
        return [], text
    toks = _ENUM_RE.findall(m.group(1))
    if not all(enum_candidates(t) for t in toks):
        return [], text
    return toks, text[m.end() :].lstrip()


# ----------------------------------------------------------------------------- tokens


@dataclass(slots=True)
class Element:
    """A comment or a block element (h1-h6, p, table) of the file, with its offsets."""

    kind: str  # "comment" | "h1".."h6" | "p" | "table"
    start: int
    end: int
    cls: str = ""
    inner: str = ""  # comment body or the element's inner HTML


_TOKEN_RE = re.compile(r"<!--(.*?)-->|<(h[1-6]|p|table)\b([^>]*)>", re.S | re.I)
_CLASS_RE = re.compile(r'class="([^"]*)"')
_INNER_BREAK_RE = re.compile(r"<(?:p|h[1-6]|table|div)\b|<!--", re.I)


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def iter_elements(text: str, source_id: str) -> Iterator[Element]:
    """Comments and block elements in file order; IngestError on an element cut off by EOF."""
    pos = 0
    n = len(text)
    while True:
        m = _TOKEN_RE.search(text, pos)
        if not m:
            return
        if m.group(1) is not None:
            yield Element("comment", m.start(), m.end(), inner=m.group(1).strip())
            pos = m.end()
            continue
        tag = m.group(2).lower()
        attrs = m.group(3) or ""
        cm = _CLASS_RE.search(attrs)
        cls = cm.group(1) if cm else ""
        if attrs.rstrip().endswith("/"):  # <p/>
            pos = m.end()
            continue
        close_tag = f"</{tag}>"
        close = text.find(close_tag, m.end())
        if close < 0:
            close = text.lower().find(close_tag, m.end())
        if tag == "p":
            brk = _INNER_BREAK_RE.search(text, m.end(), close if close >= 0 else n)
            if brk:  # unclosed <p>: it ends where the next block starts
                yield Element(tag, m.start(), brk.start(), cls, text[m.end() : brk.start()])
                pos = brk.start()
                continue
        if close < 0:
            raise IngestError(
                source_id,
                f"line {_line_of(text, m.start())}, offset {m.start()}",
                f'unexpected end of file inside <{tag} class="{cls}"> (file truncated?)',
            )
        end = close + len(close_tag)
        yield Element(tag, m.start(), end, cls, text[m.end() : close])
        pos = end


# ----------------------------------------------------------------------------- item labels

_CONTAINER_PREFIX = [
    (re.compile(r"^SUBCHAPTERS?\b", re.I), "sch", "Subchapter"),
    (re.compile(r"^CHAPTERS?\b", re.I), "ch", "Chapter"),
    (re.compile(r"^SUBTITLES?\b", re.I), "st", "Subtitle"),
    (re.compile(r"^TITLES?\b", re.I), "tit", "Title"),
    (re.compile(r"^SUBPARTS?\b", re.I), "spt", "Subpart"),
    (re.compile(r"^PARTS?\b", re.I), "pt", "Part"),
    (re.compile(r"^SUBDIVISIONS?\b", re.I), "sdv", "Subdivision"),
    (re.compile(r"^DIVISIONS?\b", re.I), "dv", "Division"),
    (re.compile(r"^ARTICLES?\b", re.I), "art", "Article"),
    (re.compile(r"^RULES?\b", re.I), "r", "Rule"),
    (re.compile(r"^FORMS?\b", re.I), "form", "Form"),
]
_SEC_LABEL_RE = re.compile(r"^Secs?\.\s*(.+)$", re.I)
_DUP_SUFFIX_RE = re.compile(r"_\d+$")


def _norm_num(s: str) -> str:
    s = s.replace("–", "-").replace("—", "-").strip().rstrip(".")
    s = re.sub(r"\s*,\s*(?:and\s+)?|\s+and\s+", "and", s)
    s = re.sub(r"\s+(?:to|through)\s+", "to", s)
    return re.sub(r"[^A-Za-z0-9.\-]+", "", s) or "x"


def _label_parts(label: str) -> tuple[str, str, str, str]:
    """An itempath segment -> (kind, id segment, display label, status)."""
    status = "repealed" if label.startswith("[") else ""
    lab = _DUP_SUFFIX_RE.sub("", label.strip().lstrip("[").rstrip("]").strip())
    m = _SEC_LABEL_RE.match(lab)
    if m:
        num = m.group(1)
        multi = bool(re.search(r"\bto\b|,|\band\b", num))
        return "section", "s" + _norm_num(num), ("§§ " if multi else "§ ") + num.strip(), status
    for rx, prefix, word in _CONTAINER_PREFIX:
        mm = rx.match(lab)
        if mm:
            rest = lab[mm.end() :].strip()
            if not rest:
                break
            first = rest.split(".")[0] if prefix in ("art", "r", "form") else rest
            kind = "rule" if prefix in ("r", "form") else "container"
            return kind, prefix + _norm_num(first), f"{word} {rest}", status
    return "container", slugify(lab), lab.title() if lab.isupper() else lab, status


_SECTION_HEAD_RE = re.compile(
    r"^\[?\s*(?:§§?|Rules?|Forms?)\s*([0-9A-Za-z.\-–]+(?:\s*(?:,|to|and|through)\s*[0-9A-Za-z\-–]+)*)"
    r"\s*\.?\s*(.*?)\]?$",
    re.S,
)


def _status_of(heading: str) -> str:
    h = heading.lower()
    for word in ("repealed", "omitted", "reserved", "transferred", "renumbered", "vacant"):
        if h.startswith(word) or h.startswith("[" + word):
            return word
    return ""


# ----------------------------------------------------------------------------- parser state


@dataclass(slots=True)
class _Open:
    level: int
    ordinal: tuple[int, int]
    node: Node
    indent: int | None
    pending: bool = False  # a heading-only node waiting for its text


@dataclass(slots=True)
class _Item:
    path: str
    label: str
    kind: str  # "section" | "container" | "rule" | "skip"
    node: Node | None = None
    stack: list[_Open] = field(default_factory=list)
    note: Node | None = None
    note_parts: list[str] = field(default_factory=list)
    note_group: str | None = None
    used_ids: set[str] = field(default_factory=set)


_NOTE_FIELDS_KEEPING_NOTE = {"sectionreferredto", "notes"}
_STRUCTURAL_HEAD_FIELDS = {
    "structuralhead", "titlehead", "largeitemhead", "reorganizationplan-head",
}  # fmt: skip
_SECTION_HEAD_FIELDS = {"head", "repealedhead", "omittedhead"}
_SKIP_FIELDS = {"analysis", "usctable1-analysis"}
_INDENT_RE = re.compile(r"-(\d+)em\b")
_FLUSH_RE = re.compile(r"flush(\d+)")


def _indent_of(cls: str) -> int:
    m = _INDENT_RE.search(cls)
    if m:
        return int(m.group(1))
    m = _FLUSH_RE.search(cls)
    return int(m.group(1)) if m else 0


class _Parser:
    def __init__(self, text: str, source_id: str) -> None:
        self.text = text
        self.source_id = source_id
        self.meta: dict[str, str] = {}
        self.doc = ParsedDocument(edition=Edition(source_id, "", date(1900, 1, 1)))
        self.nodes_by_id: dict[str, Node] = {}
        self.path_nodes: dict[str, Node] = {}
        self.root: Node | None = None
        self.title_num = ""
        self.title_key = ""
        self.appendix = False
        self.item: _Item | None = None
        self.fields: list[str] = []
        self.remap: tuple[str, str] | None = None
        self.effective: date | None = None
        self.foreign_warned = False

    # -- helpers ---------------------------------------------------------------------------
    def prov(self, start: int, end: int, confidence: float = 1.0) -> Provenance:
        return Provenance(self.source_id, (start, end), PARSER_VERSION, confidence)

    def where(self, offset: int) -> str:
        return f"line {_line_of(self.text, offset)}, offset {offset}"

    def unique_id(self, node_id: str) -> str:
        if node_id not in self.nodes_by_id:
            return node_id
        k = 2
        while f"{node_id}_{k}" in self.nodes_by_id:
            k += 1
        return f"{node_id}_{k}"

    def add_node(self, node: Node, contains: bool = True) -> Node:
        node.id = self.unique_id(node.id)
        node.effective_from = self.effective
        self.nodes_by_id[node.id] = node
        self.doc.nodes.append(node)
        if contains and node.parent:
            self.doc.edges.append(Edge(node.parent, node.id, EdgeType.CONTAINS, node.provenance))
        return node

    # -- header ----------------------------------------------------------------------------
    def header(self, comment: str) -> None:
        key, _, value = comment.partition(":")
        self.meta[key.strip()] = value.strip()

    def start_document(self, first_path: str, offset: int) -> None:
        name = self.meta.get("AUTHORITIES-PUBLICATION-NAME")
        enum = self.meta.get("AUTHORITIES-USC-TITLE-ENUM")
        through = self.meta.get("AUTHORITIES-LAWS-ENACTED-THROUGH-DATE", "")
        if not name or not enum:
            raise IngestError(
                self.source_id,
                self.where(offset),
                "not a US Code title file: no AUTHORITIES-PUBLICATION-NAME / "
                "AUTHORITIES-USC-TITLE-ENUM header before the first item",
            )
        try:
            eff = date(int(through[:4]), int(through[4:6]), int(through[6:8]))
        except ValueError:
            year = self.meta.get("AUTHORITIES-PUBLICATION-YEAR", "")
            if not year.isdigit():
                raise IngestError(
                    self.source_id, "header", f"bad laws-enacted-through date {through!r}"
                ) from None
            eff = date(int(year), 12, 31)
        self.effective = eff
        root_seg = first_path.strip("/").split("/")[0]
        title_name = self.meta.get("AUTHORITIES-USC-TITLE-NAME", "")
        self.appendix = (
            enum.lower().endswith("a")
            or "APPENDIX" in title_name.upper()
            or (root_seg.isdigit() and root_seg.endswith("1") and len(root_seg) >= 3)
        )
        self.title_num = enum.rstrip("aA")
        self.title_key = f"t{self.title_num}{'a' if self.appendix else ''}"
        self.doc.edition = Edition(
            source_id=self.source_id,
            name=name,
            effective_from=eff,
            laws_enacted_through=eff,
            document_number=self.meta.get("AUTHORITIES-PUBLICATION-ID"),
        )

    @property
    def cite_prefix(self) -> str:
        return f"{self.title_num} U.S.C.{' App.' if self.appendix else ''}"

    # -- items -----------------------------------------------------------------------------
    def normalize_path(self, raw: str) -> list[str]:
        segs = [s for s in raw.split("/")[1:]]
        segs = segs[1:] if segs else []  # drop the title root ("110", "TITLE 11")
        if self.remap:
            old, new = self.remap
            if segs and segs[0] == old:
                segs = [new] + [_DUP_SUFFIX_RE.sub("", s) for s in segs[1:]]
            else:
                self.remap = None
        return segs

    def begin_item(self, raw_path: str, offset: int) -> None:
        self.end_item()
        if self.root is None:
            self.start_document(raw_path, offset)
        segs = self.normalize_path(raw_path)
        path = "/".join(segs)
        if not segs:
            self.item = _Item(path, "", "title", node=None)
            return
        label = segs[-1]
        if not label.strip():
            self.item = _Item(path, label, "skip")
            self.doc.warnings.append(f"{self.where(offset)}: item with an empty label skipped")
            return
        kind, _, _, _ = _label_parts(label)
        self.item = _Item(path, label, kind)

    def parent_for(self, path: str) -> Node | None:
        segs = path.split("/")[:-1]
        while segs:
            node = self.path_nodes.get("/".join(segs))
            if node is not None:
                return node
            segs.pop()
        return self.root

    def ensure_root(self, tok: Element | None) -> Node:
        if self.root is None:
            span = (tok.start, tok.end) if tok else (0, 0)
            text = clean_html(tok.inner) if tok else ""
            heading = text.split("—", 1)[1].strip() if "—" in text else text
            self.root = self.add_node(
                Node(
                    id=f"/us/usc/{self.title_key}",
                    type=NodeType.DOCUMENT,
                    text=text,
                    provenance=self.prov(*span),
                    jurisdiction=JURISDICTION,
                    authority=Authority.STATUTE,
                    heading=heading or None,
                    citation=self.cite_prefix,
                    attrs={
                        "level": "title",
                        "hierarchy_path": f"Title {self.title_num}"
                        + (" Appendix" if self.appendix else ""),
                        "title_status": self.meta.get("AUTHORITIES-USC-TITLE-STATUS", ""),
                        "title_name": self.meta.get("AUTHORITIES-USC-TITLE-NAME", ""),
                    },
                )
            )
        return self.root

    def ensure_item_node(self, tok: Element | None) -> Node | None:
        """The current item's node, created from its label (and head element) if needed."""
        item = self.item
        if item is None:
            return self.ensure_root(tok)
        if item.node is not None or item.kind == "skip":
            return item.node
        if item.kind == "title":
            item.node = self.ensure_root(tok)
            return item.node
        root = self.ensure_root(None)
        parent = self.parent_for(item.path) or root
        _, seg, display, status = _label_parts(item.label)
        kind = item.kind
        head_text = clean_html(tok.inner) if tok is not None else ""
        span = (tok.start, tok.end) if tok is not None else (0, 0)
        hpath = f"{parent.attrs.get('hierarchy_path', '')} > {display}".lstrip(" >")
        if kind in ("section", "rule"):
            heading, num_status = self.section_heading(head_text)
            if kind == "section":
                node_id = (parent.id if self.appendix else root.id) + "/" + seg
                num = display.split(" ", 1)[1]
                citation = f"{self.cite_prefix} {display.split(' ', 1)[0]} {num}"
            else:
                node_id, num = parent.id + "/" + seg, display
                citation = f"{self.cite_prefix} {display}"
            node = Node(
                id=node_id,
                type=NodeType.SECTION,
                text="",
                provenance=self.prov(*span),
                jurisdiction=JURISDICTION,
                authority=Authority.STATUTE,
                parent=parent.id,
                heading=heading,
                citation=citation,
                attrs={"hierarchy_path": hpath, "num": num, "head": head_text},
            )
            st = status or num_status
        else:
            heading = head_text.split("—", 1)[1].strip() if "—" in head_text else head_text
            node = Node(
                id=parent.id + "/" + seg,
                type=NodeType.DOCUMENT,
                text=head_text or display,
                provenance=self.prov(*span),
                jurisdiction=JURISDICTION,
                authority=Authority.STATUTE,
                parent=parent.id,
                heading=heading or None,
                citation=self._container_citation(parent, display),
                attrs={"level": _container_level(seg, "group"), "hierarchy_path": hpath},
            )
            st = status or _status_of(heading or "")
        if st:
            node.attrs["status"] = st
        item.node = self.add_node(node)
        self.path_nodes[item.path] = item.node
        return item.node

    def _container_citation(self, parent: Node, display: str) -> str:
        words = display.split(" ", 1)
        abbr = {
            "Chapter": "ch.", "Subchapter": "subch.", "Part": "pt.", "Subpart": "subpt.",
            "Subtitle": "subtit.", "Title": "tit.", "Division": "div.", "Subdivision": "subdiv.",
            "Article": "art.",
        }  # fmt: skip
        piece = f"{abbr[words[0]]} {words[1]}" if len(words) == 2 and words[0] in abbr else display
        base = parent.citation or self.cite_prefix
        return f"{base}, {piece}" if parent.attrs.get("level") != "title" else f"{base} {piece}"

    @staticmethod
    def section_heading(head_text: str) -> tuple[str | None, str]:
        if not head_text:
            return None, ""
        m = _SECTION_HEAD_RE.match(head_text)
        heading = m.group(2).strip() if m else head_text
        heading = heading.rstrip("]").strip()
        return heading or None, _status_of(heading)

    def end_item(self) -> None:
        item = self.item
        if item is None:
            return
        self.end_note()
        self.item = None

    # -- statute ---------------------------------------------------------------------------
    def statute_element(self, tok: Element) -> None:
        item = self.item
        if item is None or item.kind == "skip":
            if item is not None and tok.cls == "analysis-subhead":
                self.maybe_remap(tok)
            return
        base = self.ensure_item_node(None)
        if base is None:
            return
        if tok.kind == "table":
            self.append_text(item.stack[-1].node if item.stack else base, tok, "table")
            return
        head_level = _HEAD_CLASS_LEVEL.get(tok.cls)
        is_head = tok.kind.startswith("h")
        if is_head and head_level is None:
            # a structural heading printed inside the statute (e.g. a part heading)
            self.append_text(item.stack[-1].node if item.stack else base, tok, "heading")
            return
        text = clean_html(tok.inner)
        toks, rest = split_enums(text)
        if not toks:
            if item.stack and item.stack[-1].pending and not is_head:
                top = item.stack[-1]
                top.node.text = rest
                top.node.provenance = self.prov(top.node.provenance.span[0], tok.end)
                top.pending = False
                top.indent = _indent_of(tok.cls)
                return
            self.continuation(base, tok, text)
            return
        indent = _indent_of(tok.cls)
        prev_level: int | None = None
        for i, t in enumerate(toks):
            last = i == len(toks) - 1
            level, ordinal = self.choose_level(
                t, indent, prev_level, head_level if i == 0 else None
            )
            while item.stack and item.stack[-1].level >= level:
                item.stack.pop()
            parent = item.stack[-1].node if item.stack else base
            node_id = f"{parent.id}/{t}"
            cite_base = parent.citation or ""
            num_display = f"({t})"
            node = Node(
                id=node_id,
                type=NodeType.CLAUSE,
                text=(rest if not is_head else "") if last else "",
                provenance=self.prov(tok.start, tok.end),
                jurisdiction=JURISDICTION,
                authority=Authority.STATUTE,
                parent=parent.id,
                heading=(rest or None) if (is_head and last) else None,
                citation=f"{cite_base}{num_display}",
                attrs={
                    "num": num_display,
                    "level": LEVEL_NAMES[level],
                    "hierarchy_path": f"{parent.attrs.get('hierarchy_path', '')} > {num_display}",
                },
            )
            node = self.add_node(node)
            item.stack.append(_Open(level, ordinal, node, indent, pending=is_head and last))
            prev_level = level

    def choose_level(
        self, tok: str, indent: int, prev_level: int | None, forced: int | None
    ) -> tuple[int, tuple[int, int]]:
        """The (level, ordinal) reading of an enumerator that best continues the open levels:
        the successor of an open level's last number scores highest, then a first number
        ("a", "1", "A", "i", ...) one level down; indentation breaks ties ("(i)" after "(h)"
        is subsection (i) when printed at (h)'s indent, clause (i) when indented below)."""
        cands = enum_candidates(tok)
        if forced is not None:
            pick = [c for c in cands if c[0] == forced]
            if pick:
                return pick[0]
        stack = self.item.stack if self.item else []
        top_level = stack[-1].level if stack else -1
        top_indent = stack[-1].indent if stack else None
        by_level = {o.level: o for o in stack}
        best: tuple[float, int, tuple[int, int]] | None = None
        for level, ordinal in cands:
            if prev_level is not None:  # combined enumerators: each is a child of the last
                score = 100.0 - (level - prev_level) if level > prev_level else -100.0
            elif level in by_level:
                o = by_level[level]
                if _is_successor(o.ordinal, ordinal):
                    score = 100.0
                elif ordinal > o.ordinal:
                    score = 50.0
                else:
                    score = 5.0
                if o.indent is not None:
                    score += 15 if o.indent == indent else -10
            elif level > top_level:
                score = 90.0 if ordinal[0] == 1 and ordinal[1] == 0 else 20.0
                if top_level >= 0:
                    score -= 10 * (level - top_level - 1)
                    if top_indent is not None:
                        score += 10 if indent > top_indent else -10
            else:
                score = 10.0
            if best is None or score > best[0]:
                best = (score, level, ordinal)
        assert best is not None
        return best[1], best[2]

    def continuation(self, base: Node, tok: Element, text: str) -> None:
        item = self.item
        assert item is not None
        if not text:
            return
        if not item.stack:
            self.append_text(base, tok, "chapeau", text)
            return
        if text[0] in "\"“‘'":  # quoted matter (a form, an amended text) stays with the top
            self.append_text(item.stack[-1].node, tok, "quoted", text)
            return
        indent = _indent_of(tok.cls)
        target: _Open | None = None
        for o in reversed(item.stack):
            if o.indent is not None and o.indent <= indent:
                target = o
                break
        if target is None:
            # flush text shallower than every open level: it belongs to the section
            item.stack.clear()
            self.append_text(base, tok, "continuation", text)
            return
        while item.stack and item.stack[-1] is not target:
            item.stack.pop()
        self.append_text(target.node, tok, "continuation", text)

    def append_text(self, node: Node, tok: Element, how: str, text: str | None = None) -> None:
        if text is None:
            text = clean_html(tok.inner)
        if not text:
            return
        if how == "chapeau" and not node.text:
            node.text = text
            if node.provenance.span == (0, 0) or node.type == NodeType.SECTION:
                node.attrs.setdefault("chapeau_span", [tok.start, tok.end])
            return
        node.text = f"{node.text} {text}".strip()
        node.attrs.setdefault("continuation", []).append(
            {"text": text, "span": [tok.start, tok.end], "kind": how}
        )

    def maybe_remap(self, tok: Element) -> None:
        """1994-1996 editions print chapter 11 inside a blank item of chapter 9 and file its
        subchapters as "CHAPTER 9/SUBCHAPTER I_2": re-home them under a real chapter 11."""
        m = re.match(r"^CHAPTER\s+(\d+[A-Z]?)\s*—\s*(.+)$", clean_html(tok.inner))
        item = self.item
        if not m or item is None:
            return
        old = item.path.split("/")[0]
        new = f"CHAPTER {m.group(1)}"
        if old == new or not old.upper().startswith("CHAPTER"):
            return
        self.remap = (old, new)
        saved = self.item
        self.item = _Item(new, new, "container")
        self.ensure_item_node(tok)
        self.item = saved
        self.doc.warnings.append(
            f"{self.where(tok.start)}: '{new}' printed inside {old}; following items "
            f"filed under {old} with '_N' suffixes re-homed to {new}"
        )

    # -- notes -----------------------------------------------------------------------------
    def note_element(self, tok: Element, field_name: str) -> None:
        item = self.item
        owner = self.ensure_item_node(None) if item is not None else self.ensure_root(None)
        if owner is None or item is None:
            return
        is_head = tok.kind.startswith("h")
        if is_head:
            self.end_note()
            self.start_note(owner, tok, field_name, clean_html(tok.inner))
            return
        if item.note is None:
            heading = {
                "footnote": "Footnotes",
                "sectionreferredto": "Section Referred to in Other Sections",
            }.get(field_name, field_name.replace("-", " ").title())
            self.start_note(owner, tok, field_name, heading, include_tok=True)
            return
        self.add_note_part(tok)

    def start_note(
        self, owner: Node, tok: Element, kind: str, heading: str, include_tok: bool = False
    ) -> None:
        item = self.item
        assert item is not None
        slug = slugify(heading)[:80]
        note_id = f"{owner.id}/note/{slug}"
        note = Node(
            id=note_id,
            type=NodeType.NOTE,
            text="",
            provenance=self.prov(tok.start, tok.end),
            jurisdiction=JURISDICTION,
            authority=Authority.NOTE,
            parent=owner.id,
            heading=heading,
            citation=f"{owner.citation} note" if owner.citation else None,
            attrs={
                "note_kind": kind,
                "heading": heading,
                "hierarchy_path": f"{owner.attrs.get('hierarchy_path', '')} > Note: {heading}",
            },
        )
        item.note = note
        item.note_parts = []
        if include_tok:
            self.add_note_part(tok)

    def add_note_part(self, tok: Element) -> None:
        item = self.item
        assert item is not None and item.note is not None
        text = clean_html(tok.inner)
        if text:
            item.note_parts.append(text)
        s0 = item.note.provenance.span[0]
        item.note.provenance = self.prov(s0, tok.end)

    def end_note(self) -> None:
        item = self.item
        if item is None or item.note is None:
            return
        note = item.note
        note.text = " ".join(item.note_parts)
        item.note = None
        item.note_parts = []
        if not note.text:  # a group heading ("Historical and Revision Notes") over sub-heads
            item.note_group = note.heading
            return
        if item.note_group:
            note.attrs["group"] = item.note_group
            item.note_group = None
        note = self.add_node(note, contains=False)
        self.doc.edges.append(Edge(note.id, note.parent or "", EdgeType.ANNOTATES, note.provenance))

    # -- main loop -------------------------------------------------------------------------
    def run(self) -> ParsedDocument:
        text = self.text
        saw_html_end = text.rstrip().lower().endswith("</html>")
        for tok in iter_elements(text, self.source_id):
            if tok.kind == "comment":
                self.comment(tok)
                continue
            if self.root is None and self.item is None:
                continue  # <head> material
            fld = self.fields[-1] if self.fields else ""
            if any(f in _SKIP_FIELDS for f in self.fields):
                continue
            if fld in _STRUCTURAL_HEAD_FIELDS or (fld == "" and tok.cls == "usc-title-head"):
                if self.item is not None and self.item.kind == "skip":
                    continue
                if tok.kind.startswith("h"):
                    if self.item is not None and self.item.kind == "title":
                        self.item.node = self.ensure_root(tok)
                    elif self.item is not None and self.item.node is None:
                        self.ensure_item_node(tok)
                    elif self.item is None:
                        self.ensure_root(tok)
                elif self.item is not None and self.item.node is not None:
                    self.note_element(tok, fld or "structuralhead")
                continue
            if fld in _SECTION_HEAD_FIELDS:
                if self.item is not None and self.item.node is None and self.item.kind != "skip":
                    if self.item.kind == "container" and tok.cls == "section-head":
                        self.item.kind = "rule"
                    self.ensure_item_node(tok)
                continue
            if fld == "statute":
                self.statute_element(tok)
                continue
            if fld == "sourcecredit":
                node = self.ensure_item_node(None)
                if node is not None:
                    node.attrs["source_credit"] = clean_html(tok.inner)
                continue
            if fld == "repealsummary":
                node = self.ensure_item_node(None)
                if node is not None:
                    node.text = f"{node.text} {clean_html(tok.inner)}".strip()
                    node.attrs.setdefault("chapeau_span", [tok.start, tok.end])
                continue
            if fld in ("titleenactmentcredit",):
                root = self.ensure_root(None)
                root.attrs["enactment_credit"] = clean_html(tok.inner)
                continue
            if fld:
                self.note_element(tok, fld)
                continue
            # stray element outside any field
            if self.item is not None and self.item.node is not None and tok.kind == "p":
                self.note_element(tok, "note")
        if self.fields and not saw_html_end:
            fld = self.fields[-1]
            raise IngestError(
                self.source_id,
                f"line {_line_of(text, len(text))}, offset {len(text)}",
                f"unexpected end of file: field '{fld}' is never closed (file truncated?)",
            )
        if not saw_html_end:
            raise IngestError(
                self.source_id,
                f"line {_line_of(text, len(text))}, offset {len(text)}",
                "unexpected end of file: no closing </html> (file truncated?)",
            )
        self.end_item()
        if self.root is None:
            raise IngestError(
                self.source_id,
                "line 1",
                "not a US Code title file: no <!-- itempath: --> items (tables such as "
                "tbl*.htm and uscTable*.htm are not titles)",
            )
        return self.doc

    def comment(self, tok: Element) -> None:
        body = tok.inner
        if body.startswith("field-start:"):
            name = body[len("field-start:") :].strip()
            if name not in _NOTE_FIELDS_KEEPING_NOTE and self.item is not None:
                self.end_note()
            self.fields.append(name)
        elif body.startswith("field-end:"):
            name = body[len("field-end:") :].strip()
            if name in self.fields:
                while self.fields and self.fields.pop() != name:
                    pass
            if name in ("statute", "sourcecredit", "repealsummary") and self.item is not None:
                self.item.stack.clear()
                node = self.item.node
                if node is not None and node.type == NodeType.SECTION:
                    node.provenance = self.prov(node.provenance.span[0], tok.start)
        elif body.startswith("itempath:"):
            self.fields.clear()
            self.begin_item(body[len("itempath:") :].strip(), tok.start)
        elif body.startswith("expcite:"):
            self.check_expcite(body[len("expcite:") :].strip(), tok.start)
        elif body.startswith("AUTHORITIES-") or body.startswith("SEARCHABLE-"):
            self.header(body)

    def check_expcite(self, expcite: str, offset: int) -> None:
        """Skip items of another title (the 1998 Title 11 file opens with Title 12 items)."""
        m = re.match(r"TITLE\s+(\d+)", expcite)
        item = self.item
        if not m or item is None or m.group(1) == self.title_num:
            return
        item.kind = "skip"
        if not self.foreign_warned:
            self.foreign_warned = True
            self.doc.warnings.append(
                f"{self.where(offset)}: items of Title {m.group(1)} in a Title "
                f"{self.title_num} file skipped"
            )


def _container_level(seg: str, fallback: str) -> str:
    for prefix, name in (
        ("sch", "subchapter"), ("ch", "chapter"), ("st", "subtitle"), ("tit", "title"),
        ("spt", "subpart"), ("pt", "part"), ("sdv", "subdivision"), ("dv", "division"),
        ("art", "article"),
    ):  # fmt: skip
        if seg.startswith(prefix) and seg[len(prefix) : len(prefix) + 1].isalnum():
            return name
    return fallback


# ----------------------------------------------------------------------------- effective dates

_PL_RE = re.compile(r"Pub\.\s*L\.\s*(\d+)\s*[–—-]\s*(\d+)")
_EFFECTIVE_RE = re.compile(
    rf"effective\s+(?:(?:on|as of)\s+)?(?:with respect to cases filed\s+)?"
    rf"(?:(?P<n>\d+|[a-z]+(?:[- ][a-z]+){{0,3}})\s+(?P<unit>days?|months?|years?)\s+after\s+)?"
    rf"(?:the date of (?:the )?enactment of [^\[]{{0,60}}\[)?(?P<date>{DATE_PATTERN})"
)


def _add_interval(d: date, n: int, unit: str) -> date:
    if unit.startswith("day"):
        return d + timedelta(days=n)
    y, m = divmod(d.month - 1 + n * (12 if unit.startswith("year") else 1), 12)
    last_day = calendar.monthrange(d.year + y, m + 1)[1]
    return date(d.year + y, m + 1, min(d.day, last_day))


def effective_date_facts(note: Node, section_id: str) -> list[Fact]:
    """EFFECTIVE_DATE facts on `section_id` from an effective-date or dollar-adjustment note:
    "effective Oct. 22, 1994", "effective 180 days after Apr. 20, 2005", "effective with respect
    to cases filed 90 days after July 10, 1984", "By notice dated ..., effective Apr. 1, 2019".
    """
    from structfirst.ingest.text_facts import parse_number_words  # (imports this module)

    kind = note.attrs.get("note_kind", "")
    heading = (note.heading or "").lower()
    adjust = heading.startswith("adjustment of dollar amounts")
    if "effectivedate" not in kind and not adjust:
        return []
    facts: list[Fact] = []
    seen: set[tuple[str, str | None]] = set()
    text = note.text
    for m in _EFFECTIVE_RE.finditer(text):
        d = parse_date(m.group("date"))
        if d is None:
            continue
        if m.group("n"):
            n = parse_number_words(m.group("n"))
            if n is None:
                continue
            d = _add_interval(d, n, m.group("unit"))
        # the public law this sentence is about: the last one named before the match
        sent_start = max(text.rfind(". ", 0, m.start()), 0)
        pls = list(_PL_RE.finditer(text, sent_start, m.start()))
        if not pls:
            pls = list(_PL_RE.finditer(text, 0, m.start()))
        pl = f"{pls[-1].group(1)}-{pls[-1].group(2)}" if pls else None
        key = (d.isoformat(), pl)
        if key in seen:
            continue
        seen.add(key)
        attrs: dict[str, object] = {"public_law": pl, "note_kind": kind, "note_id": note.id}
        if adjust:
            fr = re.search(r"(\d+)\s+F\.\s?R\.\s+(\d+)", text[max(0, m.start() - 120) : m.start()])
            attrs["note_kind"] = "adjustment-of-dollar-amounts"
            attrs["public_law"] = None
            if fr:
                attrs["notice_citation"] = f"{fr.group(1)} F.R. {fr.group(2)}"
        facts.append(
            Fact(
                node_id=section_id,
                kind=FactKind.EFFECTIVE_DATE,
                value=d.isoformat(),
                text=m.group(0),
                provenance=note.provenance,
                effective_from=d,
                attrs=attrs,
            )
        )
    return facts


# ----------------------------------------------------------------------------- entry point


# -------------------------------------------------------------- table-of-contents check

_TOC_FIELD = re.compile(r"<!-- field-start:analysis -->(.*?)<!-- field-end:analysis -->", re.S)
# a chapter's analysis: one row per section ("[304." marks a repealed one: skipped)
_TOC_SECTION = re.compile(r'two-column-analysis-style-content-left">\s*([^<\[\s]+?)\.?\s*</div>')
# the title's analysis: chapter, name, first section (a bracketed name is repealed/omitted)
_TOC_CHAPTER = re.compile(
    r'three-column-analysis-style-content-center"[^>]*>([^<]*(?:<(?!/div)[^>]*>[^<]*)*)</div>'
    r'\s*<div class="three-column-analysis-style-content-right">\s*([^<\s]+?)\s*</div>'
)
_ITEMPATH_SECTION = re.compile(
    r"<!-- itempath:/[^>]*?/\[?(?:Secs?\.|Rules?|Forms?)\s+([^/>]*?)\]? -->"
)
_LABEL_SPLIT = re.compile(r",\s*|\s+(?:to|and|through)\s+")


def _toc_key(label: str) -> str:
    return label.strip().rstrip(".").replace("\u2013", "-").replace("\u2014", "-")


def toc_missing_sections(text: str) -> list[str]:
    """Sections the file's own tables of contents list (each chapter's sections, each chapter's
    first section) that no item of the file holds, in table order: a file cut short, even at a
    section boundary with its closing tags restored, lists what it lost."""
    present = {
        _toc_key(part)
        for label in _ITEMPATH_SECTION.findall(text)
        for part in _LABEL_SPLIT.split(label)
    }
    listed: list[str] = []
    for block in _TOC_FIELD.finditer(text):
        listed += _TOC_SECTION.findall(block.group(1))
        listed += [sec for name, sec in _TOC_CHAPTER.findall(block.group(1)) if "[" not in name]
    return [sec for sec in dict.fromkeys(listed) if _toc_key(sec) not in present]


def parse_uscode(
    path: Path, source_id: str | None = None, strict: bool = False
) -> ParsedDocument:
    """Parse one US Code title file of one annual edition (see the module docstring).

    `source_id` defaults to the path relative to the corpus root. Raises MissingSourceError
    (an IngestError and a FileNotFoundError) for a missing file and IngestError, naming the
    file and the line/offset, for a truncated, non-UTF-8 or non-title file. Sections the
    file's table of contents lists but the file lacks are a warning naming them, or, with
    `strict`, an IngestError.
    """
    from structfirst.ingest import dollar_adjustments  # (imports this module)

    path = Path(path)
    sid = source_id or default_source_id(path)
    text = read_source(path, sid)
    parser = _Parser(text, sid)
    doc = parser.run()
    missing = toc_missing_sections(text)
    if missing:
        more = f" and {len(missing) - 20} more" if len(missing) > 20 else ""
        shown = ", ".join(missing[:20]) + more
        problem = f"its table of contents lists {len(missing)} sections the file lacks: {shown}"
        if strict:
            raise IngestError(sid, "table of contents", problem + " (file cut short?)")
        doc.warnings.append(f"{problem} (file cut short?)")

    # effective dates from notes
    for node in list(doc.nodes):
        if node.type == NodeType.NOTE and node.parent:
            doc.facts.extend(effective_date_facts(node, node.parent))

    terms, defines = defined_terms.extract_defined_terms(doc)
    for t in terms:
        t.effective_from = doc.edition.effective_from
    doc.nodes.extend(terms)
    doc.edges.extend(defines)

    edges, unresolved = crossrefs.link_crossrefs(doc)
    doc.edges.extend(edges)
    doc.unresolved.extend(unresolved)

    if parser.title_key == "t11":
        doc.facts.extend(dollar_adjustments.adjustments_from_text(doc, text))
    return doc
