"""Four shards and a merge: the dense plane split by period, merged top-k against the single index.

    python -m structfirst.eval.bench_shards --index DIR [--dense DIR] [--shards 4] [--k 100]
        [--queries data/queries/dev.jsonl]

The snapshot's dense index (or `--dense`, one built from the same corpus; exact inner product,
`IndexFlatIP`) is split into `--shards` shards by period: rows ordered by effective_from, cut
into equal parts, as a corpus sharded by jurisdiction and period would be. Each dev question is
parsed as the engine parses it, its hard filter applied in every shard from that shard's own
interval columns, each shard's top k taken, and the shards' lists merged by score (ties by
version id). The run prints how many merged top-k lists equal the single index's (same scores
rank by rank, same ids above ties with the k-th hit), and the latency of the single search, of
the shard searches (sequential: the time one machine would need) and of the merge itself.
"""

from __future__ import annotations

import argparse
import heapq
import json
import statistics
import time
from datetime import date
from pathlib import Path

import numpy as np
from structfirst.engine.catalog import Catalog, VersionColumns
from structfirst.engine.dense_plane import DensePlane, bitmap_selector
from structfirst.engine.engine import Engine
from structfirst.engine.plane import HardFilter
from structfirst.engine.query_parser import parse_query, query_terms
from structfirst.ingest.corpus import REPO_ROOT

Hits = list[tuple[str, float]]


class Shard:
    """One shard: an exact inner-product index of some rows, with their ids and columns."""

    def __init__(self, vectors: np.ndarray, docids: list[str], catalog: Catalog) -> None:
        import faiss

        self.index = faiss.IndexFlatIP(vectors.shape[1])
        self.index.add(vectors)
        self.docids = docids
        self.columns: VersionColumns = catalog.columns_for(docids)

    def search(self, vector: np.ndarray, k: int, where: HardFilter) -> Hits:
        import faiss

        mask = self.columns.mask(where)
        count = int(mask.sum())
        if count == 0:
            return []
        selector, _bits = bitmap_selector(mask)
        params = faiss.SearchParameters(sel=selector)
        scores, ids = self.index.search(vector, min(k, count), params=params)
        found = zip(ids[0], scores[0], strict=True)
        return [(self.docids[i], float(x)) for i, x in found if i >= 0]


def by_period(plane: DensePlane, catalog: Catalog, n_shards: int) -> list[Shard]:
    vectors = plane.index.reconstruct_n(0, plane.index.ntotal)
    starts = [catalog.versions[d].effective_from for d in plane.docids]
    order = sorted(range(len(starts)), key=lambda i: (starts[i] is not None, starts[i] or 0, i))
    parts = np.array_split(np.array(order, dtype=np.int64), n_shards)
    return [Shard(vectors[rows], [plane.docids[i] for i in rows], catalog) for rows in parts]


def merge(lists: list[Hits], k: int) -> Hits:
    """The k best of the shards' lists by score, ties by version id."""
    return heapq.nsmallest(k, (h for hits in lists for h in hits), key=lambda h: (-h[1], h[0]))


def canonical(hits: Hits) -> Hits:
    return sorted(hits, key=lambda h: (-round(h[1], 5), h[0]))


def same(single: Hits, merged: Hits) -> bool:
    """Equal scores rank by rank, and the same ids above the k-th score (versions that tie with
    the k-th hit, often identical texts, may fill the last places either way)."""
    a, b = canonical(single), canonical(merged)
    if len(a) != len(b) or any(abs(x - y) > 1e-5 for (_, x), (_, y) in zip(a, b, strict=True)):
        return False
    cut = round(a[-1][1], 5) if a else 0.0
    return [d for d, x in a if round(x, 5) > cut] == [d for d, x in b if round(x, 5) > cut]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--dense", type=Path, help="a dense index dir (default: the snapshot's)")
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--queries", type=Path, default=REPO_ROOT / "data" / "queries" / "dev.jsonl")
    args = ap.parse_args()
    engine = Engine.open(args.index)
    plane = DensePlane(args.dense or engine.snapshot.path / "dense")
    shards = by_period(plane, engine.catalog, args.shards)
    records = [json.loads(line) for line in args.queries.read_text().splitlines() if line.strip()]
    timings: dict[str, list[float]] = {"single": [], "shards": [], "merge": []}
    equal = 0
    for rec in records:
        as_of = date.fromisoformat(rec["as_of"]) if rec.get("as_of") else None
        parsed = parse_query(rec["question"], as_of=as_of)
        where = engine.catalog.hard_filter(parsed.as_of.value, parsed.jurisdiction.value)
        vector = plane.encoder.encode_query(query_terms(parsed)).reshape(1, -1)
        t0 = time.perf_counter()
        single = plane.search_vector(vector, args.k, where)
        t1 = time.perf_counter()
        lists = [shard.search(vector, args.k, where) for shard in shards]
        t2 = time.perf_counter()
        merged = merge(lists, args.k)
        t3 = time.perf_counter()
        equal += same(single, merged)
        for name, ms in (("single", t1 - t0), ("shards", t2 - t1), ("merge", t3 - t2)):
            timings[name].append(ms * 1000.0)
    sizes = [len(s.docids) for s in shards]
    print(f"{engine.snapshot.path}: {plane.index.ntotal} vectors in {args.shards} shards {sizes}")
    print(f"{len(records)} dev questions, k={args.k}: merged top-k equal to the single index's "
          f"in {equal}/{len(records)}")
    for name, ms in timings.items():
        ordered = sorted(ms)
        p95 = ordered[round(0.95 * (len(ordered) - 1))]
        print(f"{name:>7}: median {statistics.median(ordered):.3f} ms, p95 {p95:.3f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
