"""A content-addressed cache of passage embeddings that outlives snapshots.

Keyed by (model key, sha256 of the text): re-ingesting text that did not change costs no
encoding. Layout, one directory per model key (`EncoderConfig.dense_model_key`):

    <cache_dir>/embeddings/<model-key>/
        <shard>.vecs.npy   float32 [n, dim]
        <shard>.keys.npy   uint8 [n, 32], the sha256 digests of the texts, row for row

Each `put` writes one new shard. Both files are written under temporary names and renamed into
place, the keys file last: a shard exists once its keys file does, so an interrupted write
leaves at most an orphan temporary or vectors file that readers never look at. Shards are never
rewritten, so several processes may add to the same cache at once.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Sequence
from pathlib import Path

import numpy as np

KEYS_SUFFIX = ".keys.npy"
VECS_SUFFIX = ".vecs.npy"


def text_digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


def _save_atomic(path: Path, array: np.ndarray) -> None:
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    with tmp.open("wb") as f:
        np.save(f, array)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


class EmbeddingCache:
    """Embeddings of one model, looked up by the text they encode."""

    def __init__(self, cache_dir: Path, model_key: str) -> None:
        self.dir = Path(cache_dir) / "embeddings" / model_key
        self._where: dict[bytes, tuple[int, int]] = {}  # digest -> (shard, row)
        self._shards: list[np.ndarray] = []  # memory-mapped vectors
        if self.dir.is_dir():
            for keys_path in sorted(self.dir.glob("*" + KEYS_SUFFIX)):
                self._load_shard(keys_path)

    def _load_shard(self, keys_path: Path) -> None:
        vecs_path = keys_path.with_name(keys_path.name[: -len(KEYS_SUFFIX)] + VECS_SUFFIX)
        keys = np.load(keys_path)
        vecs = np.load(vecs_path, mmap_mode="r")
        if len(keys) != len(vecs):
            raise ValueError(f"{keys_path}: {len(keys)} keys but {len(vecs)} vectors")
        shard = len(self._shards)
        self._shards.append(vecs)
        for row, digest in enumerate(keys):
            self._where.setdefault(digest.tobytes(), (shard, row))

    def __len__(self) -> int:
        return len(self._where)

    def get_many(self, digests: Sequence[bytes]) -> list[np.ndarray | None]:
        """The cached vector of each digest, or None where there is none."""
        found: list[np.ndarray | None] = []
        for digest in digests:
            hit = self._where.get(digest)
            found.append(None if hit is None else np.asarray(self._shards[hit[0]][hit[1]]))
        return found

    def put_many(self, digests: Sequence[bytes], vectors: np.ndarray) -> None:
        """Add one shard with these vectors (digests already cached are skipped)."""
        fresh = [i for i, d in enumerate(digests) if d not in self._where]
        if not fresh:
            return
        keys = np.frombuffer(b"".join(digests[i] for i in fresh), dtype=np.uint8).reshape(-1, 32)
        vecs = np.ascontiguousarray(vectors[fresh], dtype=np.float32)
        self.dir.mkdir(parents=True, exist_ok=True)
        name = uuid.uuid4().hex
        _save_atomic(self.dir / (name + VECS_SUFFIX), vecs)
        keys_path = self.dir / (name + KEYS_SUFFIX)
        _save_atomic(keys_path, keys)
        self._load_shard(keys_path)
