"""Dense plane: FlagEmbedding (packaged MiniLM) + FAISS, the shared embedding cache, the filter."""

from __future__ import annotations

import dataclasses
import threading
from datetime import date
from pathlib import Path

import numpy as np
import pytest
from legal_passages import (
    AMOUNT_QUERY,
    HARD_FILTERS,
    PARAPHRASE,
    S101_31,
    S547_C9_2005,
    S547_C9_2019,
    assert_hard_filter_gives_its_allowed_set,
    legal_docs,
)
from structfirst.engine.dense_plane import DensePlane
from structfirst.ingest.dense_index import DenseEncoder, DenseIndexBuilder, length_buckets
from structfirst.ingest.embedding_cache import EmbeddingCache, text_digest
from structfirst.ingest.encoder_config import (
    ENV_COLBERT_CHECKPOINT,
    ENV_DENSE_MODEL,
    EncoderConfig,
    EncoderNotFoundError,
)


@pytest.fixture(scope="module")
def encoder(one_thread: None) -> DenseEncoder:
    return DenseEncoder(EncoderConfig.resolve(dense_backend="torch"))  # FlagModel's own path


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, encoder: DenseEncoder) -> dict:
    index_dir = tmp_path_factory.mktemp("index")
    builder = DenseIndexBuilder(encoder.config, encoder=encoder, progress=False)
    figures = builder.build(legal_docs(), index_dir / "snap-1" / "dense")
    plane = DensePlane(index_dir / "snap-1" / "dense", encoder=encoder)
    return {"index_dir": index_dir, "figures": figures, "plane": plane}


def test_build_figures_and_default_cache_location(built: dict) -> None:
    docs = legal_docs()
    figures = built["figures"]
    assert figures["docs"] == len(docs) and figures["encoded"] == len(docs)
    assert figures["cache_hits"] == 0 and figures["dim"] == 384
    # <index_dir>/<snapshot>/dense -> the cache is <index_dir>/cache, shared by snapshots
    assert (built["index_dir"] / "cache" / "embeddings").is_dir()


def test_encoder_matches_flagmodel_encode(encoder: DenseEncoder) -> None:
    texts = [doc.contents for doc in legal_docs()[:4]]
    ours = encoder.encode_passages(texts)
    theirs = encoder.model.encode_corpus(texts)
    assert np.allclose(ours, theirs, atol=1e-5)
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_paraphrase_finds_547c9_in_top3(built: dict) -> None:
    top3 = [docid for docid, _ in built["plane"].search(PARAPHRASE, 3)]
    assert any(docid.startswith("/us/usc/t11/s547/c/9@") for docid in top3), top3


def test_insider_definition_first(built: dict) -> None:
    hits = built["plane"].search("who counts as an insider of a corporate debtor", 1)
    assert hits[0][0] == S101_31


def test_filter_is_applied_inside_the_search(built: dict) -> None:
    plane: DensePlane = built["plane"]
    assert plane.search(AMOUNT_QUERY, 1)[0][0] == S547_C9_2005
    allowed = {doc.version_id for doc in legal_docs()} - {S547_C9_2005}
    hits = plane.search(AMOUNT_QUERY, 5, allowed)
    assert hits[0][0] == S547_C9_2019
    assert len(hits) == 5 and all(docid in allowed for docid, _ in hits)
    scores = [score for _, score in hits]
    assert scores == sorted(scores, reverse=True)


def test_filter_to_low_ranked_documents_is_not_short(built: dict) -> None:
    plane: DensePlane = built["plane"]
    unrelated = {doc.version_id for doc in legal_docs() if doc.version_id.startswith("/other/")}
    hits = plane.search(PARAPHRASE, 10, unrelated)
    assert {docid for docid, _ in hits} == unrelated  # all 4, though none is in the top 10
    assert plane.search(PARAPHRASE, 5, {"/not/in/index@2000-01-01"}) == []


