"""Plane 2, late-interaction half: a colbert-ai PLAID index of every version's text.

`ColbertIndexBuilder` runs colbert-ai's own `Indexer` (k-means centroids, residual compression
at `nbits` per dimension, IVF) in-process (`avoid_fork_if_possible`, one rank: nothing is
spawned) and writes, under the snapshot's `colbert/` directory:

    plaid/                  the colbert-ai index (metadata.json, centroids, codes, residuals, ivf)
    docids.json             the version id of each passage id (pid i is docids[i])
    structfirst.json        the checkpoint it was built with (relative to this directory when it
                            lies in the shared cache) and the build figures

The checkpoint is `EncoderConfig.colbert_checkpoint` when one is configured. Otherwise one is
derived once from the packaged all-MiniLM-L6-v2 and kept in the shared cache
(`<cache_dir>/colbert/<key>/`), in colbert-ai's checkpoint format (HF weights, tokenizer and
`artifact.metadata`), so colbert-ai loads it like any other checkpoint. The derivation:

- the encoder is MiniLM as published; MaxSim runs over its last-layer contextual token vectors;
- ColBERT's linear projection is, by default (`colbert_dim` 128), a fixed random orthonormal
  projection 384 -> 128 (seed `PROJECTION_SEED`), which preserves inner products up to the usual
  Johnson-Lindenstrauss distortion: no weights are trained or invented. 128 rather than the
  identity at 384, because colbert-ai computes residual quantiles over a held-out sample with
  `torch.quantile`, which refuses more than 16M elements (50k held-out vectors x 384 exceed it
  on a corpus the size of all Title 11 editions); `colbert_dim` 384 gives the identity;
- nothing is trained: this is zero-shot late interaction over a bi-encoder's token states, an
  honest baseline until a real ColBERT checkpoint (e.g. colbertv2.0) is configured.

K-means is sized for the corpus (`corpus_sized_kmeans`): colbert-ai's own plan trains
2^floor(log2(16 sqrt(E))) centroids for E token vectors on up to 16 sqrt(120 N) of the N
passages, which on the Title 11 editions (10.7k passages, 1.04M vectors) is every passage
encoded twice and 16,384 centroids (12-19 minutes of k-means on two cores). Here the plan is
`EncoderConfig.partitions_per_sqrt` sqrt(E) centroids and `kmeans_sample_per_sqrt` sqrt(120 N)
sampled passages (either None: colbert-ai's own); `eval/bench_encode.py` measures the time and
the recall of PLAID search against exhaustive MaxSim under both plans.

`EncoderConfig.colbert_backend` chooses what runs the document encoder while indexing:
colbert-ai's checkpoint on torch, or its BERT and linear layer as an int8 ONNX export
(`structfirst.ingest.colbert_onnx`); `structfirst.json` records it with the encoder settings.

A build is keyed by the checkpoint's weights, the ColBERT settings, the document encoder's
backend, colbert-ai's version and every passage in order (`build_key`), and kept under
`<cache_dir>/colbert-index/<key>/`: an ingest whose passages, checkpoint and settings are those
of an earlier one (say, with only a new dense encoder) copies that index instead of encoding
and clustering again.

The k-means sample's passages are encoded once (`sample_encoded_once`), not once for k-means
and again in the index pass as colbert-ai would. colbert-ai's C++ extensions compile in a
background process from `prepare` on (`structfirst.ingest.colbert_extensions`).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import math
import os
import random
import shutil
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from structfirst.ingest.colbert_extensions import BuildProcess, start_build
from structfirst.ingest.colbert_onnx import doc_encoder_backend
from structfirst.ingest.dense_index import default_cache_dir
from structfirst.ingest.embedding_cache import EmbeddingCache, text_digest
from structfirst.ingest.encoder_config import (
    SHARED_COLBERT_BACKEND,
    EncoderConfig,
    model_fingerprint,
    packaged_minilm_dir,
    set_offline,
)
from structfirst.ingest.index_builder import IndexableDoc
from structfirst.ingest.progress import StepProgress
from structfirst.ingest.shared_pass import SharedPass, serves_dense, shared_pass_indexing

PLAID_DIR = "plaid"
DOCIDS_FILE = "docids.json"
META_FILE = "structfirst.json"
INDEX_CACHE = "colbert-index"  # <cache_dir>/colbert-index/<build key>/: built PLAID indexes
BUILD_FIGURES = "figures.json"  # written last: its presence marks a complete cached build
# the EncoderConfig fields a PLAID index depends on (besides the checkpoint's weights)
COLBERT_SETTINGS = ("colbert_dim", "nbits", "doc_maxlen", "query_maxlen", "kmeans_niters",
                    "partitions_per_sqrt", "kmeans_sample_per_sqrt")
PROJECTION_SEED = 547
KMEANS_SAMPLE_SEED = 12345
TYPICAL_DOCLEN = 120  # colbert-ai's: the sample size does not depend on doc_maxlen
# colbert-ai keeps its run configuration on a process-wide stack (`Run()`), which Indexer and
# Searcher read while they are constructed: one construction at a time per process
COLBERT_RUN_LOCK = threading.Lock()


def provenance_without_git() -> Any:
    """colbert-ai's provenance record (host, time, command) without the git state of the
    working directory: colbert-ai reads the branch of whatever repository the process runs in
    and raises on a detached HEAD (a CI checkout of a commit). The snapshot records structfirst's
    own provenance."""
    from colbert.utils.utils import dotdict

    meta = dotdict()
    meta.hostname = socket.gethostname()
    meta.current_datetime = time.strftime("%b %d, %Y ; %l:%M%p %Z (%z)")
    meta.cmd = " ".join(sys.argv)
    return meta


def import_colbert() -> Any:
    """Import colbert-ai without keeping the process-wide settings its import changes.

    Importing it forces multiprocessing's start method to "spawn" and sets
    TOKENIZERS_PARALLELISM=true for the whole process; neither is needed in-process, so both
    are put back. The configs it saves get `provenance_without_git`.
    """
    import multiprocessing

    set_offline()
    method = multiprocessing.get_start_method(allow_none=True)
    tokenizers = os.environ.get("TOKENIZERS_PARALLELISM")
    import colbert
    import colbert.infra

    # by its full name: the package `colbert.infra.config` re-exports names that shadow it
    importlib.import_module("colbert.infra.config.base_config").get_metadata_only = (
        provenance_without_git)
    multiprocessing.set_start_method(method, force=True)
    if tokenizers is None:
        os.environ.pop("TOKENIZERS_PARALLELISM", None)
    else:
        os.environ["TOKENIZERS_PARALLELISM"] = tokenizers
    return colbert


@contextlib.contextmanager
def unpadded_doc_batches() -> Iterator[None]:
    """While indexing, run each document batch at its own length, not the collection's longest.

    colbert-ai's DocTokenizer pads every document of a collection chunk (up to 50 batches) to
    the longest one (up to doc_maxlen) and only then sorts and splits it into batches, so on
    short legal provisions most of each forward pass is padding (about 3x the work at 63 tokens
    a passage and doc_maxlen 256). The batches are length-sorted already: this trims each one to
    its longest document before `Checkpoint.doc` and pads the output back, which leaves every
    real token's vector as it was (pad positions are masked out of attention and dropped).
    """
    import torch
    from colbert.modeling.checkpoint import Checkpoint

    original = Checkpoint.doc

    def doc(self: Any, input_ids: Any, attention_mask: Any, keep_dims: Any = True,
            to_cpu: bool = False) -> Any:
        full, width = input_ids.size(1), int(attention_mask.sum(-1).max())
        if keep_dims != "return_mask" or width == full:
            return original(self, input_ids, attention_mask, keep_dims=keep_dims, to_cpu=to_cpu)
        D, mask = original(self, input_ids[:, :width], attention_mask[:, :width],  # noqa: N806
                           keep_dims=keep_dims, to_cpu=to_cpu)
        return (torch.cat([D, D.new_zeros(D.size(0), full - width, D.size(2))], dim=1),
                torch.cat([mask, mask.new_zeros(mask.size(0), full - width, mask.size(2))], dim=1))

    Checkpoint.doc = doc
    try:
        yield
    finally:
        Checkpoint.doc = original


def partition_count(num_embeddings: float, config: EncoderConfig) -> int:
    """Centroids for `num_embeddings` token vectors: 2^round(log2(f sqrt(E))), at least 16
    (colbert-ai's 2^floor(log2(16 sqrt(E))) when f is None)."""
    root = math.sqrt(max(num_embeddings, 1.0))
    if config.partitions_per_sqrt is None:
        return int(2 ** math.floor(math.log2(16 * root)))
    return int(2 ** round(math.log2(max(config.partitions_per_sqrt * root, 16.0))))


def kmeans_sample_size(num_passages: int, config: EncoderConfig) -> int:
    """Passages encoded to train k-means: f sqrt(120 N) (f = 16 when None), at most N."""
    factor = config.kmeans_sample_per_sqrt or 16.0
    return min(num_passages, 1 + int(factor * math.sqrt(TYPICAL_DOCLEN * num_passages)))


def kmeans_sample_pids(num_passages: int, config: EncoderConfig) -> set[int]:
    """The passage ids sampled to train k-means (`kmeans_sample_size` of them, seeded)."""
    size = kmeans_sample_size(num_passages, config)
    return set(random.Random(KMEANS_SAMPLE_SEED).sample(range(num_passages), size))


@contextlib.contextmanager
def corpus_sized_kmeans(config: EncoderConfig) -> Iterator[None]:
    """While indexing, sample and partition by `kmeans_sample_size` and `partition_count`
    instead of colbert-ai's constants (see the module docstring)."""
    from colbert.indexing.collection_indexer import CollectionIndexer

    sample_pids, save_plan = CollectionIndexer._sample_pids, CollectionIndexer._save_plan

    def _sample_pids(self: Any) -> set[int]:
        return kmeans_sample_pids(len(self.collection), config)

    def _save_plan(self: Any) -> None:
        self.num_partitions = partition_count(self.num_embeddings_est, config)
        save_plan(self)

    CollectionIndexer._sample_pids, CollectionIndexer._save_plan = _sample_pids, _save_plan
    try:
        yield
    finally:
        CollectionIndexer._sample_pids, CollectionIndexer._save_plan = sample_pids, save_plan


@contextlib.contextmanager
def sample_encoded_once() -> Iterator[None]:
    """While indexing, encode the k-means sample's passages once, not twice.

    colbert-ai encodes the sampled passages to train k-means, then every passage again in the
    index pass. Here the sample's vectors are kept from the first pass in float16, as colbert-ai
    stores them (on CPU the index pass halves each chunk before compressing it), and handed back
    in the encoder's dtype in the second, which encodes only the other passages.
    """
    import torch
    from colbert.indexing.collection_encoder import CollectionEncoder
    from colbert.indexing.collection_indexer import CollectionIndexer

    encode = CollectionEncoder.encode_passages
    sample_embeddings = CollectionIndexer._sample_embeddings
    kept: dict[str, Any] = {}  # passage text -> its vectors, float16
    dtype: Any = None  # the encoder's
    recording = False

    def _sample_embeddings(self: Any, sampled_pids: set[int]) -> Any:
        nonlocal recording
        recording = True
        try:
            return sample_embeddings(self, sampled_pids)
        finally:
            recording = False

    def encode_passages(self: Any, passages: list[str]) -> Any:
        nonlocal dtype
        if recording or not any(passage in kept for passage in passages):
            embs, doclens = encode(self, passages)
            if recording and embs is not None:
                dtype = embs.dtype
                for passage, vectors in zip(passages, torch.split(embs, doclens), strict=True):
                    kept[passage] = vectors.half()
            return embs, doclens
        fresh = [passage for passage in passages if passage not in kept]
        encoded: dict[str, Any] = {}
        if fresh:
            embs, doclens = encode(self, fresh)
            encoded = dict(zip(fresh, torch.split(embs, doclens), strict=True))
        parts = [encoded[p] if p in encoded else kept[p].to(dtype) for p in passages]
        return torch.cat(parts), [part.size(0) for part in parts]

    CollectionEncoder.encode_passages = encode_passages
    CollectionIndexer._sample_embeddings = _sample_embeddings
    try:
        yield
    finally:
        CollectionEncoder.encode_passages = encode
        CollectionIndexer._sample_embeddings = sample_embeddings


def passages_to_encode(passages: Sequence[str], config: EncoderConfig) -> int:
    """How many passages an index build encodes: the k-means sample, then every passage whose
    text is not in it (`sample_encoded_once`)."""
    sample = kmeans_sample_pids(len(passages), config)
    sampled = {passages[pid] for pid in sample}
    return len(sample) + sum(passage not in sampled for passage in passages)


@contextlib.contextmanager
def counted_doc_batches(advance: Callable[[int], None]) -> Iterator[None]:
    """While indexing, call `advance(n)` after every batch of n passages colbert-ai encodes."""
    from colbert.modeling.checkpoint import Checkpoint

    original = Checkpoint.doc

    def doc(self: Any, input_ids: Any, *args: Any, **kwargs: Any) -> Any:
        out = original(self, input_ids, *args, **kwargs)
        advance(int(input_ids.size(0)))
        return out

    Checkpoint.doc = doc
    try:
        yield
    finally:
        Checkpoint.doc = original


def colbert_settings(config: EncoderConfig, **extra: Any) -> Any:
    """The ColBERTConfig for indexing and search under `config`."""
    ColBERTConfig = import_colbert().infra.ColBERTConfig  # noqa: N806

    return ColBERTConfig(nbits=config.nbits, doc_maxlen=config.doc_maxlen,
                         query_maxlen=config.query_maxlen, kmeans_niters=config.kmeans_niters,
                         avoid_fork_if_possible=True, **extra)


def _projection(hidden: int, dim: int) -> Any:
    import torch

    if dim == hidden:
        return torch.eye(hidden)
    if not 0 < dim < hidden:
        raise ValueError(f"colbert_dim must be in 1..{hidden}, not {dim}")
    generator = torch.Generator().manual_seed(PROJECTION_SEED)
    q, _ = torch.linalg.qr(torch.randn(hidden, dim, generator=generator))
    return q.T.contiguous()  # [dim, hidden], orthonormal rows


def _packaged_hidden_size() -> int:
    return int(json.loads((packaged_minilm_dir() / "config.json").read_text())["hidden_size"])


def derived_projection(config: EncoderConfig) -> Any:
    """The linear layer of the checkpoint derived from the packaged MiniLM ([dim, hidden])."""
    return _projection(_packaged_hidden_size(), config.colbert_dim)


def default_checkpoint_key(config: EncoderConfig) -> str:
    """The cache directory name of the checkpoint derived from the packaged MiniLM."""
    base = packaged_minilm_dir()
    hidden = _packaged_hidden_size()
    kind = "identity" if config.colbert_dim == hidden else f"proj{config.colbert_dim}"
    settings = f"{config.colbert_dim}|{PROJECTION_SEED}|{config.doc_maxlen}|{config.query_maxlen}"
    return f"minilm-l6-{kind}-{model_fingerprint(base, settings)}"


def ensure_default_checkpoint(checkpoint_dir: Path, config: EncoderConfig) -> Path:
    """Write the MiniLM-derived checkpoint to `checkpoint_dir` unless it is there already."""
    if (checkpoint_dir / "artifact.metadata").is_file():
        return checkpoint_dir
    import_colbert()
    import torch
    from colbert.modeling.hf_colbert import class_factory
    from transformers import AutoTokenizer
    from transformers.utils import logging as hf_logging

    base = str(packaged_minilm_dir())
    settings = colbert_settings(config, dim=config.colbert_dim)
    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()  # "linear.weight newly initialized": it is set just below
    try:
        model = class_factory(base).from_pretrained(base, colbert_config=settings)
    finally:
        hf_logging.set_verbosity(verbosity)
    with torch.no_grad():
        model.linear.weight.copy_(derived_projection(config))
    tmp = checkpoint_dir.with_name(f".{checkpoint_dir.name}.{uuid.uuid4().hex}.tmp")
    tmp.mkdir(parents=True)
    try:
        model.save_pretrained(str(tmp))
        AutoTokenizer.from_pretrained(base).save_pretrained(str(tmp))
        settings.save_for_checkpoint(str(tmp))
        os.replace(tmp, checkpoint_dir)
    except OSError:
        if not (checkpoint_dir / "artifact.metadata").is_file():  # not a concurrent writer's
            raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return checkpoint_dir


def resolve_checkpoint(config: EncoderConfig, cache_dir: Path) -> Path:
    if config.colbert_checkpoint is not None:
        return config.colbert_checkpoint
    return ensure_default_checkpoint(cache_dir / "colbert" / default_checkpoint_key(config), config)


class ColbertIndexBuilder:
    """IndexBuilder "colbert": a colbert-ai PLAID index of `IndexableDoc.contents`."""

    name = "colbert"

    def __init__(self, config: EncoderConfig | None = None, cache_dir: Path | None = None,
                 verbose: int = 0, progress: bool = True) -> None:
        self.config = config or EncoderConfig.resolve()
        self.cache_dir = cache_dir
        self.verbose = verbose
        self.progress = progress
        self._extensions: BuildProcess | None = None

    def prepare(self) -> None:
        """Start compiling colbert-ai's C++ extensions in the background; `build` waits."""
        self._extensions = start_build()

    def build(self, docs: Sequence[IndexableDoc], out_dir: Path) -> dict[str, Any]:
        started = time.perf_counter()
        out_dir = Path(out_dir).resolve()
        out_dir.mkdir(parents=True, exist_ok=True)
        cache_dir = Path(self.cache_dir or default_cache_dir(out_dir)).resolve()
        checkpoint = resolve_checkpoint(self.config, cache_dir)
        if docs:
            figures = self._index_or_reuse(
                [doc.contents for doc in docs], out_dir / PLAID_DIR, checkpoint, cache_dir
            )
        else:
            figures = {"embeddings": 0, "partitions": 0}
        if self._extensions is not None:
            self._extensions.wait()
            self._extensions = None
        (out_dir / DOCIDS_FILE).write_text(json.dumps([doc.version_id for doc in docs]))
        figures = {"docs": len(docs), **figures,
                   "seconds": round(time.perf_counter() - started, 3)}
        default = self.config.colbert_checkpoint is None
        # the derived checkpoint lives in the shared cache: recorded relative to this directory,
        # so the index dir can move with its cache; a configured one stays where it was
        meta = {"checkpoint": os.path.relpath(checkpoint, out_dir) if default else str(checkpoint),
                "default_checkpoint": default,
                "encoder": self.config.to_json(), "figures": figures}
        (out_dir / META_FILE).write_text(json.dumps(meta, indent=2))
        return figures

    def build_key(self, passages: Sequence[str], checkpoint: Path) -> str:
        """A digest of everything a PLAID index depends on: the checkpoint's weights, the
        ColBERT settings, the document encoder's backend ("torch" adds nothing, so keys made
        before backends stay valid), colbert-ai's version and every passage in order."""
        from importlib.metadata import version

        settings = {k: v for k, v in self.config.to_json().items() if k in COLBERT_SETTINGS}
        if self.config.colbert_backend != "torch":
            settings["colbert_backend"] = self.config.colbert_backend
        h = hashlib.sha256(json.dumps(
            [model_fingerprint(checkpoint), settings, version("colbert-ai")], sort_keys=True
        ).encode())
        for passage in passages:
            h.update(passage.encode("utf-8"))
            h.update(b"\0")
        return h.hexdigest()[:24]

    def _index_or_reuse(
        self, passages: list[str], index_path: Path, checkpoint: Path, cache_dir: Path
    ) -> dict[str, Any]:
        """The PLAID index of `passages`: copied from the cache when an earlier build had the
        same key (`build_key`), else built and then kept in the cache for the next ingest."""
        key = self.build_key(passages, checkpoint)
        cached = cache_dir / INDEX_CACHE / key
        if (cached / BUILD_FIGURES).is_file():
            if index_path.exists():
                shutil.rmtree(index_path)
            shutil.copytree(cached / PLAID_DIR, index_path)
            return {**json.loads((cached / BUILD_FIGURES).read_text()), "reused": key}
        sentences: dict[str, Any] = {}  # the shared pass's dense vectors, by passage
        figures = self._index(passages, index_path, checkpoint, sentences)
        if sentences and serves_dense(self.config):  # the dense builder finds them cached
            texts = list(sentences)
            EmbeddingCache(cache_dir, self.config.dense_model_key()).put_many(
                [text_digest(text) for text in texts], np.stack([sentences[t] for t in texts]))
            figures["dense_vectors_shared"] = len(texts)
        tmp = cache_dir / INDEX_CACHE / f".tmp-{key}-{uuid.uuid4().hex[:8]}"
        shutil.copytree(index_path, tmp / PLAID_DIR)
        (tmp / BUILD_FIGURES).write_text(json.dumps(figures))
        try:
            tmp.rename(cached)
        except OSError:  # another ingest kept the same build first
            shutil.rmtree(tmp, ignore_errors=True)
        return {**figures, "key": key}

    def _index(self, passages: list[str], index_path: Path, checkpoint: Path,
               sentences: dict[str, Any]) -> dict[str, Any]:
        """Build the PLAID index; with the shared backend, `sentences` gets each passage's
        dense vector from the same pass."""
        colbert = import_colbert()
        Run, RunConfig = colbert.infra.Run, colbert.infra.RunConfig  # noqa: N806

        if index_path.exists():
            shutil.rmtree(index_path)
        settings = colbert_settings(self.config, index_path=str(index_path))
        run = RunConfig(nranks=1, experiment="structfirst", root=str(index_path.parent),
                        avoid_fork_if_possible=True)
        # colbert-ai prints its progress (and the k-means residuals) on stdout: keep it in a log
        log_path = index_path.parent / "build.log"
        total = passages_to_encode(passages, self.config)
        shared = None
        if self.config.colbert_backend == SHARED_COLBERT_BACKEND:
            shared = SharedPass(derived_projection(self.config),
                                default_checkpoint_key(self.config), self.config.doc_maxlen)
        with contextlib.ExitStack() as stack:
            stack.enter_context(COLBERT_RUN_LOCK)
            stack.enter_context(Run().context(run))
            step = stack.enter_context(StepProgress("colbert: encoding", total, self.progress))
            if shared is None:
                for patch in (unpadded_doc_batches(),
                              doc_encoder_backend(self.config.colbert_backend),
                              counted_doc_batches(step.advance)):
                    stack.enter_context(patch)
            else:
                stack.enter_context(shared_pass_indexing(shared, step.advance, sentences))
            stack.enter_context(corpus_sized_kmeans(self.config))
            stack.enter_context(sample_encoded_once())  # after the encoder is chosen: wraps it
            log = stack.enter_context(log_path.open("w"))
            stack.enter_context(contextlib.redirect_stdout(log))
            indexer = colbert.Indexer(checkpoint=str(checkpoint), config=settings,
                                      verbose=self.verbose)
            indexer.index(name=PLAID_DIR, collection=passages, overwrite="force_silent_overwrite")
        meta = json.loads((index_path / "metadata.json").read_text())
        return {"backend": self.config.colbert_backend,
                "embeddings": meta["num_embeddings"], "partitions": meta["num_partitions"],
                "kmeans_sample": kmeans_sample_size(len(passages), self.config),
                "passages_encoded": step.done,
                "avg_doclen": round(meta["avg_doclen"], 1)}
