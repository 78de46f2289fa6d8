"""Defined terms: DefinedTerm nodes, DEFINES edges, and (for any document) USES edges.

DefinedTerm node contract (what `link_term_uses` reads; CFR and other parsers must follow it):

* `type` is NodeType.DEFINED_TERM;
* `attrs["term"]`: the term as written in the definition, e.g. "insider", "new value";
* `attrs["scope"]`: the id of the node the definition applies within - the document
  (`/us/usc/t11`) for "In this title", a chapter, a section, a subsection ... A node is in
  the scope when the scope is the node itself or one of its ancestors by `Node.parent`;
* optional `attrs["defined_in"]`: ids of the defining nodes (they are not linked as users);
* the id is `<scope id>/term/<slug>` (`/us/usc/t11/term/insider`,
  `/us/usc/t11/s547/term/new-value`); `parent` is None (terms are not in the contains tree).

`extract_defined_terms(doc)` finds US Code definitions in Section/Clause text:
`The term "insider" includes—`, `(31) The term "insider" means`, `The terms "X" and "Y" mean`,
`"inventory" means` at the start of a clause (older editions, and under "In this section—"),
and `the term "X" has the meaning given ...` anywhere in a sentence. The scope is read from
the nearest "In this title/chapter/subchapter/part/section/subsection/paragraph",
"For purposes of this ..." or "As used in this ..." phrase on the defining node or its
ancestors, defaulting to the enclosing section.

`link_term_uses(nodes, terms)` is generic: for every Section or Clause node in a term's scope
whose own text contains the term (case-insensitive, on word boundaries, with simple plurals:
-s, -es, -y/-ies), it emits one USES edge node -> term (attrs {"text": the words matched}).
Where terms of the same spelling are defined at several scopes, the nearest enclosing scope
wins. Overlapping terms match longest first ("debtor in possession" before "debtor").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from structfirst.ingest.model import Edge, EdgeType, Node, NodeType, ParsedDocument, Provenance

__all__ = ["extract_defined_terms", "link_term_uses", "term_slug"]

_Q_OPEN = "\"“‘'"
_Q_CLOSE = "\"”’'"
_QUOTED = rf"[{_Q_OPEN}]([^{_Q_OPEN}{_Q_CLOSE}]{{1,80}}?)[{_Q_CLOSE}]"
_VERB = (
    r"(?:means|mean|includes|include|has|have|does not include|do not include|shall mean|"
    r"shall include|shall have|refers|refer|is|are)\b"
)
_TERMS_RE = re.compile(
    rf"\b[Tt]he\s+terms?\s+(?P<terms>{_QUOTED}(?:\s*,?\s*(?:and|or)?\s*{_QUOTED})*)"
    rf"(?:\s*\([^)]{{0,80}}\))?\s*,?\s*(?:—|-|{_VERB}|as used)"
)
_LEADING_RE = re.compile(
    rf"^(?P<terms>{_QUOTED}(?:\s*,?\s*(?:and|or)?\s*{_QUOTED})*)\s*,?\s*"
    rf"(?:means|mean|includes|include|has the meaning|does not include)\b"
)
_QUOTED_RE = re.compile(_QUOTED)
_SCOPE_LEVELS = (
    r"(title|chapter|subchapter|part|subpart|section|subsection|paragraph|subparagraph|clause)"
)
_SCOPE_RE = re.compile(
    rf"(?:\bIn\s+this\s+{_SCOPE_LEVELS}\b"
    rf"|\b[Ff]or\s+(?:the\s+)?purposes?\s+of\s+this\s+{_SCOPE_LEVELS}\b"
    rf"|\b[Aa]s\s+used\s+in\s+this\s+{_SCOPE_LEVELS}\b"
    rf"|\bin\s+this\s+{_SCOPE_LEVELS},?\s+the\s+terms?\b)"
)
_CONTAINER_LEVELS = {"chapter", "subchapter", "part", "subpart"}


def term_slug(term: str) -> str:
    t = term.lower().replace("’", "").replace("'", "")
    return re.sub(r"[^a-z0-9]+", "-", t).strip("-") or "term"


def _level(node: Node) -> str:
    if node.type == NodeType.SECTION:
        return "section"
    if node.type == NodeType.DOCUMENT and node.parent is None:
        return "title"
    return str(node.attrs.get("level", ""))


def _ancestors(nodes: dict[str, Node], node_id: str) -> list[Node]:
    out: list[Node] = []
    cur = nodes.get(node_id)
    while cur is not None and len(out) < 64:
        out.append(cur)
        cur = nodes.get(cur.parent) if cur.parent else None
    return out


def _scope_of(nodes: dict[str, Node], node: Node) -> Node | None:
    chain = _ancestors(nodes, node.id)
    for a in chain:
        if a.type not in (NodeType.SECTION, NodeType.CLAUSE):
            break
        m = _SCOPE_RE.search(a.text)
        if not m:
            continue
        lvl = next(g for g in m.groups() if g)
        if lvl == "title":
            return chain[-1]
        for b in chain:
            if _level(b) == lvl:
                return b
    return next((b for b in chain if b.type == NodeType.SECTION), None)


def extract_defined_terms(doc: ParsedDocument) -> tuple[list[Node], list[Edge]]:
    """DefinedTerm nodes and DEFINES edges (defining node -> term) of a parsed title."""
    nodes = {n.id: n for n in doc.nodes}
    terms: dict[str, Node] = {}
    edges: list[Edge] = []
    seen: set[tuple[str, str]] = set()
    for node in doc.nodes:
        if node.type not in (NodeType.SECTION, NodeType.CLAUSE) or not node.text:
            continue
        text = node.text
        found: list[str] = []
        m = _LEADING_RE.match(text)
        if m:
            found += _QUOTED_RE.findall(m.group("terms"))
        for m in _TERMS_RE.finditer(text):
            found += _QUOTED_RE.findall(m.group("terms"))
        if not found:
            continue
        scope = _scope_of(nodes, node)
        if scope is None:
            continue
        for raw in found:
            term = raw.strip().strip(",;")
            if not term or len(term) > 80:
                continue
            tid = f"{scope.id}/term/{term_slug(term)}"
            if tid not in terms:
                terms[tid] = Node(
                    id=tid,
                    type=NodeType.DEFINED_TERM,
                    text=text,
                    provenance=node.provenance,
                    jurisdiction=node.jurisdiction,
                    authority=node.authority,
                    parent=None,
                    heading=term,
                    citation=node.citation,
                    effective_from=node.effective_from,
                    attrs={
                        "term": term,
                        "scope": scope.id,
                        "scope_level": _level(scope),
                        "defined_in": [node.id],
                    },
                )
            elif node.id not in terms[tid].attrs["defined_in"]:
                terms[tid].attrs["defined_in"].append(node.id)
            if (node.id, tid) not in seen:
                seen.add((node.id, tid))
                edges.append(Edge(node.id, tid, EdgeType.DEFINES, node.provenance, {"term": term}))
    return list(terms.values()), edges


def _term_pattern(term: str) -> str:
    words = term.strip()
    esc = re.escape(words).replace("'", "['’]").replace("’", "['’]")
    if words[:1].isupper():  # "Act", "Board", "SIPC": the capital is part of the term
        esc = f"(?-i:{esc[0]})" + esc[1:]
    esc = re.sub(r"(\\ )+", r"\\s+", esc)
    low = words.lower()
    if re.search(r"[^aeiou]y$", low):
        esc = esc[:-1] + "(?:y|ies)"
    elif re.search(r"(?:s|x|z|ch|sh)$", low):
        esc += "(?:es)?"
    elif low[-1:].isalpha():
        esc += "(?:s|es)?"
    return esc


def _key(text: str) -> str:
    return re.sub(r"\s+", " ", text.lower().replace("’", "'")).strip()


_WORD_RE = re.compile(r"[\w'’]+")


def _stems(word: str) -> set[str]:
    w = word.lower().replace("’", "'")
    out = {w}
    if w.endswith("ies"):
        out.add(w[:-3] + "y")
    if w.endswith("es"):
        out.add(w[:-2])
    if w.endswith("s"):
        out.add(w[:-1])
    return out


def link_term_uses(nodes: Sequence[Node], terms: Sequence[Node]) -> list[Edge]:
    """USES edges (node -> term) for the Section/Clause nodes of `nodes` that mention a term of
    `terms` inside its scope (see the module docstring for the attrs contract)."""
    terms = [t for t in terms if t.attrs.get("term") and t.attrs.get("scope")]
    if not terms:
        return []
    by_id = {n.id: n for n in nodes}
    by_key: dict[str, list[Node]] = {}
    regex: dict[str, re.Pattern[str]] = {}
    by_word: dict[str, list[str]] = {}  # a term's first word (singular) -> its keys
    for t in terms:
        k = _key(t.attrs["term"])
        by_key.setdefault(k, []).append(t)
        if k not in regex:
            regex[k] = re.compile(rf"(?<![\w]){_term_pattern(t.attrs['term'])}(?![\w])", re.I)
            words = _WORD_RE.findall(k)
            if words:
                by_word.setdefault(words[0], []).append(k)
    anc_cache: dict[str, list[str]] = {}

    def ancestors(node_id: str) -> list[str]:
        got = anc_cache.get(node_id)
        if got is None:
            got = [a.id for a in _ancestors(by_id, node_id)]
            anc_cache[node_id] = got
        return got

    edges: list[Edge] = []
    for node in nodes:
        if node.type not in (NodeType.SECTION, NodeType.CLAUSE) or not node.text:
            continue
        cand: set[str] = set()
        for w in set(_WORD_RE.findall(node.text)):
            for stem in _stems(w):
                cand.update(by_word.get(stem, ()))
        if not cand:
            continue
        hits: list[tuple[int, int, str, str]] = []
        for k in cand:
            for m in regex[k].finditer(node.text):
                hits.append((m.start(), -(m.end() - m.start()), k, m.group(0)))
        hits.sort()
        taken_end = -1
        chain = ancestors(node.id)
        seen: set[str] = set()
        for start, neg_len, k, written in hits:
            if start < taken_end:
                continue  # inside a longer term already matched
            taken_end = start - neg_len
            best: tuple[int, Node] | None = None
            for t in by_key.get(k, []):
                scope = t.attrs["scope"]
                if scope not in chain or node.id in t.attrs.get("defined_in", ()):
                    continue
                depth = chain.index(scope)
                if best is None or depth < best[0]:
                    best = (depth, t)
            if best is None or best[1].id in seen:
                continue
            term = best[1]
            seen.add(term.id)
            p = node.provenance
            edges.append(
                Edge(
                    node.id,
                    term.id,
                    EdgeType.USES,
                    Provenance(p.source_id, p.span, p.parser_version, 0.9),
                    {"text": written},
                )
            )
    return edges
