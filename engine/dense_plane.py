"""Plane 2, bi-encoder half: cosine nearest neighbours over the snapshot's `dense/` index.

The metadata filter is applied inside the FAISS search (`SearchParameters(sel=IDSelectorBatch)`):
the top k is taken among the allowed rows only, so a filter never shortens the result below
min(k, number of allowed documents in the index).
"""

from __future__ import annotations

import json
from collections.abc import Set as AbstractSet
from pathlib import Path

import numpy as np
from structfirst.ingest.dense_index import CONFIG_FILE, DOCIDS_FILE, INDEX_FILE, DenseEncoder
from structfirst.ingest.encoder_config import EncoderConfig


class DensePlane:
    """Search one dense index; safe to call from several threads."""

    def __init__(
        self,
        dense_dir: Path,
        config: EncoderConfig | None = None,
        encoder: DenseEncoder | None = None,
    ) -> None:
        import faiss

        dense_dir = Path(dense_dir)
        meta = json.loads((dense_dir / CONFIG_FILE).read_text())
        self.config = config or (encoder.config if encoder else EncoderConfig.resolve())
        key = self.config.dense_model_key()
        if key != meta["model_key"]:
            raise ValueError(
                f"{dense_dir} was built with encoder {meta['model_key']} "
                f"({meta['encoder']['dense_model']}), but {key} ({self.config.dense_model}) "
                "is configured: set the same dense model to search it"
            )
        self.index = faiss.read_index(str(dense_dir / INDEX_FILE))
        self.docids: list[str] = json.loads((dense_dir / DOCIDS_FILE).read_text())
        if self.index.ntotal != len(self.docids):
            raise ValueError(f"{dense_dir}: {self.index.ntotal} vectors, {len(self.docids)} docids")
        self._row = {docid: row for row, docid in enumerate(self.docids)}
        self.encoder = encoder or DenseEncoder(self.config)

    def __len__(self) -> int:
        return len(self.docids)

    def search(
        self, query: str, k: int, allowed: AbstractSet[str] | None = None
    ) -> list[tuple[str, float]]:
        """The k best (version id, cosine) pairs, best first, all of them in `allowed`."""
        import faiss

        if k <= 0 or not self.docids:
            return []
        params = selector = None
        if allowed is not None:
            rows = np.fromiter((self._row[v] for v in allowed if v in self._row), dtype=np.int64)
            if rows.size == 0:
                return []
            k = min(k, int(rows.size))
            selector = faiss.IDSelectorBatch(rows)  # kept referenced until the search is done
            params = faiss.SearchParameters(sel=selector)
        k = min(k, len(self.docids))
        vector = self.encoder.encode_query(query).reshape(1, -1)
        scores, ids = self.index.search(vector, k, params=params)
        return [
            (self.docids[i], float(s)) for i, s in zip(ids[0], scores[0], strict=True) if i >= 0
        ]