def test_second_build_encodes_nothing(built: dict, encoder: DenseEncoder) -> None:
    index_dir = built["index_dir"]
    builder = DenseIndexBuilder(encoder.config, encoder=encoder, progress=False)
    again = builder.build(legal_docs(), index_dir / "snap-2" / "dense")
    assert again["encoded"] == 0 and again["cache_hits"] == len(legal_docs())
    second = DensePlane(index_dir / "snap-2" / "dense", encoder=encoder)
    assert second.search(PARAPHRASE, 5) == built["plane"].search(PARAPHRASE, 5)

    changed = legal_docs()
    changed[0] = dataclasses.replace(changed[0], contents=changed[0].contents + " (amended)")
    third = builder.build(changed, index_dir / "snap-3" / "dense")
    assert third["encoded"] == 1 and third["cache_hits"] == len(changed) - 1


def test_cache_ignores_interrupted_writes(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path, "model-x")
    digests = [text_digest("a"), text_digest("b")]
    cache.put_many(digests, np.eye(2, 3, dtype=np.float32))
    # what a crash mid-write leaves: a temporary file and a vectors file without its keys file
    (cache.dir / ".deadbeef.vecs.npy.1234.tmp").write_bytes(b"partial")
    np.save(cache.dir / "orphan.vecs.npy", np.ones((1, 3), dtype=np.float32))
    reopened = EmbeddingCache(tmp_path, "model-x")
    assert len(reopened) == 2
    hit, miss = reopened.get_many([digests[1], text_digest("c")])
    assert miss is None and np.array_equal(hit, [0.0, 1.0, 0.0])


def test_missing_model_paths_are_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = tmp_path / "no-such-model"
    with pytest.raises(EncoderNotFoundError, match="no-such-model"):
        EncoderConfig.resolve(dense_model=missing)
    monkeypatch.setenv(ENV_DENSE_MODEL, str(missing))
    with pytest.raises(EncoderNotFoundError, match=ENV_DENSE_MODEL):
        EncoderConfig.resolve()
    monkeypatch.delenv(ENV_DENSE_MODEL)
    monkeypatch.setenv(ENV_COLBERT_CHECKPOINT, str(missing))
    with pytest.raises(EncoderNotFoundError, match=ENV_COLBERT_CHECKPOINT):
        EncoderConfig.resolve()


def test_plane_refuses_another_encoder(built: dict) -> None:
    other = dataclasses.replace(EncoderConfig.resolve(), pooling="cls")
    with pytest.raises(ValueError, match="was built with encoder"):
        DensePlane(built["index_dir"] / "snap-1" / "dense", config=other)


def test_concurrent_searches_agree(built: dict) -> None:
    plane: DensePlane = built["plane"]
    queries = [PARAPHRASE, AMOUNT_QUERY, "consumer lease definition", "automatic stay"] * 3
    expected = [plane.search(q, 5) for q in queries]
    results: list[list[tuple[str, float]] | None] = [None] * len(queries)

    def run(i: int) -> None:
        results[i] = plane.search(queries[i], 5)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(queries))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for got, want in zip(results, expected, strict=True):
        assert got is not None
        assert [d for d, _ in got] == [d for d, _ in want]
        assert np.allclose([s for _, s in got], [s for _, s in want], atol=1e-5)


@pytest.mark.parametrize(("day", "jurisdiction", "authorities"), HARD_FILTERS)
def test_hard_filter_gives_what_its_allowed_set_gives(
    built: dict, day: date, jurisdiction: str | None, authorities: frozenset[str] | None
) -> None:
    assert_hard_filter_gives_its_allowed_set(built["plane"], day, jurisdiction, authorities)


def test_length_buckets_bound_padded_tokens() -> None:
    lengths = [10, 200, 12, 11, 190, 9, 250]
    batches = length_buckets(lengths, max_tokens=400, max_batch=3)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    heads = [lengths[b[0]] for b in batches]
    assert heads == sorted(heads, reverse=True)
    for batch in batches:
        assert len(batch) <= 3 and lengths[batch[0]] * len(batch) <= 400 or len(batch) == 1
        assert lengths[batch[0]] == max(lengths[i] for i in batch)
