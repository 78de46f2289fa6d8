"""One MiniLM pass for both planes: the dense plane's own vectors, ColBERT's token vectors as
colbert-ai keeps them (without the [D] marker), and a ColBERT build that leaves the dense vectors
in the shared cache."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import faiss
import numpy as np
import pytest
import torch
from legal_passages import PARAPHRASE, S101_31, legal_docs
from structfirst.engine.colbert_plane import ColbertPlane
from structfirst.ingest.colbert_index import (
    ColbertIndexBuilder,
    colbert_settings,
    default_checkpoint_key,
    derived_projection,
    import_colbert,
    resolve_checkpoint,
)
from structfirst.ingest.colbert_onnx import doc_checkpoint_class
from structfirst.ingest.dense_index import DenseEncoder, DenseIndexBuilder
from structfirst.ingest.encoder_config import (
    ENV_COLBERT_BACKEND,
    SHARED_COLBERT_BACKEND,
    EncoderConfig,
)
from structfirst.ingest.shared_pass import SharedPass, serves_dense

# int8 token vectors against torch's float ones, the same tokens (as tests/test_colbert_onnx.py)
INT8_MIN_COSINE = 0.85
INT8_MEAN_COSINE = 0.97


@pytest.fixture(autouse=True)
def _no_backend_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_COLBERT_BACKEND, raising=False)


def _config() -> EncoderConfig:
    return EncoderConfig.resolve(colbert_backend=SHARED_COLBERT_BACKEND)


@pytest.fixture(scope="module")
def shared(one_thread: None) -> SharedPass:
    config = _config()
    return SharedPass(derived_projection(config), default_checkpoint_key(config),
                      config.doc_maxlen)


def test_sentence_vectors_are_the_dense_planes(shared: SharedPass) -> None:
    texts = [doc.contents for doc in legal_docs()]
    sentences, _ = shared.encode(texts)
    dense = DenseEncoder(_config()).encode_passages(texts)
    assert serves_dense(_config())
    np.testing.assert_allclose(sentences, dense, atol=1e-6)


def test_token_vectors_are_colbert_ais_without_the_marker(shared: SharedPass,
                                                           tmp_path: Path) -> None:
    texts = [doc.contents for doc in legal_docs()]
    _, tokens = shared.encode(texts)
    import_colbert()
    checkpoint = doc_checkpoint_class("torch")(
        str(resolve_checkpoint(EncoderConfig.resolve(), tmp_path)),
        colbert_config=colbert_settings(EncoderConfig.resolve()), verbose=0)
    # colbert-ai's own doc(): the same masks (padding, punctuation) and normalization, on the
    # same tokens as the shared pass (no [D] marker), in float32 torch
    batch = shared.tokenizer(texts, padding=True, truncation=True, return_tensors="pt",
                             max_length=shared.max_length)
    with torch.inference_mode():
        reference, mask = checkpoint.doc(batch["input_ids"], batch["attention_mask"],
                                         keep_dims="return_mask")
    kept = mask.squeeze(-1).bool()
    for row, vectors in enumerate(tokens):
        expected = reference[row][kept[row]]
        assert vectors.shape == (len(expected), 128)
        cosines = (torch.from_numpy(vectors) * expected).sum(-1)
        assert cosines.min() > INT8_MIN_COSINE and cosines.mean() > INT8_MEAN_COSINE
        np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # and colbert-ai's own document encoding keeps one more token in each: its [D] marker
    _, lengths = checkpoint.docFromText(texts, bsize=8, keep_dims="flatten")
    assert [len(t) + 1 for t in tokens] == lengths


def test_colbert_build_leaves_the_dense_vectors_in_the_cache(tmp_path: Path,
                                                             one_thread: None) -> None:
    docs = legal_docs()
    config = _config()
    cache = tmp_path / "cache"
    figures = ColbertIndexBuilder(config, cache_dir=cache, progress=False).build(
        docs, tmp_path / "snap" / "colbert")
    assert figures["backend"] == SHARED_COLBERT_BACKEND
    assert figures["dense_vectors_shared"] == len({d.contents for d in docs})
    dense = DenseIndexBuilder(config, cache_dir=cache, progress=False).build(
        docs, tmp_path / "snap" / "dense")
    assert dense["encoded"] == 0 and dense["cache_hits"] == len(docs)
    alone = DenseIndexBuilder(config, cache_dir=tmp_path / "other", progress=False).build(
        docs, tmp_path / "alone" / "dense")
    assert alone["encoded"] == len({d.contents for d in docs})
    shared_vectors = faiss.read_index(str(tmp_path / "snap" / "dense" / "index.faiss"))
    own_vectors = faiss.read_index(str(tmp_path / "alone" / "dense" / "index.faiss"))
    np.testing.assert_allclose(shared_vectors.reconstruct_n(0, len(docs)),
                               own_vectors.reconstruct_n(0, len(docs)), atol=1e-6)
    plane = ColbertPlane(tmp_path / "snap" / "colbert", config)
    insider = [d for d, _ in plane.search("who counts as an insider of a corporate debtor", 3)]
    assert S101_31 in insider
    small = [docid for docid, _ in plane.search(PARAPHRASE, 3)]
    assert any(docid.startswith("/us/usc/t11/s547/c/9@") for docid in small), small


def test_the_dense_plane_is_served_only_by_the_same_encoder(tmp_path: Path) -> None:
    config = _config()
    assert not serves_dense(replace(config, colbert_backend="onnx-int8"))
    assert not serves_dense(replace(config, dense_backend="onnx"))
    assert not serves_dense(replace(config, max_length=128))
    assert not serves_dense(replace(config, dense_model=tmp_path))  # an adapted encoder


def test_shared_backend_needs_the_derived_checkpoint(tmp_path: Path) -> None:
    checkpoint = resolve_checkpoint(EncoderConfig.resolve(), tmp_path)
    with pytest.raises(ValueError, match="derived from the packaged MiniLM"):
        EncoderConfig.resolve(colbert_checkpoint=checkpoint,
                              colbert_backend=SHARED_COLBERT_BACKEND)
