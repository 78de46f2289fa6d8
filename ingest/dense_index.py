"""Plane 2, bi-encoder half: encode every version's text once and keep it in a FAISS index.

`DenseIndexBuilder` writes, under the snapshot's `dense/` directory:

    index.faiss   IndexFlatIP over L2-normalized rows (inner product = cosine); row i: docids[i]
    docids.json   the version id of each row
    config.json   the encoder configuration, its model key, the dimension and the count

Passages are encoded in length-bucketed batches: sorted by token count and cut so that a batch
holds at most `BATCH_TOKENS` padded tokens (many short provisions per forward pass, few long
ones), with a progress line and ETA. `EncoderConfig.dense_backend` chooses what runs the encoder
(torch, torch with int8 Linear layers, an ONNX export in fp32 or int8; `eval/bench_encode.py`
measures the speed and the agreement of the vectors and rankings); the index's `config.json`
records it in the model key, and `DensePlane` encodes its queries with the same backend.

Vectors come from the shared `EmbeddingCache` when the same model has encoded the same text
before, so an unchanged corpus re-ingests without encoding anything. With `remote` (a
`RemoteEncoding`, e.g. `structfirst.ingest.ray_ingest.RayIngest`) the passages missing from the
cache are counted and encoded elsewhere, in the very batches planned here, so the vectors are
the same as this process's.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from structfirst.ingest.embedding_cache import EmbeddingCache, text_digest
from structfirst.ingest.encoder_config import EncoderConfig, set_offline
from structfirst.ingest.index_builder import IndexableDoc
from structfirst.ingest.onnx_encoder import OnnxForward
from structfirst.ingest.progress import StepProgress

INDEX_FILE = "index.faiss"
DOCIDS_FILE = "docids.json"
CONFIG_FILE = "config.json"
CACHE_FLUSH_EVERY = 4096  # vectors encoded between two cache shards (bounds work lost on a crash)
BATCH_TOKENS = 8192  # padded tokens per encoding batch
MAX_BATCH = 256  # passages per encoding batch


def default_cache_dir(out_dir: Path) -> Path:
    """`<index_dir>/cache` for an index written to `<index_dir>/<snapshot>/<name>`."""
    return Path(out_dir).resolve().parent.parent / "cache"


def _device() -> str:
    import torch

    return "cuda:0" if torch.cuda.is_available() else "cpu"


class DenseEncoder:
    """The configured bi-encoder; `encode_*` return float32 L2-normalized rows. Thread-safe.

    FlagEmbedding loads the model. For kind "flag" the forward pass is run here on its
    tokenizer, model and pooling, one batch per call: `FlagModel.encode` runs its first batch
    twice (a batch-size probe) and opens a tqdm bar per call, which would double query latency.
    BGE-M3 goes through `BGEM3FlagModel.encode_*` as published. The ONNX backends run the same
    tokenizer and an onnxruntime export of the same weights (`structfirst.ingest.onnx_encoder`).
    """

    def __init__(self, config: EncoderConfig) -> None:
        set_offline()
        self.config = config
        self.device = _device()
        self._lock = threading.Lock()
        self._onnx: OnnxForward | None = None
        if config.dense_backend in ("onnx", "onnx-int8"):
            from transformers import AutoTokenizer

            self.tokenizer = AutoTokenizer.from_pretrained(str(config.dense_model))
            self._onnx = OnnxForward(config, self.tokenizer)
            return
        common = dict(normalize_embeddings=True, use_fp16=False, devices=self.device,
                      batch_size=config.batch_size, query_max_length=config.query_max_length,
                      passage_max_length=config.max_length)
        if config.dense_kind == "bge-m3":
            from FlagEmbedding import BGEM3FlagModel

            if config.dense_backend != "torch":
                raise ValueError(f"BGE-M3 runs on backend 'torch' only, not "
                                 f"{config.dense_backend!r}")
            self.model = BGEM3FlagModel(str(config.dense_model), **common)
        else:
            from FlagEmbedding import FlagModel

            self.model = FlagModel(str(config.dense_model), pooling_method=config.pooling,
                                   query_instruction_for_retrieval=None, **common)
            self.model.model.float().to(self.device).eval()
            if config.dense_backend == "torch-int8" and self.device == "cpu":
                self.model.model = _int8(self.model.model)
        self.tokenizer = self.model.tokenizer

    @property
    def dim(self) -> int:
        if self._onnx is not None:
            return self._onnx.dim
        return int(self.model.model.config.hidden_size)

    def _flag_forward(self, texts: list[str], max_length: int) -> np.ndarray:
        import torch

        inputs = self.tokenizer(texts, padding=True, truncation=True,
                                max_length=max_length, return_tensors="pt").to(self.device)
        with torch.inference_mode():
            hidden = self.model.model(**inputs, return_dict=True).last_hidden_state
            pooled = self.model.pooling(hidden, inputs["attention_mask"])
            return torch.nn.functional.normalize(pooled, dim=-1).float().cpu().numpy()

    def _encode(self, texts: list[str], query: bool) -> np.ndarray:
        with self._lock:
            if self.config.dense_kind == "bge-m3":
                encode = self.model.encode_queries if query else self.model.encode_corpus
                vecs = encode(texts)["dense_vecs"]
            else:
                limit = self.config.query_max_length if query else self.config.max_length
                forward = self._onnx or self._flag_forward
                vecs = forward(texts, limit)
        return np.ascontiguousarray(vecs, dtype=np.float32).reshape(len(texts), -1)

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        """Tokens per passage after truncation to the passage limit."""
        encoded = self.tokenizer(list(texts), truncation=True,
                                 max_length=self.config.max_length)["input_ids"]
        return [len(ids) for ids in encoded]

    def encode_passages(self, texts: Sequence[str]) -> np.ndarray:
        """One batch of passages (the caller chooses the batch)."""
        return self._encode(list(texts), query=False)

    def encode_query(self, text: str) -> np.ndarray:
        return self._encode([text], query=True)[0]

    def encode_m3(self, texts: Sequence[str]) -> dict[str, Any]:
        """BGE-M3 only: dense vectors, sparse lexical weights and multi-vectors in one pass."""
        if self.config.dense_kind != "bge-m3":
            raise ValueError(f"{self.config.dense_model} is not a BGE-M3 model")
        with self._lock:
            return self.model.encode_corpus(list(texts), return_dense=True, return_sparse=True,
                                            return_colbert_vecs=True)


def _int8(model: Any) -> Any:
    """`model` with its Linear layers quantized to dynamic int8 (weights int8, activations
    quantized per batch)."""
    import warnings

    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.ao's deprecation notices, nothing actionable
        return torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)


def length_buckets(lengths: Sequence[int], max_tokens: int, max_batch: int) -> list[list[int]]:
    """Positions of `lengths`, longest first, cut into batches of at most `max_tokens` padded
    tokens (batch size x its longest) and at most `max_batch` passages."""
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    batches: list[list[int]] = []
    for i in order:
        batch = batches[-1] if batches else None
        if batch and len(batch) < max_batch and lengths[batch[0]] * (len(batch) + 1) <= max_tokens:
            batch.append(i)
        else:
            batches.append([i])
    return batches


class RemoteEncoding(Protocol):
    """Passages encoded outside this process (on Ray actors), batch by batch as planned here."""

    def token_counts(self, config: EncoderConfig, texts: Sequence[str]) -> list[int]:
        """`DenseEncoder.token_counts` of `texts`."""
        ...

    def encode_batches(
        self, config: EncoderConfig, batches: Sequence[Sequence[str]]
    ) -> Iterator[np.ndarray]:
        """`DenseEncoder.encode_passages` of each batch, in order."""
        ...


class DenseIndexBuilder:
    """IndexBuilder "dense": FlagEmbedding vectors of `IndexableDoc.contents` in a FAISS index."""

    name = "dense"

    def __init__(self, config: EncoderConfig | None = None, cache_dir: Path | None = None,
                 encoder: DenseEncoder | None = None, progress: bool = True,
                 batch_tokens: int = BATCH_TOKENS, max_batch: int = MAX_BATCH,
                 remote: RemoteEncoding | None = None) -> None:
        self.config = config or EncoderConfig.resolve()
        self.cache_dir = cache_dir
        self._encoder = encoder
        self.remote = remote
        self.progress = progress
        self.batch_tokens = batch_tokens
        self.max_batch = max_batch

    def encoder(self) -> DenseEncoder:
        if self._encoder is None:
            self._encoder = DenseEncoder(self.config)
        return self._encoder

    def _token_counts(self, texts: list[str]) -> list[int]:
        if self.remote is not None:
            return self.remote.token_counts(self.config, texts)
        return self.encoder().token_counts(texts)

    def _encode_batches(self, batches: list[list[str]]) -> Iterator[np.ndarray]:
        if self.remote is not None:
            return self.remote.encode_batches(self.config, batches)
        encoder = self.encoder()
        return (encoder.encode_passages(batch) for batch in batches)

    def build(self, docs: Sequence[IndexableDoc], out_dir: Path) -> dict[str, Any]:
        import faiss

        started = time.perf_counter()
        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        model_key = self.config.dense_model_key()
        cache = EmbeddingCache(self.cache_dir or default_cache_dir(out_dir), model_key)

        digests = [text_digest(doc.contents) for doc in docs]
        vectors: dict[bytes, np.ndarray] = {}
        for digest, vec in zip(digests, cache.get_many(digests), strict=True):
            if vec is not None:
                vectors[digest] = vec
        hits = sum(1 for d in digests if d in vectors)
        missing: dict[bytes, str] = {}
        for digest, doc in zip(digests, docs, strict=True):
            if digest not in vectors:
                missing.setdefault(digest, doc.contents)

        encode_seconds = 0.0
        if missing:
            todo = list(missing.items())
            if self.remote is None:
                self.encoder()  # loaded before the clock starts
            t0 = time.perf_counter()
            lengths = self._token_counts([text for _, text in todo])
            batches = length_buckets(lengths, self.batch_tokens, self.max_batch)
            encoded_batches = self._encode_batches(
                [[todo[i][1] for i in positions] for positions in batches]
            )
            encode_seconds += time.perf_counter() - t0
            pending: list[tuple[bytes, np.ndarray]] = []
            with StepProgress("dense: encoding", len(todo), self.progress) as step:
                for positions in batches:
                    chunk = [todo[i] for i in positions]
                    t0 = time.perf_counter()
                    encoded = next(encoded_batches)
                    encode_seconds += time.perf_counter() - t0
                    for (digest, _), vec in zip(chunk, encoded, strict=True):
                        vectors[digest] = vec
                        pending.append((digest, vec))
                    if len(pending) >= CACHE_FLUSH_EVERY:
                        cache.put_many([d for d, _ in pending], np.stack([v for _, v in pending]))
                        pending.clear()
                    step.advance(len(chunk))
            if pending:
                cache.put_many([d for d, _ in pending], np.stack([v for _, v in pending]))

        if vectors:
            dim = len(next(iter(vectors.values())))
        else:
            dim = self.encoder().dim
        matrix = np.zeros((len(docs), dim), dtype=np.float32)
        for row, digest in enumerate(digests):
            matrix[row] = vectors[digest]
        index = faiss.IndexFlatIP(dim)
        index.add(matrix)
        faiss.write_index(index, str(out_dir / INDEX_FILE))
        (out_dir / DOCIDS_FILE).write_text(json.dumps([doc.version_id for doc in docs]))
        meta = {"encoder": self.config.to_json(), "model_key": model_key, "dim": dim,
                "count": len(docs)}
        (out_dir / CONFIG_FILE).write_text(json.dumps(meta, indent=2))
        return {
            "backend": self.config.dense_backend,
            "docs": len(docs),
            "unique_texts": len(set(digests)),
            "encoded": len(missing),
            "cache_hits": hits,
            "dim": dim,
            "encode_seconds": round(encode_seconds, 3),
            "seconds": round(time.perf_counter() - started, 3),
        }
