"""ONNX backends of the dense encoder: agreement with torch, the index's record, clear errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from legal_passages import PARAPHRASE, legal_docs
from structfirst.engine.dense_plane import DensePlane
from structfirst.ingest.dense_index import CONFIG_FILE, DenseEncoder, DenseIndexBuilder
from structfirst.ingest.encoder_config import (
    ENV_DENSE_BACKEND,
    EncoderConfig,
    model_fingerprint,
)
from structfirst.ingest.onnx_encoder import (
    ENV_ONNX_CACHE,
    OnnxExportError,
    export_onnx,
    onnx_model_path,
)

INT8_MIN_COSINE = 0.95  # the int8 export's vectors against torch's, passage by passage
INT8_MEAN_COSINE = 0.98


@pytest.fixture(autouse=True)
def _no_backend_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_DENSE_BACKEND, raising=False)


@pytest.fixture(scope="module")
def encoders(one_thread: None, onnx_cache: Path) -> dict[str, DenseEncoder]:
    """onnx_cache (conftest): the exports go to this test session's directory."""
    return {b: DenseEncoder(EncoderConfig.resolve(dense_backend=b))
            for b in ("torch", "onnx", "onnx-int8")}


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sum(a * b, axis=1)


def test_onnx_fp32_gives_torch_vectors(encoders: dict[str, DenseEncoder]) -> None:
    texts = [doc.contents for doc in legal_docs()]
    onnx, torch = (encoders[b].encode_passages(texts) for b in ("onnx", "torch"))
    cos = _cosines(onnx, torch)
    assert cos.min() > 0.99
    query = encoders["onnx"].encode_query(PARAPHRASE) @ encoders["torch"].encode_query(PARAPHRASE)
    assert query > 0.99
    assert encoders["onnx"].dim == 384


def test_onnx_int8_stays_within_its_bound(encoders: dict[str, DenseEncoder]) -> None:
    texts = [doc.contents for doc in legal_docs()]
    vecs = encoders["onnx-int8"].encode_passages(texts)
    cos = _cosines(vecs, encoders["torch"].encode_passages(texts))
    assert cos.min() > INT8_MIN_COSINE and cos.mean() > INT8_MEAN_COSINE
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)


def test_export_is_cached_by_model_key(encoders: dict[str, DenseEncoder], onnx_cache: Path) -> None:
    fp32, int8 = (encoders[b].config for b in ("onnx", "onnx-int8"))
    assert onnx_model_path(fp32) != onnx_model_path(int8)
    assert onnx_model_path(int8).is_relative_to(onnx_cache)
    assert onnx_model_path(int8).stat().st_size < onnx_model_path(fp32).stat().st_size / 2
    assert export_onnx(int8) == onnx_model_path(int8)  # already there: nothing exported
    assert sorted(p.name for p in onnx_model_path(int8).parent.iterdir()) == ["model.onnx"]


def test_backend_is_in_the_model_key() -> None:
    assert EncoderConfig.resolve().dense_backend == "onnx-int8"
    base = EncoderConfig.resolve(dense_backend="torch")
    before = model_fingerprint(base.dense_model, "flag|mean|256|normalized")
    assert base.dense_model_key() == f"{base.dense_model.name}-{before}"  # torch: keys unchanged
    keys = {EncoderConfig.resolve(dense_backend=b).dense_model_key()
            for b in ("torch", "torch-int8", "onnx", "onnx-int8")}
    assert len(keys) == 4


def test_index_records_its_backend_and_queries_use_it(
    encoders: dict[str, DenseEncoder], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    encoder = encoders["onnx-int8"]
    dense_dir = tmp_path / "snap" / "dense"
    figures = DenseIndexBuilder(encoder.config, encoder=encoder, progress=False).build(
        legal_docs(), dense_dir
    )
    assert figures["backend"] == "onnx-int8"
    plane = DensePlane(dense_dir)  # no configuration: the backend the index was built with
    assert plane.config.dense_backend == "onnx-int8"
    top3 = [docid for docid, _ in plane.search(PARAPHRASE, 3)]
    assert any(docid.startswith("/us/usc/t11/s547/c/9@") for docid in top3), top3
    with pytest.raises(ValueError, match="backend 'onnx-int8'.*backend 'torch'"):
        DensePlane(dense_dir, config=EncoderConfig.resolve(dense_backend="torch"))
    monkeypatch.setenv(ENV_DENSE_BACKEND, "onnx")
    with pytest.raises(ValueError, match=ENV_DENSE_BACKEND):
        DensePlane(dense_dir)


def test_index_from_before_backends_is_searched_with_torch(
    encoders: dict[str, DenseEncoder], tmp_path: Path
) -> None:
    encoder = encoders["torch"]
    dense_dir = tmp_path / "snap" / "dense"
    DenseIndexBuilder(encoder.config, encoder=encoder, progress=False).build(
        legal_docs()[:3], dense_dir
    )
    meta = json.loads((dense_dir / CONFIG_FILE).read_text())
    del meta["encoder"]["dense_backend"]  # as config.json was written before backends
    (dense_dir / CONFIG_FILE).write_text(json.dumps(meta))
    assert DensePlane(dense_dir).config.dense_backend == "torch"


def test_unknown_backend_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_DENSE_BACKEND, "tensorrt")
    with pytest.raises(ValueError, match=f"{ENV_DENSE_BACKEND}='tensorrt'"):
        EncoderConfig.resolve()
    monkeypatch.delenv(ENV_DENSE_BACKEND)
    with pytest.raises(ValueError, match="'tensorrt' is not one of"):
        EncoderConfig.resolve(dense_backend="tensorrt")


def test_failed_export_names_the_path(tmp_path: Path) -> None:
    weightless = tmp_path / "weightless"
    shutil.copytree(EncoderConfig.resolve().dense_model, weightless,
                    ignore=shutil.ignore_patterns("*.safetensors", "*.bin"))
    config = EncoderConfig.resolve(dense_model=weightless, dense_backend="onnx-int8")
    with pytest.raises(OnnxExportError, match=str(onnx_model_path(config))):
        export_onnx(config)
    assert not onnx_model_path(config).parent.exists()


def test_unloadable_export_names_the_path(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_ONNX_CACHE, str(tmp_path))
    config = EncoderConfig.resolve(dense_backend="onnx")
    broken = onnx_model_path(config)
    broken.parent.mkdir(parents=True)
    broken.write_bytes(b"not an onnx model")
    with pytest.raises(OnnxExportError, match=f"{broken}: cannot load"):
        DenseEncoder(config)
