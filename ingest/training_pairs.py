"""Training triples for the dense encoder, mined from a snapshot's own structure.

`PairMiner.transform(snapshot_dir, train_queries)` returns (anchor, positive, hard negative)
triples; the positive and the negative are indexed passages (version ids of the snapshot, whose
text is the `IndexableDoc.contents` the dense index encodes). Positives, by source:

- `heading`: a section's or an interpretation paragraph's heading -> that passage;
- `defined_term`: "definition of <term>" -> the clause that defines it (`defines` edge);
- `cross_ref`: the sentence holding a cross-reference -> the provision it cites (`cross_refs`);
- `threshold`: a § 104 adjustment's line ("Section 547(c)(9) ... 5,850 6,225") -> the provision
  whose amount it adjusts (a Threshold's parent);
- `amendment`: one item of an amendment note ("Subsec. (c)(9). Pub. L. ... substituted ...")
  -> the clause it names, in its version in force when the note's version starts;
- `interpretation`: an official interpretation's text -> the paragraph it interprets;
- `question`: a train-split question -> each grade-2 label, in its version valid at as_of.

Hard negatives are the reference's "structurally similar passages": among the passages with the
positive's jurisdiction and authority whose interval overlaps the positive's (same year band),
the nearest to the positive under the base encoder (the snapshot's own dense vectors), drawn
seeded among the first few that are not positives of the anchor, the positive's node, its
ancestors or descendants, nor the same text.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from structfirst.ingest.dense_index import DOCIDS_FILE, INDEX_FILE
from structfirst.ingest.duckdb_store import STORE_FILE, connect_readonly
from structfirst.ingest.index_builder import IndexableDoc
from structfirst.ingest.snapshot_passages import snapshot_passages

if TYPE_CHECKING:
    from structfirst.eval.query_set import Query

SOURCES = ("heading", "defined_term", "cross_ref", "threshold", "amendment", "interpretation",
           "question")
ANCHOR_WORDS = 64  # anchors are cut to this many words (a query, not a passage)
_SENTENCE = re.compile(r"(?<=[.;:])\s+(?=[A-Z(“\"])")
# one item of an amendment note: "Subsec. (c)(9)." / "Subsecs. (a)(2), ..." / "Par. (3)."
_AMENDMENT_ITEM = re.compile(r"(?:\d{4}—)?(?:Subsecs?|Pars?|Subpars?)\.\s*((?:\([0-9A-Za-z]+\))+)")


@dataclass(frozen=True, slots=True)
class TrainingTriple:
    anchor: str
    positive: str  # version id
    negative: str  # version id
    source: str  # one of SOURCES


@dataclass(frozen=True, slots=True)
class _Pair:
    anchor: str
    positive: str
    source: str
    also_positive: frozenset[str] = frozenset()  # node ids never to use as this anchor's negative


def _cut(text: str, words: int = ANCHOR_WORDS) -> str:
    return " ".join(text.split()[:words])


def _sentence_with(text: str, needle: str) -> str | None:
    for sentence in _SENTENCE.split(text):
        if needle and needle in sentence:
            return sentence
    return None


def _related(a: str, b: str) -> bool:
    """Whether node `a` is `b`, an ancestor or a descendant of it."""
    return a == b or a.startswith(b + "/") or b.startswith(a + "/")


def training_data_sha256(triples: Sequence[TrainingTriple], passages: dict[str, str]) -> str:
    """sha256 over every triple's anchor, source and the texts of its positive and negative."""
    h = hashlib.sha256()
    for t in triples:
        for part in (t.source, t.anchor, passages[t.positive], passages[t.negative]):
            h.update(part.encode())
            h.update(b"\x1f")
    return h.hexdigest()


def pairs_by_source(triples: Iterable[TrainingTriple]) -> dict[str, int]:
    """How many triples each source gave, in the order the sources first appear."""
    return dict(Counter(t.source for t in triples))


def write_triples(triples: Iterable[TrainingTriple], path: Path) -> None:
    path.write_text("".join(json.dumps(asdict(t)) + "\n" for t in triples), "utf-8")


