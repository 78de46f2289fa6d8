"""A born-digital PDF (statute, regulation, code) to a `ParsedDocument`, via pymupdf.

* **Text and spans.** Each page's text layer is read with ``page.get_text("text")``. The
  *source text* that spans point into is the concatenation of the pages' texts in page
  order, each followed by a form feed (``\\f``); a node's span is [start, end) in that text,
  and its attrs ``page_start``/``page_end`` (1-based) name the pages it covers. The
  Document node's attrs say so (``span_basis``) and give ``page_offsets``, the offset at
  which each page starts.
* **Pages without text.** A page whose text layer is empty is never indexed silently as
  empty: it is recorded in ``ParsedDocument.warnings`` naming the file and page (an image
  only page: "needs OCR"; a blank page: "blank"), a page that is mostly image with almost
  no text is reported too, and the section covering such a page lists it in attrs
  ``pages_without_text``. A PDF with no text on any page raises `IngestError` naming the
  file and its pages.
* **Sections.** A line that starts with a section heading opens a section: "§ 1013.2
  Definitions.", "Sec. 547. Preferences", "SECTION 5. Title", "Section 321A.1
  Definitions". The heading's words, if any, must begin with a capital, a dash or a bracket
  (so "Section 5 of this Act ..." in running text is not a heading). A number that heads two
  places (a table of contents, then the body) keeps the occurrence with the longest text;
  the others stay text of the section before them (with a warning). Text before the first
  heading is the Document node's text.
* **Ids.** The document is ``doc_id`` if given, else ``/doc/<file stem>`` (lower-cased,
  characters outside ``[a-z0-9._-]`` as ``-``); a section is ``<doc>/s<number>``. Citations
  are ``"<citation_prefix> <number>"`` when a prefix is given, else the heading's marker as
  printed ("§ 1013.2", "Sec. 547").
* **Dates.** ``effective_from`` dates the edition and every node. Without it the nodes are
  undated and the edition takes the PDF's creation date from its metadata (or 1900-01-01),
  with a warning, since neither is a legal effective date.

Running headers and footers (a first or last line repeated, digits aside, on at least half
the pages and at least three) are left out of node text; spans still cover them.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from datetime import date
from pathlib import Path

import pymupdf
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
)

PARSER_VERSION = "pdf/1"
PAGE_SEPARATOR = "\f"

_NUM = r"\d+[A-Za-z]?(?:[.\-]\d+[A-Za-z]?)*"
_HEADING = re.compile(
    rf"(?:^|(?<=\f))[ \t]*(?P<marker>§+[ \t]*(?P<n1>{_NUM})|Sec\.[ \t]+(?P<n2>{_NUM})"
    rf"|SECTION[ \t]+(?P<n3>{_NUM})|Section[ \t]+(?P<n4>{_NUM}))\.?(?=[ \t\n\f]|$)"
    r"(?P<rest>[^\n\f]*)(?=[\n\f]|$)",
    re.M,
)
_HEAD_WORDS_OK = re.compile(r"^\s*(?:$|[A-Z\[—–-])")
_MOSTLY_IMAGE_CHARS = 20


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _pdf_date(meta: dict) -> date | None:
    raw = (meta or {}).get("creationDate") or ""
    m = re.match(r"(?:D:)?(\d{4})(\d{2})(\d{2})", raw)
    if not m:
        return None
    try:
        return date(int(m[1]), int(m[2]), int(m[3]))
    except ValueError:
        return None


def _running_lines(pages: list[str]) -> set[str]:
    """First/last lines that repeat (digits aside) on at least half the pages, and >= 3."""
    counts: Counter[str] = Counter()
    texted = 0
    for text in pages:
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        if not lines:
            continue
        texted += 1
        for ln in {lines[0], lines[-1]}:
            counts[re.sub(r"\d+", "#", ln)] += 1
    return {k for k, c in counts.items() if c >= 3 and c * 2 >= texted}


def parse_pdf(
    path: Path,
    *,
    jurisdiction: str,
    authority: Authority,
    citation_prefix: str | None = None,
    effective_from: date | None = None,
    doc_id: str | None = None,
    source_id: str | None = None,
) -> ParsedDocument:
    """Parse a PDF's text layer into a Document and its sections; see the module docstring."""
    path = Path(path)
    src = source_id or default_source_id(path)
    try:
        authority = Authority(authority)
    except ValueError:
        raise IngestError(src, "authority", f"unknown authority {authority!r}") from None
    try:
        pdf = pymupdf.open(path)
    except Exception as exc:  # pymupdf raises its own FileDataError, RuntimeError, ...
        raise IngestError(src, "file", f"cannot open as PDF: {exc}") from None
    with pdf:
        if pdf.needs_pass:
            raise IngestError(src, "file", "PDF is encrypted")
        if pdf.page_count == 0:
            raise IngestError(src, "file", "PDF has no pages")
        meta = dict(pdf.metadata or {})
        page_texts: list[str] = []
        warnings: list[str] = []
        empty_pages: list[int] = []
        for page in pdf:
            n = page.number + 1
            text = page.get_text("text")
            page_texts.append(text)
            stripped = text.strip()
            images = page.get_images(full=True)
            if not stripped:
                empty_pages.append(n)
                if images or page.get_drawings():
                    warnings.append(
                        f"{src}: page {n}: no text layer (image only); needs OCR, not indexed"
                    )
                else:
                    warnings.append(f"{src}: page {n}: no text layer (blank page)")
            elif images and len(stripped) < _MOSTLY_IMAGE_CHARS:
                area = abs(page.rect)
                covered = sum(abs(r) for img in images for r in page.get_image_rects(img[0]))
                if area and covered / area > 0.5:
                    warnings.append(
                        f"{src}: page {n}: mostly image with {len(stripped)} characters of text; "
                        "its content may need OCR"
                    )
                    empty_pages.append(n)
    if all(not t.strip() for t in page_texts):
        pages = ", ".join(str(p) for p in empty_pages)
        raise IngestError(
            src, f"pages {pages}", "no text layer on any page (scanned PDF?); OCR it first"
        )

    # source text and page offsets
    offsets: list[int] = []
    pieces: list[str] = []
    pos = 0
    for text in page_texts:
        offsets.append(pos)
        pieces.append(text + PAGE_SEPARATOR)
        pos += len(text) + 1
    full = "".join(pieces)

    def page_of(offset: int) -> int:
        return bisect_right(offsets, offset)

    running = _running_lines(page_texts)

    def clean(start: int, end: int) -> str:
        lines = []
        for ln in full[start:end].splitlines():
            s = ln.strip()
            if s and re.sub(r"\d+", "#", s) not in running:
                lines.append(s)
        return _norm(" ".join(lines))

    def trim_end(start: int, end: int) -> int:
        """Move `end` back over trailing blank and running-header/footer lines."""
        while end > start:
            while end > start and full[end - 1] in "\f\n \t\r":
                end -= 1
            line_start = max(full.rfind("\n", start, end), full.rfind("\f", start, end)) + 1
            line = full[max(line_start, start) : end].strip()
            if line and re.sub(r"\d+", "#", line) in running and line_start > start:
                end = line_start
                continue
            return end
        return end

    # headings
    heads = []
    for m in _HEADING.finditer(full):
        if not _HEAD_WORDS_OK.match(m["rest"]):
            continue
        num = m["n1"] or m["n2"] or m["n3"] or m["n4"]
        heads.append((m.start(), m.end(), num, _norm(m["marker"]), _norm(m["rest"])))
    # a number heading several places (table of contents): keep its longest occurrence
    bounds = [h[0] for h in heads] + [len(full)]
    length = {i: bounds[i + 1] - h[1] for i, h in enumerate(heads)}
    best: dict[str, int] = {}
    for i, h in enumerate(heads):
        if h[2] not in best or length[i] > length[best[h[2]]]:
            best[h[2]] = i
    kept = [h for i, h in enumerate(heads) if best[h[2]] == i]
    for i, h in enumerate(heads):
        if best[h[2]] != i:
            warnings.append(
                f"{src}: page {page_of(h[0])}: heading {h[3]} repeats the one on page "
                f"{page_of(heads[best[h[2]]][0])}; kept as text (table of contents?)"
            )

    stem = re.sub(r"[^a-z0-9._-]+", "-", path.stem.lower()).strip("-") or "document"
    did = doc_id or f"/doc/{stem}"
    title = _norm(meta.get("title") or "") or None
    if effective_from is None:
        ed_date = _pdf_date(meta) or date(1900, 1, 1)
        warnings.append(
            f"{src}: no effective date given; nodes undated, edition dated {ed_date.isoformat()} "
            "from PDF metadata"
        )
    else:
        ed_date = effective_from
    edition = Edition(src, title or path.stem, ed_date)

    def pages_attrs(start: int, end: int, raw_end: int | None = None) -> dict:
        first, last = page_of(start), page_of(max(start, end - 1))
        attrs: dict = {"page_start": first, "page_end": last}
        # pages without text up to the next heading count, though the span stops before them
        reach = page_of(max(start, (raw_end or end) - 1))
        missing = [p for p in empty_pages if first <= p <= reach]
        if missing:
            attrs["pages_without_text"] = missing
        return attrs

    nodes: list[Node] = []
    edges: list[Edge] = []
    first_head = kept[0][0] if kept else len(full)
    doc_attrs = {
        **pages_attrs(0, len(full)),
        "span_basis": "pymupdf page text, pages joined in order, each followed by \\f",
        "page_offsets": offsets,
        "hierarchy_path": title or path.stem,
    }
    doc_attrs["pages_without_text"] = empty_pages
    doc = Node(
        did,
        NodeType.DOCUMENT,
        clean(0, first_head),
        Provenance(src, (0, len(full)), PARSER_VERSION),
        jurisdiction,
        authority,
        None,
        title,
        None,
        effective_from,
        None,
        doc_attrs,
    )
    nodes.append(doc)
    seen: set[str] = set()
    for i, (start, head_end, num, marker, rest) in enumerate(kept):
        raw_end = kept[i + 1][0] if i + 1 < len(kept) else len(full)
        end = trim_end(start, raw_end)
        sid = f"{did}/s{re.sub(r'[^A-Za-z0-9.-]', '', num)}"
        if sid in seen:  # cannot happen after de-duplication; kept as a guard
            continue
        seen.add(sid)
        prov = Provenance(src, (start, end), PARSER_VERSION)
        attrs = {
            **pages_attrs(start, end, raw_end),
            "number": num,
            "hierarchy_path": f"{doc_attrs['hierarchy_path']} > {marker}",
        }
        node = Node(
            sid,
            NodeType.SECTION,
            clean(head_end, end),
            prov,
            jurisdiction,
            authority,
            did,
            rest or None,
            f"{citation_prefix} {num}" if citation_prefix else marker,
            effective_from,
            None,
            attrs,
        )
        nodes.append(node)
        edges.append(Edge(did, sid, EdgeType.CONTAINS, prov))
    if not kept:
        warnings.append(f"{src}: no section headings found; the whole text is the Document node")
    return ParsedDocument(edition, nodes, edges, [], [], warnings)
