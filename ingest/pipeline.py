"""The ingest pipeline: sources -> parsed editions -> versions -> a new snapshot.

`ingest(sources, index_dir)`:

1. Finds the inputs. A directory is walked (sorted): `usc*.htm` is a US Code title (uscode),
   a `.xml` whose root is `<regulation` is RegML, `.pdf` and `.jsonl` go to their parsers.
   Amendment notices, the US Code's `uscTable*`/`tbl*` tables and anything else are skipped,
   each with its reason (logged, and listed in `SnapshotInfo.skipped`). A file named on the
   command line that cannot be ingested is an error. Identical files (same sha256) are read once.
2. Lets each index builder that has `prepare()` start its document-free work (the ColBERT
   builder's C++ extensions compile meanwhile), then parses each source in turn (a rich
   progress bar), links defined-term uses per edition; with `ray` (a `RayIngest`) one Ray task
   per source file, gathered in input order.
3. Collapses editions into versions (`structfirst.ingest.versioning`), extracts text facts
   from each version's text.
4. Writes the DuckDB store, the citation graph and each index (`IndexBuilder`) into a staged
   snapshot directory, then switches `CURRENT` to it (`structfirst.ingest.snapshot`).

Any failure (an `IngestError` naming the file and place, or anything else) removes the staged
directory; the previous snapshot stays current.
"""

from __future__ import annotations

import importlib
import inspect
import logging
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from structfirst.ingest import versioning
from structfirst.ingest.citation_graph import GRAPH_FILE, build_graph, save_graph
from structfirst.ingest.duckdb_store import STORE_FILE, write_store
from structfirst.ingest.index_builder import IndexableDoc, IndexBuilder
from structfirst.ingest.model import Fact, IngestError, Node, NodeType, ParsedDocument
from structfirst.ingest.progress import StepProgress
from structfirst.ingest.snapshot import Snapshot, file_sha256, snapshot_id_for, staging
from structfirst.ingest.versioning import VersionedCorpus, build_versions

if TYPE_CHECKING:
    from structfirst.ingest.ray_ingest import RayIngest

log = logging.getLogger("structfirst.ingest")

PIPELINE_VERSION = "pipeline-1"

# format -> (module, parse function); imported when a source of that format is met
PARSERS: dict[str, tuple[str, str]] = {
    "uscode": ("structfirst.ingest.uscode", "parse_uscode"),
    "regml": ("structfirst.ingest.regml", "parse_regml"),
    "pdf": ("structfirst.ingest.pdf_source", "parse_pdf"),
    "jsonl": ("structfirst.ingest.jsonl_source", "parse_jsonl"),
}
# the index builders, by name: (module, name), in build order; the first is built by default,
# the others unless `dense=False` (and ColBERT unless `colbert=False`). ColBERT comes before
# dense: with its shared backend, its pass leaves the dense vectors in the shared cache
BUILDERS: dict[str, str] = {
    "lucene": "structfirst.ingest.lucene_index",
    "colbert": "structfirst.ingest.colbert_index",
    "dense": "structfirst.ingest.dense_index",
}
LEXICAL_BUILDERS = ("lucene",)
CACHE_DIR = "cache"  # <index_dir>/cache: encoder caches shared across snapshots
INDEXED_TYPES = (NodeType.SECTION, NodeType.CLAUSE, NodeType.DEFINED_TERM, NodeType.NOTE)

_USC_TITLE = re.compile(r"^usc\d+[a-z]?\.html?$", re.I)
_USC_TABLE = re.compile(r"^(usctable|tbl)", re.I)


@dataclass(slots=True)
class SourceFile:
    path: Path
    format: str
    sha256: str = ""
    bytes: int = 0


@dataclass(slots=True)
class SnapshotInfo:
    snapshot_id: str
    path: Path
    counts: dict[str, int]  # rows per store table
    sources: list[dict[str, Any]]
    skipped: list[tuple[str, str]]  # (path, reason)
    warnings: list[str]
    indexes: dict[str, dict[str, Any]]  # builder name -> its figures
    seconds: dict[str, float] = field(default_factory=dict)  # per stage and "total"

    @property
    def artifacts_per_second(self) -> float:
        total = self.seconds.get("total") or 0.0
        return self.counts.get("artifacts", 0) / total if total else 0.0


