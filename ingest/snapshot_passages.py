"""The passages a snapshot's indexes hold, rebuilt from its DuckDB store.

The retrieval indexes encode `IndexableDoc.contents` (citation, heading, ancestor chapeaus, own
text, subdivisions), which the store does not keep as such. `snapshot_passages` rebuilds the
versions (nodes and their parent versions) from the `artifacts` table and runs the ingest's own
`indexable_docs` on them, so a new encoder sees exactly the texts the snapshot's indexes hold
without re-parsing the sources.
"""

from __future__ import annotations

from pathlib import Path

from structfirst.ingest.duckdb_store import STORE_FILE, connect_readonly
from structfirst.ingest.index_builder import IndexableDoc
from structfirst.ingest.model import Authority, Node, NodeType, Provenance
from structfirst.ingest.pipeline import indexable_docs
from structfirst.ingest.versioning import VersionedCorpus

_COLUMNS = (
    "a.version_id, a.node_id, a.type, a.text, a.jurisdiction, a.authority, a.heading, "
    "a.citation, a.effective_from, a.effective_to, a.parent_version_id, p.node_id, "
    "a.source_id, a.span_start, a.span_end, a.parser_version, a.confidence"
)


def store_corpus(store_path: Path) -> VersionedCorpus:
    """The versions of the store at `store_path` (nodes and parent versions; no edges)."""
    corpus = VersionedCorpus()
    with connect_readonly(store_path) as con:
        rows = con.execute(
            f"SELECT {_COLUMNS} FROM artifacts a "
            "LEFT JOIN artifacts p ON p.version_id = a.parent_version_id ORDER BY a.rowid"
        ).fetchall()
    for (vid, node_id, kind, text, jurisdiction, authority, heading, citation, start, end,
         parent_vid, parent_node, source, span_start, span_end, parser, confidence) in rows:
        node = Node(
            id=node_id, type=NodeType(kind), text=text or "",
            provenance=Provenance(source, (span_start, span_end), parser, confidence),
            jurisdiction=jurisdiction or "",
            authority=Authority(authority) if authority else Authority.OTHER,
            parent=parent_node, heading=heading, citation=citation,
            effective_from=start, effective_to=end,
        )
        if node.version_id != vid:
            raise ValueError(f"{store_path}: artifact {vid} rebuilds as {node.version_id}")
        corpus.nodes.append(node)
        if parent_vid:
            corpus.parent_version[vid] = parent_vid
    return corpus


def snapshot_passages(snapshot_dir: Path) -> list[IndexableDoc]:
    """Every indexed passage of the snapshot at `snapshot_dir`, as its indexes encoded it."""
    store = Path(snapshot_dir) / STORE_FILE
    if not store.is_file():
        raise FileNotFoundError(f"{snapshot_dir}: no {STORE_FILE} (not a snapshot directory)")
    return indexable_docs(store_corpus(store))
