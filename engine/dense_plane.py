"""Plane 2, bi-encoder half: cosine nearest neighbours over the snapshot's `dense/` index.

The metadata filter is applied inside the FAISS search (`SearchParameters(sel=...)`): a hard
filter becomes an `IDSelectorBitmap` from a numpy mask over the rows' interval and code columns
(`catalog.VersionColumns`, one pass over arrays, no list of ids), an explicit id set an
`IDSelectorBatch` of its rows. The top k is taken among the allowed rows only, so a filter never
shortens the result below min(k, number of allowed documents in the index).

Queries are encoded on the backend the index was built with (its `config.json`); a backend set
in `$STRUCTFIRST_DENSE_BACKEND` or an explicit configuration must give the index's model key, or
the plane refuses to open.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from structfirst.engine.catalog import Catalog, VersionColumns
from structfirst.engine.plane import Allowed, HardFilter
from structfirst.ingest.dense_index import CONFIG_FILE, DOCIDS_FILE, INDEX_FILE, DenseEncoder
from structfirst.ingest.encoder_config import (
    ENV_DENSE_BACKEND,
    DenseBackend,
    EncoderConfig,
    env_dense_backend,
)


def bitmap_selector(mask: np.ndarray) -> tuple[object, np.ndarray]:
    """A FAISS selector of the rows where `mask` is true, and the bitmap it reads (keep it
    referenced while the selector is in use)."""
    import faiss

    bits = np.packbits(mask, bitorder="little")
    return faiss.IDSelectorBitmap(len(mask), faiss.swig_ptr(bits)), bits


def built_backend(meta: dict) -> DenseBackend:
    """The backend a dense index's `config.json` records (indexes made before backends: torch)."""
    return meta["encoder"].get("dense_backend", "torch")


def built_backend_config(meta: dict) -> EncoderConfig:
    """The configuration from the environment, on the backend the index was built with unless
    `$STRUCTFIRST_DENSE_BACKEND` names one (then the model keys must agree)."""
    return EncoderConfig.resolve(dense_backend=env_dense_backend() or built_backend(meta))


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
        self.config = config or (encoder.config if encoder else built_backend_config(meta))
        key = self.config.dense_model_key()
        if key != meta["model_key"]:
            raise ValueError(
                f"{dense_dir} was built with encoder {meta['model_key']} "
                f"({meta['encoder']['dense_model']}, backend {built_backend(meta)!r}), but {key} "
                f"({self.config.dense_model}, backend {self.config.dense_backend!r}) is "
                f"configured: set the same dense model and ${ENV_DENSE_BACKEND} to search it"
            )
        # mapped, not read: worker processes on one snapshot share the page cache
        self.index = faiss.read_index(
            str(dense_dir / INDEX_FILE), faiss.IO_FLAG_MMAP | faiss.IO_FLAG_READ_ONLY
        )
        self.docids: list[str] = json.loads((dense_dir / DOCIDS_FILE).read_text())
        if self.index.ntotal != len(self.docids):
            raise ValueError(f"{dense_dir}: {self.index.ntotal} vectors, {len(self.docids)} docids")
        self._row = {docid: row for row, docid in enumerate(self.docids)}
        self.encoder = encoder or DenseEncoder(self.config)
        self._columns: tuple[Catalog, VersionColumns] | None = None

    def __len__(self) -> int:
        return len(self.docids)

    def columns(self, catalog: Catalog) -> VersionColumns:
        """The filter columns of this index's rows under `catalog` (built once per catalog)."""
        cached = self._columns
        if cached is None or cached[0] is not catalog:
            cached = self._columns = (catalog, catalog.columns_for(self.docids))
        return cached[1]

    def _selector(self, allowed: Allowed) -> tuple[object, int, np.ndarray]:
        """A FAISS selector of the allowed rows, their count, and the array it reads."""
        import faiss

        if isinstance(allowed, HardFilter):
            mask = self.columns(allowed.catalog).mask(allowed)
            selector, bits = bitmap_selector(mask)
            return selector, int(mask.sum()), bits
        rows = np.fromiter((self._row[v] for v in allowed if v in self._row), dtype=np.int64)
        return faiss.IDSelectorBatch(rows), int(rows.size), rows

    def search(
        self, query: str, k: int, allowed: Allowed | None = None
    ) -> list[tuple[str, float]]:
        """The k best (version id, cosine) pairs, best first, all of them in `allowed`."""
        if k <= 0 or not self.docids:
            return []
        return self.search_vector(self.encoder.encode_query(query).reshape(1, -1), k, allowed)

    def search_vector(
        self, vector: np.ndarray, k: int, allowed: Allowed | None = None
    ) -> list[tuple[str, float]]:
        """`search` for an encoded query (a [1, dim] row)."""
        import faiss

        params = selector = None
        if allowed is not None:
            selector, count, _keep = self._selector(allowed)  # referenced until the search ends
            if count == 0:
                return []
            k = min(k, count)
            params = faiss.SearchParameters(sel=selector)
        k = min(k, len(self.docids))
        scores, ids = self.index.search(vector, k, params=params)
        return [
            (self.docids[i], float(s)) for i, s in zip(ids[0], scores[0], strict=True) if i >= 0
        ]