# -- finding and sniffing sources ------------------------------------------------------------


def detect_format(path: Path) -> tuple[str | None, str]:
    """(format, "") for a file we ingest, (None, reason) for one we skip."""
    name = path.name
    suffix = path.suffix.lower()
    if suffix in (".htm", ".html"):
        if _USC_TABLE.match(name):
            return None, "US Code table, not a title"
        if _USC_TITLE.match(name):
            return "uscode", ""
        return None, "HTML that is not a US Code title file (usc*.htm)"
    if suffix == ".xml":
        try:
            with open(path, "rb") as fh:
                head = fh.read(4096).decode("utf-8", "replace")
        except OSError as exc:
            return None, f"unreadable: {exc}"
        if "<regulation" in head:
            return "regml", ""
        if "<notice" in head:
            return None, "amendment notice (a change set; the regulation versions are ingested)"
        return None, "XML that is not RegML (<regulation>)"
    if suffix == ".pdf":
        return "pdf", ""
    if suffix == ".jsonl":
        return "jsonl", ""
    return None, f"unsupported file type {suffix or '(none)'}"


def find_sources(paths: Iterable[Path]) -> tuple[list[SourceFile], list[tuple[str, str]]]:
    """The files to ingest (each once, by content) and the skipped ones with their reasons."""
    found: list[SourceFile] = []
    skipped: list[tuple[str, str]] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for child in sorted(p for p in path.rglob("*") if p.is_file()):
                if any(part.startswith(".") for part in child.relative_to(path).parts):
                    continue
                fmt, reason = detect_format(child)
                if fmt is None:
                    skipped.append((str(child), reason))
                    log.info("skipped %s: %s", child, reason)
                else:
                    found.append(SourceFile(child, fmt))
        elif path.is_file():
            fmt, reason = detect_format(path)
            if fmt is None:
                raise IngestError(str(path), "file", f"cannot ingest: {reason}")
            found.append(SourceFile(path, fmt))
        else:
            raise IngestError(str(path), "path", "no such file or directory")
    unique: list[SourceFile] = []
    by_hash: dict[str, Path] = {}
    for src in found:
        try:
            src.sha256 = file_sha256(src.path)
            src.bytes = src.path.stat().st_size
        except OSError as exc:
            raise IngestError(str(src.path), "file", f"unreadable: {exc}") from exc
        if src.sha256 in by_hash:
            reason = f"same content as {by_hash[src.sha256]}"
            skipped.append((str(src.path), reason))
            log.info("skipped %s: %s", src.path, reason)
            continue
        by_hash[src.sha256] = src.path
        unique.append(src)
    return unique, skipped


# -- parsers and builders, imported lazily -----------------------------------------------------


def _parser(fmt: str) -> tuple[Callable[..., ParsedDocument], str]:
    module_name, func_name = PARSERS[fmt]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            raise IngestError(module_name, "parser", f"no parser for {fmt} sources yet") from exc
        raise
    return getattr(module, func_name), str(getattr(module, "PARSER_VERSION", module_name))


