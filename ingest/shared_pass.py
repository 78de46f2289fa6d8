"""One MiniLM pass per passage for both encoding planes (ColBERT backend "shared-onnx-int8").

The derived ColBERT checkpoint is the packaged all-MiniLM-L6-v2 followed by a fixed projection
(`structfirst.ingest.colbert_index`), and the default dense encoder is that same MiniLM, so an
ingest ran the same transformer over every passage twice. Here one int8 ONNX export (MatMul
weights int8 per output channel, as the other exports) has two outputs:

- "sentence": the mean-pooled, L2-normalized vector, computed as the dense export computes it
  (`onnx_encoder.pooled_normalized`), from the same weights and the same tokens, so it equals the
  dense backend "onnx-int8" to float rounding (tested) and fills the dense plane's embedding
  cache under that plane's own model key, when the dense plane is configured as that MiniLM
  (`serves_dense`);
- "tokens": every token state through the checkpoint's projection. ColBERT's document vectors are
  those of the tokens colbert-ai's `ColBERT.doc` keeps (neither padding nor punctuation),
  L2-normalized.

A document is tokenized as the dense encoder tokenizes it, without colbert-ai's [D] marker (an
unused vocabulary row the derived checkpoint never learnt); queries keep colbert-ai's encoding
with its [Q] marker. The export lives, never committed, under
`<onnx cache>/onnx/shared-pass-<derived checkpoint key>/model.onnx`.
"""

from __future__ import annotations

import contextlib
import string
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from structfirst.ingest.dense_index import BATCH_TOKENS, MAX_BATCH, length_buckets
from structfirst.ingest.encoder_config import (
    SHARED_COLBERT_BACKEND,
    EncoderConfig,
    packaged_minilm_dir,
)
from structfirst.ingest.onnx_encoder import (
    INPUTS,
    MODEL_FILE,
    export_module,
    inference_session,
    onnx_cache_root,
    pooled_normalized,
    write_export,
)


def serves_dense(config: EncoderConfig) -> bool:
    """Whether the shared pass's sentence vectors are the dense plane's under `config`: the dense
    encoder is the packaged MiniLM, mean-pooled, on "onnx-int8", truncated where ColBERT is."""
    return (config.colbert_backend == SHARED_COLBERT_BACKEND and config.dense_kind == "flag"
            and config.dense_backend == "onnx-int8" and config.pooling == "mean"
            and config.max_length == config.doc_maxlen
            and config.dense_model.resolve() == packaged_minilm_dir().resolve())


def shared_export_path(checkpoint_key: str) -> Path:
    return onnx_cache_root() / "onnx" / f"shared-pass-{checkpoint_key}" / MODEL_FILE


def _two_output_module(model: Any, projection: Any) -> Any:
    """MiniLM `model` giving (its pooled normalized vector, its projected token states)."""
    import torch

    class SentenceAndTokens(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model
            self.projection = torch.nn.Linear(projection.shape[1], projection.shape[0],
                                              bias=False)
            self.projection.weight.data.copy_(projection)

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            hidden = self.model(input_ids=input_ids, attention_mask=attention_mask,
                                token_type_ids=token_type_ids).last_hidden_state
            return (pooled_normalized(hidden, attention_mask, "mean"),
                    self.projection(hidden))

    return SentenceAndTokens().eval()


class SharedPass:
    """The export over the packaged MiniLM with `projection` ([dim, hidden], the derived ColBERT
    checkpoint's), keyed by that checkpoint's key; `encode` gives both planes' vectors."""

    def __init__(self, projection: Any, checkpoint_key: str, max_length: int) -> None:
        from transformers import AutoTokenizer

        base = packaged_minilm_dir()
        self.max_length = max_length
        self.tokenizer = AutoTokenizer.from_pretrained(str(base))

        def write(out: Path) -> None:
            from transformers import AutoModel

            model = AutoModel.from_pretrained(str(base), attn_implementation="eager").float()
            sample = self.tokenizer(["an example passage", "a second, longer example passage"],
                                    padding=True, return_tensors="pt")
            export_module(_two_output_module(model, projection),
                          tuple(sample[name] for name in INPUTS), list(INPUTS),
                          {"sentence": {0: "batch"}, "tokens": {0: "batch", 1: "tokens"}},
                          out, int8=True)

        self.path = write_export(shared_export_path(checkpoint_key), write,
                                 f"the shared MiniLM pass of {checkpoint_key}")
        self.session = inference_session(self.path)
        self.dim = int(self.session.get_outputs()[0].shape[1])  # the sentence vector's
        # colbert-ai's skiplist: each punctuation character and its first token
        self.skip = np.array(sorted({
            ids[0] for symbol in string.punctuation
            if (ids := self.tokenizer.encode(symbol, add_special_tokens=False))
        }), dtype=np.int64)

    def encode(self, texts: Sequence[str], advance: Callable[[int], None] | None = None,
               ) -> tuple[np.ndarray, list[np.ndarray]]:
        """Per text, its sentence vector (rows of a float32 matrix) and its ColBERT document
        vectors (float32, one row per kept token), in length-bucketed batches; `advance(n)`
        after each batch of n."""
        encoded = self.tokenizer(list(texts), truncation=True, max_length=self.max_length)
        sentences = np.zeros((len(texts), self.dim), dtype=np.float32)
        tokens: list[np.ndarray] = [sentences[:0]] * len(texts)  # each replaced below
        lengths = [len(row) for row in encoded["input_ids"]]
        for positions in length_buckets(lengths, BATCH_TOKENS, MAX_BATCH):
            batch = self.tokenizer.pad({name: [encoded[name][i] for i in positions]
                                        for name in INPUTS}, return_tensors="np")
            feeds = {name: np.asarray(batch[name], dtype=np.int64) for name in INPUTS}
            sentence, projected = self.session.run(None, feeds)
            sentences[positions] = sentence
            keep = (feeds["attention_mask"] == 1) & ~np.isin(feeds["input_ids"], self.skip)
            for row, i in enumerate(positions):
                kept = projected[row][keep[row]]
                norms = np.linalg.norm(kept, axis=1, keepdims=True)
                tokens[i] = (kept / np.maximum(norms, 1e-12)).astype(np.float32)
            if advance is not None:
                advance(len(positions))
        return sentences, tokens


@contextlib.contextmanager
def shared_pass_indexing(shared: SharedPass, advance: Callable[[int], None],
                         sentences: dict[str, np.ndarray]) -> Iterator[None]:
    """While indexing, colbert-ai's collection encoder runs `shared` instead of its checkpoint,
    and each passage's sentence vector is kept in `sentences` (by text)."""
    import torch
    from colbert.indexing.collection_encoder import CollectionEncoder

    original = CollectionEncoder.encode_passages

    def encode_passages(self: Any, passages: list[str]) -> Any:
        if not passages:
            return None, None
        vectors, tokens = shared.encode(passages, advance)
        sentences.update(zip(passages, vectors, strict=True))
        return torch.from_numpy(np.concatenate(tokens)), [len(t) for t in tokens]

    CollectionEncoder.encode_passages = encode_passages
    try:
        yield
    finally:
        CollectionEncoder.encode_passages = original
