"""ColBERT's document encoder at ingest through ONNX (`colbert_backend` "onnx" or "onnx-int8").

colbert-ai's `ColBERT.doc` computes `self.linear(self.bert(input_ids, attention_mask)[0])`, then
zeroes punctuation and padding and L2-normalizes each token vector. `doc_checkpoint_class` of an
ONNX backend is colbert-ai's `Checkpoint` whose `bert` is an onnxruntime session over an export of
the checkpoint's own BERT followed by its own linear layer (float32 for "onnx"; for "onnx-int8"
MatMul weights int8 per output channel, see `structfirst.ingest.onnx_encoder.export_module`) and
whose `linear` is the identity;
tokenization, the [D] marker, the masks, normalization, batching and everything after the
encoder (k-means, compression, the index format) stay colbert-ai's. `doc_encoder_backend` has
colbert-ai's indexer construct that class while it indexes.

The export is made at first use and kept, never committed, under

    <onnx cache>/onnx/colbert-doc-<fingerprint of the checkpoint and backend>/model.onnx

Only documents go through it: an indexer encodes no queries, and the ColBERT plane searches with
colbert-ai's own `Checkpoint` (one short forward per query).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from structfirst.ingest.encoder_config import ColbertBackend, model_fingerprint
from structfirst.ingest.onnx_encoder import (
    MODEL_FILE,
    export_module,
    inference_session,
    onnx_cache_root,
    write_export,
)

DOC_INPUTS = ["input_ids", "attention_mask"]  # colbert-ai calls BERT without token_type_ids
ONNX_BACKENDS = ("onnx", "onnx-int8")
# the backends that encode documents through a colbert-ai Checkpoint ("shared-onnx-int8" does
# not: structfirst.ingest.shared_pass)
CHECKPOINT_BACKENDS = ("torch", *ONNX_BACKENDS)


def doc_encoder_path(checkpoint: Path, backend: ColbertBackend) -> Path:
    """Where the export of `checkpoint`'s document encoder for `backend` lives."""
    key = model_fingerprint(Path(checkpoint), f"colbert-doc|{backend}")
    return onnx_cache_root() / "onnx" / f"colbert-doc-{key}" / MODEL_FILE


def _bert_then_linear(model: Any) -> Any:
    """colbert-ai's HF_ColBERT `model` as one module: its language model, then its linear layer."""
    import torch

    class BertThenLinear(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lm, self.linear = model.LM, model.linear

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            return self.linear(self.lm(input_ids, attention_mask=attention_mask)[0])

    return BertThenLinear().eval()


def export_doc_encoder(checkpoint: Any, checkpoint_dir: Path, backend: ColbertBackend) -> Path:
    """The export of the loaded colbert-ai `checkpoint` (from `checkpoint_dir`), written first if
    it is not in the cache yet."""
    if backend not in ONNX_BACKENDS:
        raise ValueError(f"colbert backend {backend!r} is not an ONNX backend")

    def write(out: Path) -> None:
        sample = checkpoint.doc_tokenizer.tensorize(
            ["an example passage", "a second, longer example passage"]
        )
        export_module(_bert_then_linear(checkpoint.model), tuple(sample), DOC_INPUTS,
                      {"output": {0: "batch", 1: "tokens"}}, out, int8=backend == "onnx-int8")

    return write_export(doc_encoder_path(checkpoint_dir, backend), write,
                        f"the ColBERT document encoder of {checkpoint_dir} ({backend})")


class OnnxBert:
    """Called as colbert-ai calls its BERT, returns (the projected token vectors,) from ONNX."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.session = inference_session(path)

    def __call__(self, input_ids: Any, attention_mask: Any) -> tuple[Any]:
        import torch

        feeds = {"input_ids": input_ids.cpu().numpy().astype(np.int64),
                 "attention_mask": attention_mask.cpu().numpy().astype(np.int64)}
        return (torch.from_numpy(self.session.run(None, feeds)[0]),)


def _identity(x: Any) -> Any:
    return x


@functools.cache
def _onnx_doc_checkpoint(backend: ColbertBackend) -> type:
    from colbert.modeling.checkpoint import Checkpoint

    class OnnxDocCheckpoint(Checkpoint):
        """colbert-ai's Checkpoint with BERT + linear run by the export for `backend`."""

        def __init__(self, name: str, colbert_config: Any = None, verbose: int = 3) -> None:
            super().__init__(name, colbert_config, verbose)
            self.onnx_bert = OnnxBert(export_doc_encoder(self, Path(name), backend))

        @property
        def bert(self) -> Any:
            return self.onnx_bert

        @property
        def linear(self) -> Any:  # the export ends with the checkpoint's own linear layer
            return _identity

    return OnnxDocCheckpoint


def doc_checkpoint_class(backend: ColbertBackend) -> type:
    """colbert-ai's `Checkpoint` ("torch") or the one whose doc encoder runs on ONNX."""
    if backend == "torch":
        from colbert.modeling.checkpoint import Checkpoint

        return Checkpoint
    if backend in ONNX_BACKENDS:
        return _onnx_doc_checkpoint(backend)
    raise ValueError(f"colbert backend {backend!r} is not one of torch, {', '.join(ONNX_BACKENDS)}")


@contextlib.contextmanager
def doc_encoder_backend(backend: ColbertBackend) -> Iterator[None]:
    """While indexing, colbert-ai's indexer loads its checkpoint as `doc_checkpoint_class`."""
    from colbert.indexing import collection_indexer

    original = collection_indexer.Checkpoint
    collection_indexer.Checkpoint = doc_checkpoint_class(backend)
    try:
        yield
    finally:
        collection_indexer.Checkpoint = original
