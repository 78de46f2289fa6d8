"""Why a configuration misses: each answerable query whose top 10 holds no primary label, put
in the first class that explains it, and how often a note (commentary) ranks first.

    python -m structfirst.eval.miss_analysis --index DIR --queries data/queries/dev.jsonl \
        [--config H5] [--types lookup,exception_application] [--show]

The engine gets the question and the case date only (the default protocol). The classes, in
the order they are tried:

- label: no version of any primary label is in force at the question's date in the index;
- filtered out: one is in force, but the engine's hard filter (the jurisdiction or authority
  it read from the question) excludes it;
- wrong level: the top 10 holds an ancestor or a descendant of a primary label (a section
  instead of its clause, or the reverse);
- lost in fusion: some plane's list (top `k_per_plane`) holds a primary label, the final top 10
  does not;
- vocabulary: no plane finds a primary label and the question shares at most one content word
  stem with the label's text and headings ("claw back" against "avoid");
- not retrieved: no plane finds a primary label although they share words.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from structfirst.engine.catalog import ArtifactVersion, Catalog
from structfirst.engine.configuration import get_configuration
from structfirst.engine.engine import Engine
from structfirst.engine.pipeline import QueryFrame
from structfirst.eval.query_set import Query, load_queries

CLASSES = ("label", "filtered out", "wrong level", "lost in fusion", "vocabulary",
           "not retrieved")
TOP = 10
_WORD = re.compile(r"[a-z]{3,}")
_STOP = frozenset(
    "the and for that this with from are was were has have had not any such which who whom "
    "what when where under does did can may shall will would could should than then there "
    "their them they its into about after before other each all more most some only also "
    "been being upon out our your you his her him she how why one two per".split()
)


@dataclass(frozen=True, slots=True)
class Miss:
    qid: str
    query_type: str
    miss_class: str
    detail: str


def stems(text: str) -> set[str]:
    """Lower-cased content words of three letters or more, crudely stemmed."""
    out = set()
    for w in _WORD.findall(text.lower()):
        if w in _STOP:
            continue
        for suffix in ("ing", "ed", "es", "s"):
            if w.endswith(suffix) and len(w) - len(suffix) >= 4:
                w = w[: -len(suffix)]
                break
        out.add(w)
    return out


def related_levels(a: str, b: str) -> bool:
    """True when one node id is a proper ancestor of the other."""
    return a != b and (a.startswith(b + "/") or b.startswith(a + "/"))


def label_text(catalog: Catalog, version: ArtifactVersion) -> str:
    """The version's text, its heading and its ancestors' headings (what a reader sees)."""
    parts = [version.text or "", version.heading or ""]
    node = version.node_id
    while "/" in node.strip("/"):
        node = node.rsplit("/", 1)[0]
        for v in catalog.by_node.get(node, ()):
            if v.heading:
                parts.append(v.heading)
                break
    return " ".join(parts)


def classify(engine: Engine, q: Query, frame: QueryFrame) -> Miss | None:
    """The query's miss class, or None when a primary label is in the top 10."""
    catalog = engine.catalog
    primary = q.primary_ids()
    top = [catalog.versions[c.version_id] for c in frame.candidates[:TOP]]
    if any(v.node_id in primary for v in top):
        return None

    def miss(cls: str, detail: str) -> Miss:
        return Miss(q.qid, q.type, cls, detail)

    in_force = [v for n in primary for v in catalog.by_node.get(n, ()) if v.valid_at(q.as_of)]
    if not in_force:
        return miss("label", f"no version of {sorted(primary)} in force at {q.as_of}")
    allowed = frame.query.allowed
    if not any(v.version_id in allowed for v in in_force):
        return miss("filtered out", f"jurisdiction read as {frame.parsed.jurisdiction.value}")
    near = [v.node_id for v in top if any(related_levels(v.node_id, p) for p in primary)]
    if near:
        return miss("wrong level", f"top 10 holds {near[0]} for {sorted(primary)[0]}")
    gold = {v.version_id for v in in_force}
    found = {
        plane: rank
        for plane, hits in frame.ranked.items()
        for rank, hit in enumerate(hits, 1)
        if hit.version_id in gold
    }
    if found:
        return miss("lost in fusion", ", ".join(f"{p} #{r}" for p, r in sorted(found.items())))
    shared = stems(q.question) & stems(" ".join(label_text(catalog, v) for v in in_force))
    if len(shared) <= 1:
        return miss("vocabulary", f"shared stems {sorted(shared)}")
    return miss("not retrieved", f"shared stems {sorted(shared)[:8]}")


def note_at_rank_one(engine: Engine, frames: Iterable[QueryFrame]) -> tuple[int, int]:
    """How many frames rank a note (commentary, legislative history) first, of those with a
    candidate."""
    firsts = [engine.catalog.versions[f.candidates[0].version_id] for f in frames if f.candidates]
    return sum(v.authority == "note" for v in firsts), len(firsts)


def analyse(engine: Engine, queries: Sequence[Query], config: str, types: set[str] | None
            ) -> tuple[list[Miss], tuple[int, int], Counter[str]]:
    cfg = get_configuration(config)
    pipeline = engine.pipeline(cfg)
    misses, frames, asked = [], [], Counter()
    for q in queries:
        if not q.answerable or not q.labels:
            continue
        frame = pipeline.transform(engine.start_frame(q.question, q.as_of, None, cfg))
        frames.append(frame)
        if types and q.type not in types:
            continue
        asked[q.type] += 1
        found = classify(engine, q, frame)
        if found:
            misses.append(found)
    return misses, note_at_rank_one(engine, frames), asked


def table(misses: Sequence[Miss], asked: Counter[str]) -> str:
    types = sorted(asked)
    head = "| class | " + " | ".join(types) + " | all |"
    lines = [head, "|" + "---|" * (len(types) + 2)]
    for cls in CLASSES:
        row = [sum(m.miss_class == cls and m.query_type == t for m in misses) for t in types]
        lines.append(f"| {cls} | " + " | ".join(map(str, row)) + f" | {sum(row)} |")
    hits = [asked[t] - sum(m.query_type == t for m in misses) for t in types]
    lines.append("| (hit: a primary label in the top 10) | " + " | ".join(map(str, hits))
                 + f" | {sum(hits)} |")
    lines.append("| questions | " + " | ".join(str(asked[t]) for t in types)
                 + f" | {sum(asked.values())} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--queries", type=Path, required=True)
    ap.add_argument("--config", default="H5")
    ap.add_argument("--types", default="", help="comma-separated query types (default: all)")
    ap.add_argument("--show", action="store_true", help="print each miss")
    ap.add_argument("--json", type=Path, help="write the misses and counts here")
    args = ap.parse_args(argv)
    types = set(filter(None, args.types.split(","))) or None
    with Engine.open(args.index) as engine:
        misses, (notes, n), asked = analyse(engine, load_queries(args.queries), args.config,
                                            types)
    print(f"{args.config} on {args.queries} (protocol: question and case date only)")
    print(table(misses, asked))
    print(f"a note ranks first on {notes} of {n} answerable questions")
    if args.show:
        for m in misses:
            print(f"{m.qid:10} {m.query_type:24} {m.miss_class:15} {m.detail}")
    if args.json:
        args.json.write_text(json.dumps({
            "config": args.config, "queries": str(args.queries), "asked": dict(asked),
            "note_rank_one": [notes, n], "misses": [asdict(m) for m in misses]}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