def load_builder(
    name: str, index_dir: Path | None = None, ray: RayIngest | None = None
) -> IndexBuilder | None:
    """An instance of the IndexBuilder called `name` from its module, or None if not installed.

    A builder whose constructor takes `cache_dir` gets `<index_dir>/cache` (shared by the
    snapshots of one index directory, so an unchanged corpus re-ingests from the cache); one
    whose constructor takes `remote` gets `ray` (it encodes on Ray actors)."""
    module_name = BUILDERS[name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            return None
        raise
    for _, obj in inspect.getmembers(module, inspect.isclass):
        if (
            obj.__module__ == module.__name__
            and getattr(obj, "name", None) == name
            and hasattr(obj, "build")
        ):
            params = inspect.signature(obj).parameters
            kwargs: dict[str, Any] = {}
            if index_dir is not None and "cache_dir" in params:
                kwargs["cache_dir"] = Path(index_dir) / CACHE_DIR
            if ray is not None and "remote" in params:
                kwargs["remote"] = ray
            return obj(**kwargs)
    return None


def default_builders(
    dense: bool = True,
    index_dir: Path | None = None,
    *,
    colbert: bool = True,
    ray: RayIngest | None = None,
) -> tuple[list[IndexBuilder], list[str]]:
    """The builders to run (lexical, plus dense and ColBERT unless `dense` is False, ColBERT
    unless `colbert` is False) and a note per builder whose module is not available."""
    extra = [n for n in BUILDERS if n not in LEXICAL_BUILDERS and (colbert or n != "colbert")]
    names = [*LEXICAL_BUILDERS, *(extra if dense else ())]
    builders, missing = [], []
    for name in names:
        builder = load_builder(name, index_dir, ray)
        if builder is None:
            missing.append(f"index {name!r} not built: {BUILDERS[name]} is not available")
        else:
            builders.append(builder)
    return builders, missing


# -- the pipeline ------------------------------------------------------------------------------


def _parse(src: SourceFile, options: dict[str, Any]) -> tuple[ParsedDocument, str]:
    parse, parser_version = _parser(src.format)
    kwargs = {}
    params = inspect.signature(parse).parameters
    for key, value in options.get(src.format, {}).items():
        if key in params:
            kwargs[key] = value
    try:
        doc = parse(src.path, **kwargs)
    except IngestError:
        raise
    except (
        OSError,
        UnicodeDecodeError,
        ValueError,
        KeyError,
        IndexError,
        AttributeError,
        TypeError,
    ) as exc:
        raise IngestError(str(src.path), "parse", f"{type(exc).__name__}: {exc}") from exc
    if not doc.nodes:
        raise IngestError(str(src.path), "document", "no provisions found (truncated or empty?)")
    return doc, parser_version


def parse_source(src: SourceFile, options: dict[str, Any]) -> tuple[ParsedDocument, str]:
    """One source file parsed, its defined-term uses linked: the document and parser version
    (the unit of work of a Ray parse task)."""
    doc, parser_version = _parse(src, options)
    _link_terms(doc)
    return doc, parser_version


def _optional(module_name: str, attr: str) -> Callable[..., Any] | None:
    """`module.attr` if that module (another helper's) is there yet, else None."""
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        return None
    return getattr(module, attr, None)


def _link_terms(doc: ParsedDocument) -> None:
    link_term_uses = _optional("structfirst.ingest.defined_terms", "link_term_uses")
    terms = [n for n in doc.nodes if n.type == NodeType.DEFINED_TERM]
    if link_term_uses is not None and terms:
        doc.edges.extend(link_term_uses(doc.nodes, terms))


def _text_facts(corpus: VersionedCorpus) -> int:
    extract_text_facts = _optional("structfirst.ingest.text_facts", "extract_text_facts")
    if extract_text_facts is None:
        return 0
    seen = {(f.attrs.get("version_id"), f.kind, f.value, f.text) for f in corpus.facts}
    added = 0
    for node in corpus.nodes:
        if node.type not in INDEXED_TYPES or not node.text:
            continue
        vid = node.version_id
        for fact in extract_text_facts(node):
            key = (vid, fact.kind, fact.value, fact.text)
            if key in seen:
                continue
            seen.add(key)
            corpus.facts.append(_versioned_fact(fact, node))
            added += 1
    return added


def _versioned_fact(fact: Fact, node: Node) -> Fact:
    attrs = {**fact.attrs, "version_id": node.version_id}
    printed = node.attrs.get("printed_text")
    if printed is not None and fact.text and fact.text not in printed:
        attrs["adjusted"] = True  # read from an amount substituted under a threshold adjustment
    return replace(
        fact,
        attrs=attrs,
        effective_from=fact.effective_from or node.effective_from,
        effective_to=fact.effective_to or node.effective_to,
    )


def _overlaps(a: Node, b: Node) -> bool:
    a_from, b_from = a.effective_from or date.min, b.effective_from or date.min
    a_to, b_to = a.effective_to or date.max, b.effective_to or date.max
    return a_from < b_to and b_from < a_to


def _subtree_texts(corpus: VersionedCorpus, budget: int) -> dict[str, str]:
    """For each Clause version with subdivisions: the text of its descendants in force during
    that version (the latest such version of each), breadth first, cut at `budget` words."""
    children: dict[str, list[Node]] = {}
    for node in corpus.nodes:
        if node.parent is not None and node.type == NodeType.CLAUSE and node.text:
            children.setdefault(node.parent, []).append(node)

    def kids_of(parent: Node) -> list[Node]:
        latest: dict[str, Node] = {}
        for kid in children.get(parent.id, ()):
            known = latest.get(kid.id)
            later = known is None or (kid.effective_from or date.min) > (
                known.effective_from or date.min
            )
            if _overlaps(kid, parent) and later:
                latest[kid.id] = kid
        return list(latest.values())

    out = {}
    for node in corpus.nodes:
        if node.type != NodeType.CLAUSE or node.id not in children:
            continue
        words: list[str] = []
        queue = kids_of(node)
        while queue and len(words) < budget:
            kid = queue.pop(0)
            words += kid.text.split()
            queue += kids_of(kid)
        out[node.version_id] = " ".join(words[:budget])
    return out


def indexable_docs(corpus: VersionedCorpus, subtree_budget: int = 250) -> list[IndexableDoc]:
    """One IndexableDoc per version of a Section, Clause, DefinedTerm or Note: citation, the
    section heading, the chapeaus of its ancestors (outermost first), its own text and, for a
    clause with subdivisions, up to `subtree_budget` words of its subdivisions' text (so a rule's
    chapeau is found by the words of its elements, as its elements are by the chapeau's)."""
    by_vid = corpus.by_version_id()
    subtree = _subtree_texts(corpus, subtree_budget)
    docs = []
    for node in corpus.nodes:
        if node.type not in INDEXED_TYPES:
            continue
        chapeaus: list[str] = []
        section_heading = node.heading if node.type == NodeType.SECTION else None
        cur = corpus.parent_version.get(node.version_id)
        hops = 0
        while cur is not None and hops < 32 and node.type != NodeType.SECTION:
            anc = by_vid.get(cur)
            if anc is None or anc.type == NodeType.DOCUMENT:
                break
            if anc.text:
                chapeaus.append(anc.text)
            if anc.type == NodeType.SECTION:
                section_heading = anc.heading
                break
            cur = corpus.parent_version.get(cur)
            hops += 1
        parts = [
            node.citation,
            section_heading,
            *reversed(chapeaus),
            node.text,
            subtree.get(node.version_id),
        ]
        seen: set[str] = set()
        kept = []
        for part in parts:
            part = (part or "").strip()
            if part and part not in seen:
                seen.add(part)
                kept.append(part)
        docs.append(
            IndexableDoc(
                version_id=node.version_id,
                node_id=node.id,
                contents="\n".join(kept),
                jurisdiction=node.jurisdiction,
                authority=str(node.authority),
                effective_from=node.effective_from,
                effective_to=node.effective_to,
            )
        )
    return docs


def parse_sources(
    files: Sequence[SourceFile],
    options: dict[str, Any],
    progress: bool = True,
    console: Console | None = None,
    ray: RayIngest | None = None,
) -> tuple[list[ParsedDocument], list[dict[str, Any]], list[str]]:
    """Parse each file (`parse_source`: here in turn, or with `ray` as Ray tasks gathered in
    input order), with progress and ETA: the parsed documents, one source row each, and the
    parsers' warnings."""
    docs: list[ParsedDocument] = []
    source_rows: list[dict[str, Any]] = []
    warnings: list[str] = []
    parsed = ray.parse(files, options) if ray else (parse_source(f, options) for f in files)
    with StepProgress("parsing", len(files), progress, console) as step:
        for src, (doc, parser_version) in zip(files, parsed, strict=True):
            docs.append(doc)
            warnings += [f"{doc.edition.source_id}: {w}" for w in doc.warnings]
            source_rows.append(source_row(src, doc, parser_version))
            step.advance()
    return docs, source_rows, warnings


def ingest(
    sources: list[Path],
    index_dir: Path,
    builders: Sequence[IndexBuilder] | None = None,
    progress: bool = True,
    *,
    dense: bool = True,
    colbert: bool = True,
    parser_options: dict[str, dict[str, Any]] | None = None,
    console: Console | None = None,
    ray: RayIngest | None = None,
) -> SnapshotInfo:
    """Ingest `sources` (files or directories) into a new snapshot of `index_dir`.

    `builders` None means the default ones (`default_builders(dense, colbert=colbert)`); pass
    `[]` for none. With `ray` the parse runs as Ray tasks and the default dense builder encodes
    on Ray actors (`structfirst.ingest.ray_ingest`); the rest runs here either way.
    `parser_options` maps a format to keyword arguments of its parser (e.g.
    `{"pdf": {"jurisdiction": "us-ia", "authority": "statute"}}`).
    """
    started = time.perf_counter()
    seconds: dict[str, float] = {}
    index_dir = Path(index_dir)
    options = parser_options or {}
    files, skipped = find_sources(sources)
    if not files:
        raise IngestError(", ".join(str(s) for s in sources), "sources", "nothing to ingest")
    notes: list[str] = []
    if builders is None:
        builders, notes = default_builders(dense, index_dir, colbert=colbert, ray=ray)
    parser_versions = {fmt: _parser(fmt)[1] for fmt in sorted({f.format for f in files})}
    parser_versions["versioning"] = versioning.VERSIONING_VERSION
    parser_versions["pipeline"] = PIPELINE_VERSION
    inputs = [{"source_id": f.path.name, "sha256": f.sha256} for f in files]
    snapshot_id = snapshot_id_for(inputs, parser_versions)
    console = console or Console(stderr=True)
    warnings = list(notes)

    for builder in builders:
        prepare = getattr(builder, "prepare", None)
        if prepare is not None:
            prepare()
    with staging(index_dir, snapshot_id) as stage:
        t0 = time.perf_counter()
        docs, source_rows, parse_warnings = parse_sources(files, options, progress, console, ray)
        warnings += parse_warnings
        seconds["parse"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        corpus = build_versions(docs)
        families = {ed.source_id: fam for fam, eds in corpus.editions.items() for ed in eds}
        for row in source_rows:
            row["family"] = families.get(row["source_id"])
        del docs
        warnings += corpus.warnings
        seconds["version"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        text_facts = _text_facts(corpus)
        seconds["text_facts"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        counts = write_store(stage.path / STORE_FILE, corpus, source_rows)
        seconds["store"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        graph = build_graph(corpus)
        save_graph(graph, stage.path / GRAPH_FILE)
        counts["graph_nodes"], counts["graph_edges"] = (
            graph.number_of_nodes(),
            graph.number_of_edges(),
        )
        del graph
        seconds["graph"] = time.perf_counter() - t0

        indexes: dict[str, dict[str, Any]] = {}
        if builders:
            index_docs = indexable_docs(corpus)
            counts["indexable_docs"] = len(index_docs)
            for builder in builders:
                t0 = time.perf_counter()
                if progress:
                    console.print(
                        f"building index [bold]{builder.name}[/] ({len(index_docs)} docs)"
                    )
                figures = builder.build(index_docs, stage.path / builder.name) or {}
                seconds[f"index:{builder.name}"] = time.perf_counter() - t0
                indexes[builder.name] = {
                    **figures,
                    "seconds": round(seconds[f"index:{builder.name}"], 3),
                }
        seconds["total"] = time.perf_counter() - started
        meta = {
            "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "parser_versions": parser_versions,
            "sources": source_rows,
            "skipped": [{"path": p, "reason": r} for p, r in skipped],
            "counts": counts,
            "text_facts": text_facts,
            "indexes": indexes,
            "warnings": warnings[:1000],
            "warning_count": len(warnings),
            "seconds": {k: round(v, 3) for k, v in seconds.items()},
        }
        snap: Snapshot = stage.commit(meta)
    for w in warnings[:20]:
        log.warning(w)
    return SnapshotInfo(
        snap.snapshot_id, snap.path, counts, source_rows, skipped, warnings, indexes, seconds
    )


def source_row(src: SourceFile, doc: ParsedDocument, parser_version: str) -> dict[str, Any]:
    ed = doc.edition
    return {
        "source_id": ed.source_id,
        "path": str(src.path.resolve()),
        "sha256": src.sha256,
        "bytes": src.bytes,
        "format": src.format,
        "parser_version": parser_version,
        "family": None,
        "edition_name": ed.name,
        "effective_from": ed.effective_from.isoformat(),
        "laws_enacted_through": ed.laws_enacted_through.isoformat()
        if ed.laws_enacted_through
        else None,
        "document_number": ed.document_number,
        "nodes": len(doc.nodes),
        "edges": len(doc.edges),
        "facts": len(doc.facts),
        "unresolved": len(doc.unresolved),
        "warnings": list(doc.warnings),
    }
