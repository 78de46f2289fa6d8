"""Convert one US Code title file to the JSONL input format, as a user would bring a corpus.

    python -m structfirst.eval.uscode_to_jsonl ../shared/corpus/us-code/2018/usc35.htm \
        --out /tmp/t35/usc35.jsonl [--jurisdiction us-federal]

The title is parsed with the project's US Code parser and written one provision a line
(`ingest/jsonl_format.md`): documents, sections, clauses and notes with their parent, heading,
citation, edition date, in-title cross-references and the terms they define. Graph scaffolding
(DefinedTerm, Threshold, Date, ... nodes) is left for the ingest to rebuild from the lines.
The result ingests through the JSONL parser alone, so a second corpus is measured without the
US Code parser's structure-specific extras (§104 facts, effective-date notes).
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from structfirst.ingest.model import EdgeType, NodeType
from structfirst.ingest.uscode import parse_uscode

KEPT_TYPES = (NodeType.DOCUMENT, NodeType.SECTION, NodeType.CLAUSE, NodeType.NOTE)


def jsonl_lines(path: Path, jurisdiction: str | None = None) -> list[dict[str, Any]]:
    """The title's provisions as JSONL records, parents before children."""
    doc = parse_uscode(path)
    kept = {n.id: n for n in doc.nodes if n.type in KEPT_TYPES}
    refs: dict[str, list[str]] = defaultdict(list)
    defines: dict[str, list[str]] = defaultdict(list)
    terms = {n.id: n.attrs.get("term") for n in doc.nodes if n.type is NodeType.DEFINED_TERM}
    for e in doc.edges:
        if e.type is EdgeType.CROSS_REFS and e.src in kept and e.dst in kept:
            refs[e.src].append(e.dst)
        elif e.type is EdgeType.DEFINES and e.src in kept and terms.get(e.dst):
            defines[e.src].append(terms[e.dst])
    day = doc.edition.effective_from.isoformat()
    lines = []
    for node in kept.values():
        record: dict[str, Any] = {
            "id": node.id, "type": str(node.type), "text": node.text,
            "jurisdiction": jurisdiction or node.jurisdiction, "authority": str(node.authority),
            "effective_from": day,
        }
        optional = {"parent": node.parent if node.parent in kept else None,
                    "heading": node.heading, "citation": node.citation,
                    "cross_refs": sorted(set(refs[node.id])) or None,
                    "defines": sorted(set(defines[node.id])) or None}
        record.update({k: v for k, v in optional.items() if v})
        lines.append(record)
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("title", type=Path, help="a US Code title file (XHTML)")
    ap.add_argument("--out", type=Path, required=True, help="the JSONL file to write")
    ap.add_argument("--jurisdiction", help="jurisdiction to declare (default: the parser's)")
    args = ap.parse_args(argv)
    lines = jsonl_lines(args.title, args.jurisdiction)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as fh:
        for line in lines:
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
    print(f"wrote {args.out}: {len(lines)} provisions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
