"""The Lucene index of the lexical plane, built with pyserini's Anserini.

Layout of `out_dir` (the snapshot's `lucene/` directory):

* `index/`: a Lucene index built by Anserini's `IndexCollection` from a `JsonCollection`,
  `-pretokenized`: each document's `contents` is `" ".join(tokenize(text))` with the project's
  `legal_tokenizer`, indexed by Lucene's whitespace analyzer, so index and query terms are the
  same strings (`§547(c)(9)`, `$6225`, `shall`). Fields: Anserini's `id` (the version id; stored,
  indexed as one term, binary doc values), `contents` (not stored, no positions), and the hard
  filter's term fields (`-fields`): `jurisdiction` (one term per path prefix, so
  `us-federal/cfpb` is found under `us-federal` too) and `authority`; raw JSON and doc vectors
  only when asked for. One segment (`-optimize`), built single-threaded from
  documents sorted by version id, so a rebuild from the same documents is the same index.
* Numeric doc-values fields added after Anserini is done: `ord`, every document's Lucene doc
  number (the lexical plane filters explicit id sets on it, one `long[]` into Java), and
  `effective_from` / `effective_to`, the validity interval as day ordinals
  (`index_builder.day_interval`), which the hard filter's range clauses read.
* `docids.json`: the version ids in Lucene doc-number order (a JSON list; item n is doc n, so
  an id holding a line break or U+2028 round-trips), so results map back to version ids in
  Python and allowed ids map to doc numbers without asking Lucene. `read_docids` reads it, and
  the one-id-per-line `docids.txt` of indexes built before it.
* `meta.json`: counts, the tokenizer version, the figures of the build.

Documents whose tokenized contents are empty cannot match any query; they are left out of the
index (Anserini refuses empty documents) and counted as `empty`.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from structfirst.ingest.index_builder import IndexableDoc, day_interval
from structfirst.ingest.java_env import JVM_LOCK, ensure_java
from structfirst.ingest.legal_tokenizer import TOKENIZER_VERSION, analyze

INDEX_SUBDIR = "index"
DOCIDS_FILE = "docids.json"
LEGACY_DOCIDS_FILE = "docids.txt"  # one id per "\n"-terminated line; read, never written
META_FILE = "meta.json"
ID_FIELD = "id"  # Anserini's docid field
CONTENTS_FIELD = "contents"
ORD_FIELD = "ord"  # numeric doc values: the document's own Lucene doc number
JURISDICTION_FIELD = "jurisdiction"  # terms: every path prefix of the jurisdiction
AUTHORITY_FIELD = "authority"  # term: the authority
FROM_FIELD = "effective_from"  # numeric doc values: day ordinal (index_builder.day_interval)
TO_FIELD = "effective_to"  # numeric doc values: day ordinal, exclusive
FORMAT = "structfirst-lucene/2"


def jurisdiction_terms(jurisdiction: str) -> str:
    """`us-federal/cfpb` -> `us-federal us-federal/cfpb`: the terms a prefix filter matches."""
    parts = jurisdiction.split("/")
    return " ".join("/".join(parts[: n + 1]) for n in range(len(parts)))


class LuceneIndexBuilder:
    """Builds the lexical plane's Lucene index (see the module docstring)."""

    name = "lucene"

    def __init__(
        self,
        *,
        store_raw: bool = False,
        store_docvectors: bool = False,
        memory_buffer_mb: int = 512,
    ) -> None:
        self.store_raw = store_raw
        self.store_docvectors = store_docvectors
        self.memory_buffer_mb = memory_buffer_mb

    def build(self, docs: Sequence[IndexableDoc], out_dir: Path) -> dict[str, Any]:
        t0 = time.perf_counter()
        out_dir = Path(out_dir)
        index_dir = out_dir / INDEX_SUBDIR
        if index_dir.exists() and any(index_dir.iterdir()):
            raise FileExistsError(f"{index_dir}: a Lucene index is already there")
        out_dir.mkdir(parents=True, exist_ok=True)

        ordered = sorted(docs, key=lambda d: d.version_id)
        for prev, cur in zip(ordered, ordered[1:], strict=False):
            if prev.version_id == cur.version_id:
                raise ValueError(f"duplicate version id {cur.version_id!r} among indexable docs")

        collection = out_dir / ".collection"
        shutil.rmtree(collection, ignore_errors=True)
        collection.mkdir()
        written: list[str] = []
        empty = 0
        with (collection / "docs.jsonl").open("w", encoding="utf-8") as fh:
            for doc in ordered:
                contents = analyze(doc.contents)
                if not contents:
                    empty += 1
                    continue
                rec = {
                    "id": doc.version_id,
                    "contents": contents,
                    JURISDICTION_FIELD: jurisdiction_terms(doc.jurisdiction),
                    AUTHORITY_FIELD: doc.authority,
                }
                fh.write(json.dumps(rec, ensure_ascii=False))
                fh.write("\n")
                written.append(doc.version_id)
        t_tok = time.perf_counter()

        try:
            if written:
                self._run_anserini(collection, index_dir, len(written))
                t_idx = time.perf_counter()
                intervals = {
                    d.version_id: day_interval(d.effective_from, d.effective_to) for d in ordered
                }
                docids = _add_doc_values(index_dir, intervals)
                if sorted(docids) != written:
                    raise RuntimeError(f"{index_dir}: indexed ids differ from the ids written")
            else:
                t_idx = time.perf_counter()
                docids = []
        finally:
            shutil.rmtree(collection, ignore_errors=True)
        t_end = time.perf_counter()

        (out_dir / DOCIDS_FILE).write_text(json.dumps(docids, ensure_ascii=False), "utf-8")
        figures: dict[str, Any] = {
            "format": FORMAT,
            "tokenizer": TOKENIZER_VERSION,
            "docs": len(docids),
            "empty": empty,
            "seconds": round(t_end - t0, 3),
            "seconds_tokenize": round(t_tok - t0, 3),
            "seconds_anserini": round(t_idx - t_tok, 3),
            "seconds_ord_field": round(t_end - t_idx, 3),
            "index_bytes": sum(p.stat().st_size for p in index_dir.rglob("*") if p.is_file())
            if index_dir.exists()
            else 0,
            "store_raw": self.store_raw,
            "store_docvectors": self.store_docvectors,
        }
        (out_dir / META_FILE).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
        return figures

    def _run_anserini(self, collection: Path, index_dir: Path, expected: int) -> None:
        args = [
            "-collection", "JsonCollection",
            "-generator", "DefaultLuceneDocumentGenerator",
            "-input", str(collection),
            "-index", str(index_dir),
            "-threads", "1",
            "-memoryBuffer", str(self.memory_buffer_mb),
            "-pretokenized",
            "-fields", JURISDICTION_FIELD, AUTHORITY_FIELD,
            "-optimize",
            "-quiet",
        ]  # fmt: skip
        if self.store_raw:
            args.append("-storeRaw")
        if self.store_docvectors:
            args.append("-storeDocvectors")
        ensure_java()
        from jnius import autoclass

        with JVM_LOCK:
            jargs = autoclass("io.anserini.index.IndexCollection$Args")()
            arglist = autoclass("java.util.ArrayList")()
            for a in args:
                arglist.add(a)
            autoclass("org.kohsuke.args4j.CmdLineParser")(jargs).parseArgument(arglist)
            indexer = autoclass("io.anserini.index.IndexCollection")(jargs)
            indexer.run()
            counters = indexer.getCounters()
            indexed = counters.indexed.get()
            errors = counters.errors.get() + counters.unindexable.get()
            skipped = counters.skipped.get() + counters.empty.get()
        if indexed != expected or errors or skipped:
            raise RuntimeError(
                f"{index_dir}: Anserini indexed {indexed} of {expected} documents "
                f"({errors} errors, {skipped} skipped or empty)"
            )


