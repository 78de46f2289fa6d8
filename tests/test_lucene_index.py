"""LuceneIndexBuilder: a real (tiny) Lucene index through pyserini's Anserini."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from structfirst.ingest.index_builder import IndexableDoc
from structfirst.ingest.java_env import JVM_LOCK, ensure_java
from structfirst.ingest.legal_tokenizer import TOKENIZER_VERSION
from structfirst.ingest.lucene_index import (
    DOCIDS_FILE,
    FORMAT,
    INDEX_SUBDIR,
    META_FILE,
    LuceneIndexBuilder,
    read_docids,
)


def _doc(version_id: str, text: str) -> IndexableDoc:
    node_id, _, frm = version_id.partition("@")
    return IndexableDoc(
        version_id=version_id,
        node_id=node_id,
        contents=text,
        jurisdiction="us-federal",
        authority="statute",
        effective_from=date.fromisoformat(frm),
        effective_to=None,
    )


DOCS = [
    _doc("/us/usc/t11/s547/c/9@2013-04-01", "11 U.S.C. § 547(c)(9) less than $6,225"),
    _doc("/us/usc/t11/s547/c/9@2010-04-01", "11 U.S.C. § 547(c)(9) less than $5,850"),
    _doc("/us/usc/t11/s547/b@2005-10-17", "11 U.S.C. § 547(b) the trustee may avoid"),
    _doc("/us/usc/t11/s101/blank@2005-10-17", " -- "),  # tokenizes to nothing
]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("snap") / "lucene"
    return out, LuceneIndexBuilder().build(DOCS, out)


def _index_stats(index_dir: Path) -> dict:
    ensure_java()
    from jnius import autoclass

    with JVM_LOCK:
        utils = autoclass("io.anserini.index.IndexReaderUtils")
        reader = utils.getReader(str(index_dir))
        try:
            stats = utils.getIndexStats(reader)
            out = {key: stats.get(key) for key in ("documents", "unique_terms")}
            out["has_term"] = {
                t: utils.getDF(reader, t) for t in ("§547(c)(9)", "§547", "$6225", "trustee")
            }
        finally:
            reader.close()
    return out


def test_java_env_is_idempotent_and_drops_the_vector_module() -> None:
    import os

    import jnius_config

    ensure_java()
    ensure_java()
    from jnius import autoclass

    assert autoclass("java.lang.Runtime").version().feature() >= 21
    assert not any("jdk.incubator.vector" in o for o in jnius_config.get_options())
    assert any(o.startswith("-Xmx") for o in jnius_config.get_options())
    assert os.environ.get("OPENAI_API_KEY")


def test_figures_and_layout(built: tuple[Path, dict]) -> None:
    out, figures = built
    assert figures["docs"] == 3
    assert figures["empty"] == 1
    assert figures["seconds"] > 0
    assert figures["format"] == FORMAT and figures["tokenizer"] == TOKENIZER_VERSION
    assert LuceneIndexBuilder.name == "lucene"
    assert (out / INDEX_SUBDIR).is_dir()
    assert json.loads((out / META_FILE).read_text())["docs"] == 3
    assert not (out / ".collection").exists()  # the pretokenized JSON is temporary


def test_docids_are_in_doc_number_order_and_sorted(built: tuple[Path, dict]) -> None:
    out, _ = built
    docids = read_docids(out)
    assert docids == sorted(d.version_id for d in DOCS if d.contents.strip(" -"))


def test_index_holds_the_pretokenized_terms(built: tuple[Path, dict]) -> None:
    out, _ = built
    stats = _index_stats(out / INDEX_SUBDIR)
    assert stats["documents"] == 3
    # citations stay whole, with their prefixes; amounts are one normalized term
    assert stats["has_term"] == {"§547(c)(9)": 2, "§547": 3, "$6225": 1, "trustee": 1}


def test_refuses_to_overwrite_an_index(built: tuple[Path, dict]) -> None:
    out, _ = built
    with pytest.raises(FileExistsError):
        LuceneIndexBuilder().build(DOCS, out)


def test_duplicate_version_ids_are_an_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="duplicate version id"):
        LuceneIndexBuilder().build([DOCS[0], DOCS[0]], tmp_path / "lucene")


def test_rebuild_is_identical(built: tuple[Path, dict], tmp_path: Path) -> None:
    out, _ = built
    again = tmp_path / "lucene"
    LuceneIndexBuilder().build(list(reversed(DOCS)), again)
    assert (again / DOCIDS_FILE).read_text() == (out / DOCIDS_FILE).read_text()


def test_no_indexable_text_gives_an_empty_plane(tmp_path: Path) -> None:
    figures = LuceneIndexBuilder().build([DOCS[-1]], tmp_path / "lucene")
    assert figures["docs"] == 0 and figures["empty"] == 1
    assert read_docids(tmp_path / "lucene") == []
