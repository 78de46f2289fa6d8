"""The lexical plane: BM25 over the Lucene index that `LuceneIndexBuilder` writes.

`LexicalPlane(index_dir).search(query, k, allowed)` tokenizes the query with the same
`legal_tokenizer` as the index and runs a Lucene `BooleanQuery` of one `TermQuery` per distinct
query term (boosted by its count, as Anserini's bag-of-words generator does) through a Lucene
`IndexSearcher` with `BM25Similarity(k1, b)`, opened on the index with pyserini's Anserini jar.
Analysis happens in Python only: no Lucene analyzer touches the query, so `§547(c)(9)` is looked
up as the very term the index holds.

The metadata filter runs inside Lucene, before ranking: the BM25 query is a MUST clause and the
filter FILTER clauses of the same `BooleanQuery`, so the top k are the k best *allowed*
documents, never a post-filtered top k that an excluded version could crowd out.

A hard filter (`plane.HardFilter`, what the engine sends) becomes clauses over the index's own
fields, whatever the corpus size: a `TermQuery` on `jurisdiction` (every document holds a term
per prefix of its jurisdiction path), a `TermInSetQuery` on `authority` when authorities are
given, and two numeric range queries on the `effective_from` / `effective_to` doc values
(from <= as_of < to). The range clauses are checked per BM25 candidate inside the conjunction,
so the filter costs a few Java objects per query, not one per allowed version.

An explicit set of version ids (a reranker's candidates, a check) crosses into Java by size:

* up to `TERMS_FILTER_MAX` (64) ids: a `TermInSetQuery` over Anserini's `id` field, which leads
  the conjunction, so a tiny allowed set stays cheap however many documents the terms match;
  building it costs one Java `BytesRef` per id (about 8 µs each through pyjnius);
* more: `NumericDocValuesField.newSlowSetQuery` over the `ord` doc values (a document's own doc
  number), which crosses into Java as one `long[]` and checks each BM25 candidate against a hash
  set; when the set covers more than half the index its complement is sent instead, as a
  MUST_NOT clause. (On 10k documents, 5k allowed ids cost about 1 ms this way and about 45 ms
  as a `TermInSetQuery`; below ~50 ids the two are on par at that size.)

`allowed=None` means no filter; an id set that names no indexed document gives `[]` at once,
and one that names them all runs unfiltered. Ids in `allowed` that the index lacks are ignored.

Thread safety: `search` may be called from several threads. Query analysis and the mapping of
ids to doc numbers run in Python without a lock; every step that touches Java objects holds the
process-wide `java_env.JVM_LOCK` (pyjnius shares bound-method state between instances, see
`structfirst.ingest.java_env`), so Lucene searches of this process run one at a time. A BM25
search over a snapshot-sized index takes milliseconds, so the other planes, which do not touch
the JVM, are what run concurrently. pyjnius attaches each calling thread to the JVM on first use;
pool threads may stay attached, a short-lived thread should call `java_env.detach_thread()`.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path

import numpy as np
from structfirst.engine.plane import Allowed, HardFilter
from structfirst.ingest.index_builder import OPEN_END, OPEN_START
from structfirst.ingest.java_env import JVM_LOCK, ensure_java
from structfirst.ingest.legal_tokenizer import TOKENIZER_VERSION, tokenize
from structfirst.ingest.lucene_index import (
    AUTHORITY_FIELD,
    CONTENTS_FIELD,
    DOCIDS_FILE,
    FORMAT,
    FROM_FIELD,
    ID_FIELD,
    INDEX_SUBDIR,
    JURISDICTION_FIELD,
    META_FILE,
    ORD_FIELD,
    TO_FIELD,
    read_docids,
)

TERMS_FILTER_MAX = 64  # allowed sets up to this size filter on `id` terms, larger on `ord`
MAX_QUERY_TERMS = 1024  # Lucene's default clause limit; longer queries keep their first terms


def query_weights(
    query: str, expansion: Sequence[str] = (), expansion_weight: float = 0.0
) -> dict[str, float]:
    """A question's index terms weighted by their counts (at most `MAX_QUERY_TERMS`, the first
    ones); the tokens of `expansion` not in it join at `expansion_weight` each."""
    terms: Counter[str] = Counter(tokenize(query))
    weights = {t: float(c) for t, c in list(terms.items())[:MAX_QUERY_TERMS]}
    if terms and expansion_weight > 0:
        for token in tokenize(" ".join(expansion)):
            if token not in terms and len(weights) < MAX_QUERY_TERMS:
                weights.setdefault(token, expansion_weight)
    return weights


class _Java:
    """The Java classes the plane uses, looked up once."""

    def __init__(self) -> None:
        from jnius import autoclass, cast

        self.cast = cast
        self.File = autoclass("java.io.File")
        self.ArrayList = autoclass("java.util.ArrayList")
        self.FSDirectory = autoclass("org.apache.lucene.store.FSDirectory")
        self.DirectoryReader = autoclass("org.apache.lucene.index.DirectoryReader")
        self.IndexSearcher = autoclass("org.apache.lucene.search.IndexSearcher")
        self.BM25Similarity = autoclass("org.apache.lucene.search.similarities.BM25Similarity")
        self.BooleanQueryBuilder = autoclass("org.apache.lucene.search.BooleanQuery$Builder")
        self.Occur = autoclass("org.apache.lucene.search.BooleanClause$Occur")
        self.TermQuery = autoclass("org.apache.lucene.search.TermQuery")
        self.BoostQuery = autoclass("org.apache.lucene.search.BoostQuery")
        self.TermInSetQuery = autoclass("org.apache.lucene.search.TermInSetQuery")
        self.Term = autoclass("org.apache.lucene.index.Term")
        self.BytesRef = autoclass("org.apache.lucene.util.BytesRef")
        self.NumericDocValuesField = autoclass("org.apache.lucene.document.NumericDocValuesField")


_java: _Java | None = None
_java_lock = threading.Lock()


def _j() -> _Java:
    global _java
    if _java is None:
        ensure_java()
        with _java_lock, JVM_LOCK:
            if _java is None:
                _java = _Java()
    return _java


class LexicalPlane:
    """BM25 retrieval with an in-Lucene allowed-set filter (see the module docstring)."""

    name = "lexical"

    def __init__(self, index_dir: Path, k1: float = 0.9, b: float = 0.4) -> None:
        self.index_dir = Path(index_dir)
        self.k1, self.b = float(k1), float(b)
        meta_path = self.index_dir / META_FILE
        if not meta_path.is_file():
            raise FileNotFoundError(f"{meta_path}: not a lexical index (run LuceneIndexBuilder)")
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if meta.get("format") != FORMAT:
            raise ValueError(f"{meta_path}: format {meta.get('format')!r}, expected {FORMAT!r}")
        if meta.get("tokenizer") != TOKENIZER_VERSION:
            raise ValueError(
                f"{meta_path}: built with {meta.get('tokenizer')!r}, "
                f"the query side tokenizes with {TOKENIZER_VERSION!r}; rebuild the index"
            )
        self._docids: list[str] = read_docids(self.index_dir)
        self._ord: dict[str, int] = {d: n for n, d in enumerate(self._docids)}
        self._searcher = None
        self._reader = None
        self._directory = None
        if self._docids:
            self._open()

    def _open(self) -> None:
        j = _j()
        index = self.index_dir / INDEX_SUBDIR
        with JVM_LOCK:
            directory = j.FSDirectory.open(j.File(str(index)).toPath())
            reader = None
            try:
                reader = j.DirectoryReader.open(directory)
                max_doc, deleted = reader.maxDoc(), reader.numDeletedDocs()
                if max_doc != len(self._docids) or deleted:
                    raise ValueError(
                        f"{index}: {max_doc} docs ({deleted} deleted), "
                        f"{DOCIDS_FILE} lists {len(self._docids)}"
                    )
                searcher = j.IndexSearcher(j.cast("org.apache.lucene.index.IndexReader", reader))
                similarity = j.BM25Similarity(self.k1, self.b)
                searcher.setSimilarity(similarity)
                # Filters are fresh per query; caching them cost more than it saved (measured).
                searcher.setQueryCache(None)
                self._directory, self._reader, self._searcher = directory, reader, searcher
                self._check_numbering()
            except BaseException:
                if reader is not None:
                    reader.close()
                directory.close()
                self._directory = self._reader = self._searcher = None
                raise

    def _check_numbering(self) -> None:
        """Spot-check that doc numbers, `docids.txt` and the `ord` doc values agree."""
        n_docs = len(self._docids)
        stored = self._searcher.storedFields()
        leaves = self._reader.leaves()
        for n in sorted({0, n_docs // 2, n_docs - 1}):
            docid = stored.document(n).get(ID_FIELD)
            leaf_ctx = leaves.get(self._reader_leaf(n))
            ords = leaf_ctx.reader().getNumericDocValues(ORD_FIELD)
            ok = ords is not None and ords.advanceExact(n - leaf_ctx.docBase)
            if docid != self._docids[n] or not ok or ords.longValue() != n:
                raise ValueError(f"{self.index_dir}: doc {n} does not match {DOCIDS_FILE}")

    def _reader_leaf(self, n: int) -> int:
        leaves = self._reader.leaves()
        for i in range(leaves.size() - 1, -1, -1):
            if leaves.get(i).docBase <= n:
                return i
        raise IndexError(n)

    def __len__(self) -> int:
        return len(self._docids)

    def close(self) -> None:
        if self._reader is not None:
            with JVM_LOCK:
                self._reader.close()
                self._directory.close()
            self._reader = self._searcher = self._directory = None

    def __enter__(self) -> LexicalPlane:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def search(
        self,
        query: str,
        k: int,
        allowed: Allowed | None = None,
        expansion: Sequence[str] = (),
        expansion_weight: float = 0.0,
    ) -> list[tuple[str, float]]:
        """The k best (version id, BM25 score) among `allowed` (all if None), best first;
        the tokens of `expansion` not in `query` join it at `expansion_weight` each."""
        return self.search_weighted(query_weights(query, expansion, expansion_weight), k, allowed)

    def search_weighted(
        self, weights: Mapping[str, float], k: int, allowed: Allowed | None = None
    ) -> list[tuple[str, float]]:
        """The k best (version id, score) among `allowed` for a query of weighted index terms
        (each term's BM25 score times its weight, summed)."""
        if k <= 0 or not self._docids or not weights:
            return []
        filter_kind, filter_ids = None, None
        if isinstance(allowed, HardFilter):
            if allowed.authorities is not None and not allowed.authorities:
                return []
            filter_kind = "hard"
        elif allowed is not None:
            filter_kind, filter_ids = self._plan_filter(allowed)
            if filter_kind == "empty":
                return []

        j = _j()
        with JVM_LOCK:
            if self._searcher is None:
                raise RuntimeError(f"{self.index_dir}: the lexical plane is closed")
            scored = self._bm25_query(j, weights)
            if filter_kind is None:
                query_obj = scored
            elif filter_kind == "hard":
                builder = j.BooleanQueryBuilder()
                builder.add(scored, j.Occur.MUST)
                for clause in self._hard_filter(j, allowed):
                    builder.add(clause, j.Occur.FILTER)
                query_obj = builder.build()
            else:
                if filter_kind == "terms":
                    fq, occur = self._terms_filter(j, filter_ids), j.Occur.FILTER
                else:
                    fq = j.NumericDocValuesField.newSlowSetQuery(ORD_FIELD, *filter_ids)
                    occur = j.Occur.FILTER if filter_kind == "ords" else j.Occur.MUST_NOT
                builder = j.BooleanQueryBuilder()
                builder.add(scored, j.Occur.MUST)
                builder.add(fq, occur)
                query_obj = builder.build()
            hits = self._searcher.search(query_obj, int(k)).scoreDocs
            result = [(sd.doc, sd.score) for sd in hits]
        docids = self._docids
        return [(docids[n], float(score)) for n, score in result]

    def _plan_filter(self, allowed: AbstractSet[str]) -> tuple[str | None, list]:
        """How to filter: ("empty"|None|"terms"|"ords"|"not_ords", ids or doc numbers)."""
        ord_of = self._ord
        ords = [n for n in map(ord_of.get, allowed) if n is not None]
        n_docs = len(self._docids)
        if not ords:
            return "empty", []
        if len(ords) == n_docs:
            return None, []
        if len(ords) <= TERMS_FILTER_MAX:
            return "terms", [self._docids[n] for n in ords]
        if 2 * len(ords) > n_docs:
            mask = np.ones(n_docs, dtype=bool)
            mask[np.fromiter(ords, dtype=np.int64, count=len(ords))] = False
            return "not_ords", np.flatnonzero(mask).tolist()
        return "ords", ords

    @staticmethod
    def _hard_filter(j: _Java, where: HardFilter) -> list:
        """The FILTER clauses of a hard filter over the index's own fields."""
        clauses = []
        if where.as_of is not None:
            day = where.as_of.toordinal()
            clauses += [
                j.NumericDocValuesField.newSlowRangeQuery(FROM_FIELD, OPEN_START, day),
                j.NumericDocValuesField.newSlowRangeQuery(TO_FIELD, day + 1, OPEN_END),
            ]
        if where.jurisdiction is not None:
            clauses.append(j.TermQuery(j.Term(JURISDICTION_FIELD, where.jurisdiction)))
        if where.authorities is not None:
            refs = j.ArrayList()
            for authority in sorted(where.authorities):
                refs.add(j.BytesRef(authority.encode("utf-8")))
            clauses.append(j.TermInSetQuery(AUTHORITY_FIELD, refs))
        return clauses

    @staticmethod
    def _bm25_query(j: _Java, terms: dict[str, float]):
        builder = j.BooleanQueryBuilder()
        should = j.Occur.SHOULD
        for term, weight in terms.items():
            tq = j.TermQuery(j.Term(CONTENTS_FIELD, term))
            clause = tq if weight == 1.0 else j.BoostQuery(tq, float(weight))
            builder.add(clause, should)
        return builder.build()

    @staticmethod
    def _terms_filter(j: _Java, docids: list[str]):
        refs = j.ArrayList()
        for docid in docids:
            ref = j.BytesRef(docid.encode("utf-8"))
            refs.add(ref)
        return j.TermInSetQuery(ID_FIELD, refs)
