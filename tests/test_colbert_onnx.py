"""ColBERT's document encoder on ONNX: vectors close to torch's, its own build key, clear errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch
from legal_passages import legal_docs
from structfirst.ingest.colbert_index import (
    ColbertIndexBuilder,
    colbert_settings,
    import_colbert,
    resolve_checkpoint,
)
from structfirst.ingest.colbert_onnx import (
    CHECKPOINT_BACKENDS,
    doc_checkpoint_class,
    doc_encoder_path,
)
from structfirst.ingest.encoder_config import (
    COLBERT_BACKENDS,
    ENV_COLBERT_BACKEND,
    EncoderConfig,
)
from structfirst.ingest.onnx_encoder import ENV_ONNX_CACHE, OnnxExportError

# token vectors against torch's on the legal passages (on 299 Title 11 passages the int8 export
# gave min 0.899, mean 0.985: eval/bench_encode.py)
ONNX_MIN_COSINE = 0.999
INT8_MIN_COSINE = 0.85
INT8_MEAN_COSINE = 0.97


@pytest.fixture(autouse=True)
def _no_backend_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_COLBERT_BACKEND, raising=False)


@pytest.fixture(scope="module")
def checkpoint_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return resolve_checkpoint(EncoderConfig.resolve(), tmp_path_factory.mktemp("cache"))


def _load(backend: str, checkpoint_dir: Path) -> Any:
    import_colbert()
    settings = colbert_settings(EncoderConfig.resolve())
    return doc_checkpoint_class(backend)(str(checkpoint_dir), colbert_config=settings, verbose=0)


@pytest.fixture(scope="module")
def doc_vectors(checkpoint_dir: Path, one_thread: None) -> dict[str, tuple[Any, list[int]]]:
    texts = [doc.contents for doc in legal_docs()]
    return {b: _load(b, checkpoint_dir).docFromText(texts, bsize=8, keep_dims="flatten")
            for b in CHECKPOINT_BACKENDS}


def test_onnx_doc_vectors_stay_within_their_bounds(doc_vectors: dict) -> None:
    reference, lengths = doc_vectors["torch"]
    for backend, bound in (("onnx", ONNX_MIN_COSINE), ("onnx-int8", INT8_MIN_COSINE)):
        vectors, backend_lengths = doc_vectors[backend]
        assert backend_lengths == lengths  # colbert-ai's tokenization and masks, unchanged
        cosines = (vectors.float() * reference.float()).sum(-1)
        assert cosines.min() > bound, backend
        assert torch.allclose(vectors.float().norm(dim=-1), torch.ones(len(vectors)), atol=1e-4)
    assert (doc_vectors["onnx-int8"][0] * reference).sum(-1).mean() > INT8_MEAN_COSINE


def test_build_key_differs_by_backend(checkpoint_dir: Path) -> None:
    passages = [doc.contents for doc in legal_docs()]
    keys = {ColbertIndexBuilder(EncoderConfig.resolve(colbert_backend=b)).build_key(
        passages, checkpoint_dir) for b in COLBERT_BACKENDS}
    assert len(keys) == len(COLBERT_BACKENDS)
    assert len({doc_encoder_path(checkpoint_dir, b) for b in ("onnx", "onnx-int8")}) == 2


def test_unknown_backend_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_COLBERT_BACKEND, "tensorrt")
    with pytest.raises(ValueError, match=f"{ENV_COLBERT_BACKEND}='tensorrt'"):
        EncoderConfig.resolve()


def test_failed_export_names_the_path(checkpoint_dir: Path, tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    not_a_dir = tmp_path / "cache-is-a-file"
    not_a_dir.write_text("")
    monkeypatch.setenv(ENV_ONNX_CACHE, str(not_a_dir))
    path = doc_encoder_path(checkpoint_dir, "onnx-int8")
    with pytest.raises(OnnxExportError, match=f"{path}: exporting the ColBERT document encoder"):
        _load("onnx-int8", checkpoint_dir)


def test_unloadable_export_names_the_path(checkpoint_dir: Path, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_ONNX_CACHE, str(tmp_path))
    broken = doc_encoder_path(checkpoint_dir, "onnx")
    broken.parent.mkdir(parents=True)
    broken.write_bytes(b"not an onnx model")
    with pytest.raises(OnnxExportError, match=f"{broken}: cannot load"):
        _load("onnx", checkpoint_dir)
