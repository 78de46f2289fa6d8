"""The dense encoder exported to ONNX and run with onnxruntime (backends "onnx", "onnx-int8").

The export is made from the configured weights at first use (or by `export_onnx`) and kept,
never committed, under

    <onnx cache>/onnx/<model key>/model.onnx

where the model key (`EncoderConfig.dense_model_key`) covers the weights, the pooling and the
backend, and the cache root is `$STRUCTFIRST_ONNX_CACHE` or `~/.cache/structfirst`. The graph
holds the transformer, the pooling and the L2 normalization; "onnx-int8" quantizes its MatMul
weights to int8 per output channel (dynamic quantization: activations quantized per batch).
An export is written to a temporary directory and renamed into place, so a crash never leaves a
half-written model behind; a model that fails to export or load raises `OnnxExportError`
naming its path. `export_module`, `write_export` and `inference_session` serve ColBERT's
document encoder (`structfirst.ingest.colbert_onnx`) as well.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from structfirst.ingest.encoder_config import EncoderConfig, set_offline

ENV_ONNX_CACHE = "STRUCTFIRST_ONNX_CACHE"
MODEL_FILE = "model.onnx"
OPSET = 17
INPUTS = ("input_ids", "attention_mask", "token_type_ids")


class OnnxExportError(RuntimeError):
    """The ONNX export of an encoder could not be written or loaded."""


def onnx_cache_root() -> Path:
    return Path(os.environ.get(ENV_ONNX_CACHE) or Path.home() / ".cache" / "structfirst")


def onnx_model_path(config: EncoderConfig) -> Path:
    """Where the export of `config`'s encoder and backend lives."""
    return onnx_cache_root() / "onnx" / config.dense_model_key() / MODEL_FILE


def pooled_normalized(hidden: Any, attention_mask: Any, pooling: str) -> Any:
    """The sentence vector of token states `hidden`: `pooling` ("mean" or "cls"), L2-normalized."""
    import torch

    if pooling == "cls":
        pooled = hidden[:, 0]
    else:
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
    return torch.nn.functional.normalize(pooled, dim=-1)


def _pooled_module(model: Any, pooling: str) -> Any:
    """`model` followed by `pooled_normalized`, as one module."""
    import torch

    class Pooled(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            hidden = self.model(input_ids=input_ids, attention_mask=attention_mask,
                                token_type_ids=token_type_ids).last_hidden_state
            return pooled_normalized(hidden, attention_mask, pooling)

    return Pooled().eval()


def export_module(module: Any, sample: tuple[Any, ...], input_names: list[str],
                  outputs: dict[str, dict[int, str]], out: Path, int8: bool) -> None:
    """Trace `module` on `sample` into `out` (batch and token axes dynamic on every input, each
    output's as `outputs` names them, in the module's order); with `int8`, its MatMul weights
    quantized to int8 per output channel."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    raw = out.parent / "fp32.onnx" if int8 else out
    axes = {name: {0: "batch", 1: "tokens"} for name in input_names}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation and trace notes
        torch.onnx.export(
            module, sample, str(raw), input_names=input_names, output_names=list(outputs),
            dynamic_axes={**axes, **outputs}, opset_version=OPSET, dynamo=False,
        )
    if int8:
        # per channel: per-tensor scales gave a min cosine of 0.86 to torch's vectors, this 0.98
        quantize_dynamic(str(raw), str(out), weight_type=QuantType.QInt8, per_channel=True)


def _export(config: EncoderConfig, out: Path) -> None:
    """Write the export of `config` to `out`."""
    from transformers import AutoModel, AutoTokenizer

    model = AutoModel.from_pretrained(config.dense_model, attn_implementation="eager").float()
    sample = AutoTokenizer.from_pretrained(config.dense_model)(
        ["an example passage", "a second, longer example passage"], padding=True,
        return_tensors="pt",
    )
    export_module(_pooled_module(model, config.pooling), tuple(sample[name] for name in INPUTS),
                  list(INPUTS), {"output": {0: "batch"}}, out, config.dense_backend == "onnx-int8")


def write_export(path: Path, write: Callable[[Path], None], what: str) -> Path:
    """`path`, written first by `write(path)` if it is not there yet: in a temporary directory
    renamed into place, so a crash leaves nothing half-written; failures name `path` and `what`."""
    if path.is_file():
        return path
    set_offline()
    tmp: Path | None = None
    try:
        path.parent.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".export-", dir=path.parent.parent))
        write(tmp / path.name)
        for scratch in tmp.iterdir():
            if scratch.name != path.name:
                scratch.unlink()
        try:
            tmp.rename(path.parent)
        except OSError:  # another process exported it first
            if not path.is_file():
                raise
    except Exception as exc:
        raise OnnxExportError(f"{path}: exporting {what} to ONNX failed: {exc}") from exc
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    return path


def export_onnx(config: EncoderConfig) -> Path:
    """The export of `config`'s encoder, written first if it is not in the cache yet."""
    if config.dense_backend not in ("onnx", "onnx-int8"):
        raise ValueError(f"backend {config.dense_backend!r} is not an ONNX backend")
    if config.dense_kind != "flag":
        raise ValueError(f"the ONNX backends run kind 'flag' encoders, not {config.dense_kind!r}")
    return write_export(onnx_model_path(config), lambda out: _export(config, out),
                        f"{config.dense_model} ({config.dense_backend})")


def inference_session(path: Path) -> Any:
    """An onnxruntime CPU session over the export at `path`, its threads torch's, not spinning."""
    import onnxruntime as ort
    import torch

    options = ort.SessionOptions()
    options.inter_op_num_threads = 1
    options.intra_op_num_threads = torch.get_num_threads()  # one thread count for both
    # idle threads sleep: spinning ones starve torch (ColBERT, other planes) in the same
    # process; torch's query encoding interleaved with this one's took 502 ms median with
    # spinning, 19 ms without
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:
        raise OnnxExportError(
            f"{path}: cannot load this ONNX export ({exc}); delete {path.parent} "
            "to export it again"
        ) from exc


class OnnxForward:
    """One onnxruntime session over the export; `__call__` returns normalized float32 rows."""

    def __init__(self, config: EncoderConfig, tokenizer: Any) -> None:
        self.path = export_onnx(config)
        self.tokenizer = tokenizer
        self.session = inference_session(self.path)
        self.dim = int(self.session.get_outputs()[0].shape[1] or 0)

    def __call__(self, texts: list[str], max_length: int) -> np.ndarray:
        batch = self.tokenizer(texts, padding=True, truncation=True, max_length=max_length,
                               return_tensors="np")
        feeds = {name: np.asarray(batch[name], dtype=np.int64) for name in INPUTS}
        return self.session.run(None, feeds)[0]
