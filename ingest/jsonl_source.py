"""Hand-made or converted sources as JSON Lines: one JSON object, one node, per line.

The format is documented for users in ``ingest/jsonl_format.md``. In short, each line has
``id``, ``text``, ``jurisdiction`` and ``authority`` (required) and optionally
``citation``, ``parent``, ``type`` (a NodeType value, default "Clause"), ``heading``,
``effective_from``/``effective_to`` (ISO dates, from < to), ``cross_refs`` (ids),
``defines`` (terms) and ``attrs`` (a free object).

Each line yields a Node whose provenance span is the line's [start, end) character offsets
in the file decoded as UTF-8 (without its line break). ``parent`` yields a ``contains``
edge and must name a node on another line of the file; each ``cross_refs`` id yields a
``cross_refs`` edge when a line of the file has that id, else an `UnresolvedRef`; each
``defines`` term yields a DefinedTerm ``<scope>/term/<slug>`` (scope: the item's
``scope``, else the node's top ancestor in the file) with attrs ``term`` and ``scope``, a
``defines`` and a ``contains`` edge from the defining node.

Every problem is an `IngestError` naming the file, the line and the field: bad JSON, a
missing or mistyped field, an unknown field, an impossible date ("2016-02-30"), an
``effective_to`` not after ``effective_from``, an unknown authority or type, a parent that
no line defines, or one id on two lines with the same ``effective_from``; an id (or parent,
cross-ref or scope) longer than `MAX_ID_CHARS` or holding whitespace, a control or format
character or a line/paragraph separator; a ``text`` over `MAX_TEXT_CHARS` characters; a
jurisdiction that is not in the canonical form queries use (``us-federal``,
``us-federal/cfpb``, ``us-ia``, ...) unless the caller declares it (``jurisdictions=``).
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from structfirst.engine.query_citations import ACCEPTED_JURISDICTION_FORMS, normalize_jurisdiction
from structfirst.engine.query_dates import QueryError
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

PARSER_VERSION = "jsonl/1"
UNDATED_EDITION = date(1900, 1, 1)

REQUIRED = ("id", "text", "jurisdiction", "authority")
OPTIONAL = (
    "citation",
    "parent",
    "type",
    "heading",
    "effective_from",
    "effective_to",
    "cross_refs",
    "defines",
    "attrs",
)
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")
MAX_ID_CHARS = 512
MAX_TEXT_CHARS = 1_000_000  # a provision longer than this is split into lines with a parent


def id_problem(value: str) -> str | None:
    """Why `value` cannot be an id (too long, or a whitespace, control, format or separator
    character in it), else None."""
    if len(value) > MAX_ID_CHARS:
        return f"{len(value):,} characters long; the limit is {MAX_ID_CHARS}"
    for i, ch in enumerate(value):
        category = unicodedata.category(ch)
        if category[0] in "CZ":
            return f"character {i} is {unicodedata.name(ch, repr(ch))} ({category}); ids hold none"
    return None


def jurisdiction_problem(value: str, declared: frozenset[str]) -> str | None:
    """Why `value` is not a jurisdiction queries can ask for (nor a declared one), else None."""
    if value in declared:
        return None
    try:
        canonical = normalize_jurisdiction(value)
    except QueryError:
        return (
            f"unknown jurisdiction {value!r}; use one queries accept "
            f"({ACCEPTED_JURISDICTION_FORMS}) or declare it"
        )
    if canonical != value:
        return f"jurisdiction {value!r} is not in canonical form; write {canonical!r}"
    return None


def _slug(term: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", term.lower()).strip("-") or "term"


@dataclass(slots=True)
class _Line:
    number: int
    span: tuple[int, int]
    obj: dict[str, Any]
    node: Node


def _lines(text: str) -> list[tuple[int, int, int]]:
    """(line number, start, end) of each line; the end excludes "\\n" and a "\\r" before it.

    Only "\\n" ends a line: U+2028 and friends may stand unescaped inside JSON strings.
    """
    out = []
    start, number = 0, 1
    while start < len(text):
        nl = text.find("\n", start)
        stop = len(text) if nl < 0 else nl
        end = stop - 1 if stop > start and text[stop - 1] == "\r" else stop
        out.append((number, start, end))
        if nl < 0:
            break
        start, number = nl + 1, number + 1
    return out


def parse_jsonl(
    path: Path, source_id: str | None = None, jurisdictions: Iterable[str] = ()
) -> ParsedDocument:
    """Parse a JSON Lines source; see the module docstring and ``jsonl_format.md``.
    `jurisdictions`: new jurisdictions the caller declares, accepted as written."""
    path = Path(path)
    declared = frozenset(jurisdictions)
    src = source_id or default_source_id(path)
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise IngestError(src, f"line {line}", "not UTF-8") from None

    def fail(number: int, fld: str | None, problem: str) -> IngestError:
        return IngestError(src, f"line {number}" + (f", field {fld!r}" if fld else ""), problem)

    lines: list[_Line] = []
    for number, start, end in _lines(text):
        body = text[start:end]
        if number == 1 and body.startswith("\ufeff"):
            body, start = body[1:], start + 1
        if not body.strip():
            continue
        try:
            obj = json.loads(body)
        except json.JSONDecodeError as exc:
            raise fail(number, None, f"bad JSON at column {exc.colno}: {exc.msg}") from None
        if not isinstance(obj, dict):
            raise fail(number, None, f"expected a JSON object, got {type(obj).__name__}")
        node = _node(obj, number, (start, end), src, fail, declared)
        lines.append(_Line(number, (start, end), obj, node))
    if not lines:
        raise IngestError(src, "line 1", "no JSON objects in the file")

    # duplicates: one id twice with the same effective_from
    first_line: dict[tuple[str, date | None], int] = {}
    ids: dict[str, _Line] = {}
    for ln in lines:
        key = (ln.node.id, ln.node.effective_from)
        if key in first_line:
            when = ln.node.effective_from.isoformat() if ln.node.effective_from else "no date"
            raise fail(
                ln.number,
                "id",
                f"duplicate id {ln.node.id!r} ({when}), first on line {first_line[key]}",
            )
        first_line[key] = ln.number
        ids.setdefault(ln.node.id, ln)

    for ln in lines:
        parent = ln.node.parent
        if parent is not None and parent not in ids:
            raise fail(ln.number, "parent", f"no line defines the parent {parent!r}")
        seen, cur = {ln.node.id}, parent
        while cur is not None:
            if cur in seen:
                raise fail(ln.number, "parent", f"parent chain loops back to {cur!r}")
            seen.add(cur)
            cur = ids[cur].node.parent

    def top(node_id: str) -> str:
        while ids[node_id].node.parent is not None:
            node_id = ids[node_id].node.parent
        return node_id

    nodes: list[Node] = [ln.node for ln in lines]
    node_ids = {n.id for n in nodes}
    edges: list[Edge] = []
    unresolved: list[UnresolvedRef] = []
    term_keys: set[tuple[str, date | None]] = set(first_line)
    for ln in lines:
        node = ln.node
        prov = node.provenance
        if node.parent is not None:
            edges.append(Edge(node.parent, node.id, EdgeType.CONTAINS, prov))
        for target in ln.obj.get("cross_refs") or []:
            if target in node_ids:
                edges.append(Edge(node.id, target, EdgeType.CROSS_REFS, prov, {"text": target}))
            else:
                unresolved.append(
                    UnresolvedRef(node.id, target, prov, "no line of this file has this id")
                )
        for item in ln.obj.get("defines") or []:
            term = item if isinstance(item, str) else item["term"]
            scope = (item.get("scope") if isinstance(item, dict) else None) or top(node.id)
            tid = f"{scope}/term/{_slug(term)}"
            if (tid, node.effective_from) not in term_keys:
                term_keys.add((tid, node.effective_from))
                nodes.append(
                    Node(
                        tid,
                        NodeType.DEFINED_TERM,
                        node.text,
                        prov,
                        node.jurisdiction,
                        node.authority,
                        node.id,
                        term,
                        f"{node.citation} (“{term}”)" if node.citation else None,
                        node.effective_from,
                        node.effective_to,
                        {"term": term, "scope": scope},
                    )
                )
                edges.append(Edge(node.id, tid, EdgeType.CONTAINS, prov))
            edges.append(Edge(node.id, tid, EdgeType.DEFINES, prov, {"term": term}))

    dated = [n.effective_from for n in nodes if n.effective_from]
    warnings: list[str] = []
    if not dated:
        warnings.append(
            f"{src}: no line has effective_from; edition dated {UNDATED_EDITION.isoformat()}"
        )
    edition = Edition(src, path.stem, min(dated) if dated else UNDATED_EDITION)
    return ParsedDocument(edition, nodes, edges, [], unresolved, warnings)


def _node(
    obj: dict[str, Any],
    number: int,
    span: tuple[int, int],
    src: str,
    fail,
    declared: frozenset[str] = frozenset(),
) -> Node:
    for key in obj:
        if key not in REQUIRED and key not in OPTIONAL:
            raise fail(number, key, 'unknown field (put free fields under "attrs")')
    for key in REQUIRED:
        if key not in obj or obj[key] is None:
            raise fail(number, key, "missing (required)")

    def string(key: str, required: bool = False) -> str | None:
        value = obj.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            raise fail(number, key, f"expected a string, got {type(value).__name__}")
        if required and not value.strip():
            raise fail(number, key, "empty")
        return value

    def iso(key: str) -> date | None:
        value = string(key)
        if value is None:
            return None
        if not _ISO.match(value):
            raise fail(number, key, f"not an ISO date (YYYY-MM-DD): {value!r}")
        try:
            return date.fromisoformat(value)
        except ValueError as exc:
            raise fail(number, key, f"impossible date {value!r}: {exc}") from None

    def ident(key: str, value: str | None) -> str | None:
        problem = None if value is None else id_problem(value)
        if problem:
            raise fail(number, key, f"not a usable id: {problem}")
        return value

    node_id = ident("id", string("id", True))
    body = string("text")
    if body is not None and len(body) > MAX_TEXT_CHARS:
        raise fail(
            number,
            "text",
            f"{len(body):,} characters; the limit is {MAX_TEXT_CHARS:,} "
            "(split the provision into lines joined by parent)",
        )
    jurisdiction = string("jurisdiction", True)
    problem = jurisdiction_problem(jurisdiction, declared)
    if problem:
        raise fail(number, "jurisdiction", problem)
    try:
        authority = Authority(obj["authority"])
    except (ValueError, TypeError):
        allowed = ", ".join(a.value for a in Authority)
        raise fail(
            number, "authority", f"unknown authority {obj['authority']!r} ({allowed})"
        ) from None
    ntype = NodeType.CLAUSE
    if obj.get("type") is not None:
        try:
            ntype = NodeType(obj["type"])
        except (ValueError, TypeError):
            allowed = ", ".join(t.value for t in NodeType)
            raise fail(number, "type", f"unknown type {obj['type']!r} ({allowed})") from None
    eff_from, eff_to = iso("effective_from"), iso("effective_to")
    if eff_from and eff_to and eff_to <= eff_from:
        raise fail(
            number,
            "effective_to",
            f"{eff_to.isoformat()} is not after effective_from {eff_from.isoformat()}",
        )
    refs = obj.get("cross_refs")
    if refs is not None and (
        not isinstance(refs, list) or not all(isinstance(r, str) and r for r in refs)
    ):
        raise fail(number, "cross_refs", "expected a list of ids (strings)")
    for ref in refs or []:
        ident("cross_refs", ref)
    defines = obj.get("defines")
    if defines is not None:
        ok = isinstance(defines, list) and all(
            (isinstance(d, str) and d.strip())
            or (
                isinstance(d, dict)
                and isinstance(d.get("term"), str)
                and d["term"].strip()
                and set(d) <= {"term", "scope"}
                and (d.get("scope") is None or isinstance(d["scope"], str))
            )
            for d in defines
        )
        if not ok:
            raise fail(number, "defines", 'expected a list of terms or {"term", "scope"} objects')
        for d in defines:
            ident("defines", d.get("scope") if isinstance(d, dict) else None)
    attrs = obj.get("attrs")
    if attrs is not None and not isinstance(attrs, dict):
        raise fail(number, "attrs", "expected a JSON object")
    attrs = dict(attrs or {})
    return Node(
        node_id,
        ntype,
        body,
        Provenance(src, span, PARSER_VERSION),
        jurisdiction,
        authority,
        ident("parent", string("parent")),
        string("heading"),
        string("citation"),
        eff_from,
        eff_to,
        attrs,
    )