class PairMiner:
    """Mines training triples from one snapshot (see the module docstring)."""

    def __init__(self, caps: dict[str, int] | None = None, question_repeats: int = 1,
                 negatives_pool: int = 5, seed: int = 0) -> None:
        self.caps = caps or {}  # source -> most pairs kept (seeded sample); absent: all
        self.question_repeats = question_repeats  # each question pair appears this many times
        self.negatives_pool = negatives_pool  # the negative is drawn among the first this many
        self.seed = seed

    def transform(self, snapshot_dir: Path, train_queries: Sequence[Query]
                  ) -> tuple[list[TrainingTriple], list[IndexableDoc]]:
        """The triples and the snapshot's passages they point into."""
        for q in train_queries:
            if q.split not in (None, "train"):
                raise ValueError(f"query {q.qid} is in split {q.split!r}: train only")
        snapshot_dir = Path(snapshot_dir)
        docs = snapshot_passages(snapshot_dir)
        by_vid = {d.version_id: d for d in docs}
        pairs = self._structural_pairs(snapshot_dir / STORE_FILE, by_vid)
        pairs += self._question_pairs(train_queries, docs)
        pairs = self._capped(self._deduped(pairs))
        return self._with_negatives(pairs, docs, snapshot_dir), docs

    # -- positives ------------------------------------------------------------------------

    def _structural_pairs(self, store: Path, docs: dict[str, IndexableDoc]) -> list[_Pair]:
        pairs: list[_Pair] = []
        with connect_readonly(store) as con:
            arts = {row[0]: row for row in con.execute(
                "SELECT version_id, node_id, type, heading, text, parent_version_id, "
                "effective_from, json_extract_string(attrs, '$.note_kind') FROM artifacts "
                "ORDER BY rowid"
            ).fetchall()}
            edges = con.execute(
                "SELECT src, dst, type, json_extract_string(attrs, '$.text'), "
                "json_extract_string(attrs, '$.reftype'), json_extract_string(attrs, '$.term') "
                "FROM edges WHERE type IN ('defines', 'cross_refs', 'interprets') "
                "ORDER BY src, dst"
            ).fetchall()
        for vid, _node, kind, heading, text, parent, _start, _note in arts.values():
            if vid in docs and kind in ("Section", "Clause") and heading and heading != text:
                pairs.append(_Pair(_cut(heading), vid, "heading"))
            if kind == "Threshold" and parent in docs and text:
                pairs.append(_Pair(_cut(text), parent, "threshold"))
        for src, dst, kind, ref_text, reftype, term in edges:
            if kind == "defines" and src in docs and term:
                term_node = arts[dst][1] if dst in arts else dst
                pairs.append(_Pair(f"definition of {term}", src, "defined_term",
                                   frozenset({term_node})))
            elif kind == "cross_refs" and reftype != "term" and src in arts and dst in docs:
                sentence = _sentence_with(arts[src][4] or "", ref_text or "")
                if sentence:
                    pairs.append(_Pair(_cut(sentence), dst, "cross_ref", frozenset({arts[src][1]})))
            elif kind == "interprets" and src in arts and dst in docs and arts[src][4]:
                pairs.append(_Pair(_cut(arts[src][4]), dst, "interpretation",
                                   frozenset({arts[src][1]})))
        pairs += self._amendment_pairs(arts.values(), docs)
        return pairs

    def _amendment_pairs(self, arts: Iterable[tuple], docs: dict[str, IndexableDoc]
                         ) -> list[_Pair]:
        versions: dict[str, list[IndexableDoc]] = {}
        for d in docs.values():
            versions.setdefault(d.node_id, []).append(d)
        pairs = []
        for _vid, node, kind, _heading, text, _parent, start, note_kind in arts:
            if kind != "Note" or note_kind != "amendment-note" or "/note/" not in node:
                continue
            section = node.split("/note/", 1)[0]
            items = [m.start() for m in _AMENDMENT_ITEM.finditer(text or "")] + [len(text or "")]
            for m, end in zip(_AMENDMENT_ITEM.finditer(text or ""), items[1:], strict=False):
                target = section + "/" + "/".join(re.findall(r"\(([0-9A-Za-z]+)\)", m.group(1)))
                version = _version_at(versions.get(target, []), start)
                if version is not None:
                    pairs.append(_Pair(_cut(text[m.start():end]), version.version_id,
                                       "amendment", frozenset({node})))
        return pairs

    def _question_pairs(self, queries: Sequence[Query], docs: list[IndexableDoc]
                        ) -> list[_Pair]:
        versions: dict[str, list[IndexableDoc]] = {}
        for d in docs:
            versions.setdefault(d.node_id, []).append(d)
        pairs = []
        for q in queries:
            labeled = frozenset(q.relevant_ids(0))
            for node in sorted(q.primary_ids()):
                version = _version_at(versions.get(node, []), q.as_of)
                if version is not None:
                    pairs += [_Pair(q.question, version.version_id, "question", labeled)
                              ] * self.question_repeats
        return pairs

    # -- dedupe, caps, negatives ----------------------------------------------------------

    def _deduped(self, pairs: list[_Pair]) -> list[_Pair]:
        seen: set[tuple[str, str]] = set()
        out = []
        for p in pairs:
            if p.source == "question" or (p.anchor, p.positive) not in seen:
                seen.add((p.anchor, p.positive))
                out.append(p)
        return out

    def _capped(self, pairs: list[_Pair]) -> list[_Pair]:
        rng = random.Random(self.seed)
        out = []
        for source in SOURCES:
            group = [p for p in pairs if p.source == source]
            cap = self.caps.get(source)
            if cap is not None and len(group) > cap:
                group = rng.sample(group, cap)
            out += group
        return out

    def _with_negatives(self, pairs: list[_Pair], docs: list[IndexableDoc],
                        snapshot_dir: Path) -> list[TrainingTriple]:
        vectors = base_vectors(snapshot_dir, [d.version_id for d in docs])
        row = {d.version_id: i for i, d in enumerate(docs)}
        start = np.array([(d.effective_from or date.min).toordinal() for d in docs])
        end = np.array([(d.effective_to or date.max).toordinal() for d in docs])
        codes: dict[tuple[str, str], int] = {}
        group = np.array([codes.setdefault((d.jurisdiction, d.authority), len(codes))
                          for d in docs])
        digest = [hashlib.sha256(d.contents.encode()).digest() for d in docs]
        positives: dict[str, set[str]] = {}
        for p in pairs:
            positives.setdefault(p.anchor, set()).add(docs[row[p.positive]].node_id)
        rng = random.Random(self.seed)
        triples = []
        for chunk in range(0, len(pairs), 512):
            batch = pairs[chunk:chunk + 512]
            rows = np.array([row[p.positive] for p in batch])
            sims = vectors[rows] @ vectors.T
            for i, (p, r) in enumerate(zip(batch, rows, strict=True)):
                band = (group == group[r]) & (start < end[r]) & (start[r] < end)
                score = np.where(band, sims[i], -np.inf)
                order = np.argsort(-score)[: 50 + self.negatives_pool * 4]
                barred = positives[p.anchor] | p.also_positive
                picks = [
                    j for j in order
                    if np.isfinite(score[j]) and digest[j] != digest[r]
                    and not any(_related(docs[j].node_id, b) for b in barred)
                    and not _related(docs[j].node_id, docs[r].node_id)
                ][: self.negatives_pool]
                if picks:
                    triples.append(TrainingTriple(p.anchor, p.positive,
                                                  docs[rng.choice(picks)].version_id, p.source))
        return triples


def _version_at(versions: list[IndexableDoc], day: date | None) -> IndexableDoc | None:
    """The version in force at `day`, else the latest one."""
    if not versions:
        return None
    for v in versions:
        if day is not None and (v.effective_from or date.min) <= day < (v.effective_to
                                                                         or date.max):
            return v
    return max(versions, key=lambda v: v.effective_from or date.min)


def base_vectors(snapshot_dir: Path, version_ids: Sequence[str]) -> np.ndarray:
    """The snapshot's dense vectors (its base encoder), one row per id of `version_ids`."""
    import faiss

    dense = Path(snapshot_dir) / "dense"
    if not (dense / INDEX_FILE).is_file():
        raise FileNotFoundError(f"{dense}: no dense index (ingest with the dense plane first)")
    index = faiss.read_index(str(dense / INDEX_FILE))
    ids = json.loads((dense / DOCIDS_FILE).read_text())
    matrix = index.reconstruct_n(0, index.ntotal)
    where = {v: i for i, v in enumerate(ids)}
    missing = [v for v in version_ids if v not in where]
    if missing:
        raise ValueError(f"{dense}: {len(missing)} passages have no vector (e.g. {missing[0]})")
    return np.ascontiguousarray(matrix[[where[v] for v in version_ids]])
