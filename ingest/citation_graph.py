"""The citation graph: a networkx MultiDiGraph over versions, saved as gzipped node-link JSON.

Nodes are version ids (and the ids of the Jurisdiction, Authority and Date nodes) with the
attributes node_id, type, jurisdiction, authority, effective_from, effective_to (ISO text or
None). Edges are keyed by their type ("contains", "cross_refs", ...), so
`graph.out_edges(v, keys=True)` yields `(v, dst, type)`; each carries its provenance
(source_id, span, parser_version, confidence, prov_id) and the edge's own attributes.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import networkx as nx
from structfirst.ingest.versioning import VersionedCorpus, prov_id_of

GRAPH_FILE = "graph.json.gz"


def build_graph(corpus: VersionedCorpus) -> nx.MultiDiGraph:
    graph = nx.MultiDiGraph()
    for node in corpus.nodes:
        graph.add_node(
            node.version_id,
            node_id=node.id,
            type=str(node.type),
            jurisdiction=node.jurisdiction,
            authority=str(node.authority),
            effective_from=node.effective_from.isoformat() if node.effective_from else None,
            effective_to=node.effective_to.isoformat() if node.effective_to else None,
        )
    for edge in corpus.edges:
        for end in (edge.src, edge.dst):
            if end not in graph:  # an edge to something the corpus has no node for
                graph.add_node(
                    end,
                    node_id=end.split("@", 1)[0],
                    type=None,
                    jurisdiction=None,
                    authority=None,
                    effective_from=None,
                    effective_to=None,
                )
        prov = edge.provenance
        graph.add_edge(
            edge.src,
            edge.dst,
            key=str(edge.type),
            source_id=prov.source_id,
            span=list(prov.span),
            parser_version=prov.parser_version,
            confidence=prov.confidence,
            prov_id=prov_id_of(prov),
            **{k: v for k, v in edge.attrs.items() if k not in _RESERVED},
        )
    return graph


_RESERVED = {
    "key",
    "source",
    "target",
    "source_id",
    "span",
    "parser_version",
    "confidence",
    "prov_id",
}


def save_graph(graph: nx.MultiDiGraph, path: Path) -> None:
    data = nx.node_link_data(graph, edges="edges")
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)
    with gzip.open(path, "wb", compresslevel=5) as fh:
        fh.write(text.encode("utf-8"))


def load_graph(path: Path | str) -> nx.MultiDiGraph:
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no citation graph there")
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        data = json.load(fh)
    return nx.node_link_graph(data, directed=True, multigraph=True, edges="edges")