def _add_doc_values(index_dir: Path, intervals: Mapping[str, tuple[int, int]]) -> list[str]:
    """Give every document its `ord` (doc number), `effective_from` and `effective_to` doc
    values; return the ids by doc number."""
    ensure_java()
    from jnius import autoclass

    with JVM_LOCK:
        directory = autoclass("org.apache.lucene.store.FSDirectory").open(
            autoclass("java.io.File")(str(index_dir)).toPath()
        )
        try:
            reader = autoclass("org.apache.lucene.index.DirectoryReader").open(directory)
            try:
                if reader.numDeletedDocs():
                    raise RuntimeError(f"{index_dir}: unexpected deleted documents")
                to_docid = autoclass("io.anserini.index.IndexReaderUtils").convertLuceneDocidToDocid
                docids = [to_docid(reader, n) for n in range(reader.maxDoc())]
            finally:
                reader.close()

            config = autoclass("org.apache.lucene.index.IndexWriterConfig")(
                autoclass("org.apache.lucene.analysis.core.WhitespaceAnalyzer")()
            )
            config.setOpenMode(
                autoclass("org.apache.lucene.index.IndexWriterConfig$OpenMode").APPEND
            )
            # No merge may renumber the documents between reading their ids and writing `ord`.
            config.setMergePolicy(autoclass("org.apache.lucene.index.NoMergePolicy").INSTANCE)
            writer = autoclass("org.apache.lucene.index.IndexWriter")(directory, config)
            try:
                term_cls = autoclass("org.apache.lucene.index.Term")
                ndv_cls = autoclass("org.apache.lucene.document.NumericDocValuesField")
                update = writer.updateDocValues
                for n, docid in enumerate(docids):
                    start, end = intervals[docid]
                    update(
                        term_cls(ID_FIELD, docid),
                        ndv_cls(ORD_FIELD, n),
                        ndv_cls(FROM_FIELD, start),
                        ndv_cls(TO_FIELD, end),
                    )
                writer.commit()
            finally:
                writer.close()
        finally:
            directory.close()
    return docids


def read_docids(out_dir: Path) -> list[str]:
    """The version ids in doc-number order, from `docids.json` (or a legacy `docids.txt`)."""
    path = Path(out_dir) / DOCIDS_FILE
    if not path.is_file() and (Path(out_dir) / LEGACY_DOCIDS_FILE).is_file():
        text = (Path(out_dir) / LEGACY_DOCIDS_FILE).read_text(encoding="utf-8")
        return text.split("\n")[:-1] if text else []
    try:
        docids = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: unreadable list of doc ids ({exc})") from exc
    if not isinstance(docids, list) or not all(isinstance(d, str) for d in docids):
        raise ValueError(f"{path}: not a JSON list of version ids")
    return docids
