"""Plane 2, late-interaction half: MaxSim search over the snapshot's colbert-ai PLAID index.

The metadata filter is applied inside the search, two ways, both through colbert-ai's own
`Searcher`, on the passage ids it admits: for a hard filter, a numpy mask over the passages'
interval and code columns (`catalog.VersionColumns`), for an explicit id set, its passages:

- a small allowed set (at most `exact_limit` passages) is scored exhaustively:
  `dense_search(Q, pids=allowed)` skips candidate generation and computes MaxSim over the
  decompressed residual vectors of exactly those passages (`EXACT_SLICE` passages at a time, to
  bound the memory of the decompressed vectors);
- a large allowed set goes through PLAID candidate generation with `filter_fn`, which drops
  disallowed passages from the candidate set before any pruning or scoring; should fewer than k
  allowed candidates survive, the allowed set is scored exhaustively instead, so the filter
  never makes the result come back short.

Query [MASK] augmentation: colbert-ai pads every query to `query_maxlen` with [MASK] tokens,
which a trained ColBERT learns to use as soft query expansion. The derived MiniLM checkpoint
never learnt that, so for it the rows of the augmentation tokens are zeroed (they add nothing to
MaxSim); a configured checkpoint keeps colbert-ai's behaviour.
"""

from __future__ import annotations

import json
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from structfirst.engine.catalog import Catalog, VersionColumns
from structfirst.engine.plane import Allowed, HardFilter
from structfirst.ingest.colbert_index import (
    COLBERT_RUN_LOCK,
    DOCIDS_FILE,
    META_FILE,
    PLAID_DIR,
    ensure_default_checkpoint,
    import_colbert,
)
from structfirst.ingest.encoder_config import EncoderConfig

EXACT_SLICE = 256  # passages decompressed at once by exhaustive scoring (~30 MB at dim 384)


class ColbertPlane:
    """Search one colbert-ai index; safe to call from several threads (searches serialize)."""

    def __init__(
        self,
        colbert_dir: Path,
        config: EncoderConfig | None = None,
        exact_limit: int = 512,
        verbose: int = 0,
    ) -> None:
        colbert_dir = Path(colbert_dir).resolve()
        meta = json.loads((colbert_dir / META_FILE).read_text())
        built = meta["encoder"]
        self.docids: list[str] = json.loads((colbert_dir / DOCIDS_FILE).read_text())
        self.config = config or EncoderConfig.resolve()
        self.exact_limit = exact_limit
        self.default_checkpoint = bool(meta["default_checkpoint"])
        checkpoint = (colbert_dir / meta["checkpoint"]).resolve()
        configured = self.config.colbert_checkpoint
        if self.default_checkpoint != (configured is None) or (
            configured is not None and configured.resolve() != checkpoint
        ):
            raise ValueError(
                f"{colbert_dir} was built with ColBERT checkpoint {checkpoint}, but "
                f"{configured or 'the derived MiniLM checkpoint'} is configured"
            )
        if self.default_checkpoint:  # deterministic: derived again if the cache was cleared
            ensure_default_checkpoint(
                checkpoint,
                replace(
                    self.config,
                    colbert_dim=built["colbert_dim"],
                    doc_maxlen=built["doc_maxlen"],
                    query_maxlen=built["query_maxlen"],
                ),
            )
        elif not (checkpoint / "artifact.metadata").is_file():
            raise FileNotFoundError(f"{colbert_dir}: ColBERT checkpoint {checkpoint} is gone")
        self._pid = {docid: pid for pid, docid in enumerate(self.docids)}
        self._columns: tuple[Catalog, VersionColumns] | None = None
        self._lock = threading.Lock()
        self.searcher: Any = None
        if self.docids:
            colbert = import_colbert()
            with COLBERT_RUN_LOCK:
                self.searcher = colbert.Searcher(
                    index=str(colbert_dir / PLAID_DIR),
                    checkpoint=str(checkpoint),
                    collection=[""],
                    verbose=verbose,
                )  # settings: the index's own
            self._mask_id = self.searcher.checkpoint.query_tokenizer.mask_token_id

    def __len__(self) -> int:
        return len(self.docids)

    def columns(self, catalog: Catalog) -> VersionColumns:
        """The filter columns of this index's passages under `catalog` (built once per catalog)."""
        cached = self._columns
        if cached is None or cached[0] is not catalog:
            cached = self._columns = (catalog, catalog.columns_for(self.docids))
        return cached[1]

    def _allowed_pids(self, allowed: Allowed) -> np.ndarray:
        """The allowed passage ids, ascending."""
        if isinstance(allowed, HardFilter):
            return np.flatnonzero(self.columns(allowed.catalog).mask(allowed))
        return np.array(sorted(self._pid[v] for v in allowed if v in self._pid), dtype=np.int64)

    def _encode(self, query: str) -> Any:
        searcher = self.searcher
        Q = searcher.encode(query)  # noqa: N806 (colbert-ai's name)
        if self.default_checkpoint:
            ids, _ = searcher.checkpoint.query_tokenizer.tensorize([query])
            Q[0, ids[0] == self._mask_id] = 0.0
        return Q

    def _settings_for(self, k: int) -> None:
        """PLAID's search knobs for depth k (colbert-ai would fix them at the first call)."""
        ncells, threshold, ndocs = (
            (1, 0.5, 256)
            if k <= 10
            else (2, 0.45, 1024)
            if k <= 100
            else (4, 0.4, max(k * 4, 4096))
        )
        self.searcher.configure(ncells=ncells, centroid_score_threshold=threshold, ndocs=ndocs)

    def _exact(self, Q: Any, pids: list[int], k: int) -> list[tuple[int, float]]:  # noqa: N803
        scored: list[tuple[int, float]] = []
        for start in range(0, len(pids), EXACT_SLICE):
            found, _, scores = self.searcher.dense_search(
                Q, k=k, pids=pids[start : start + EXACT_SLICE]
            )
            scored.extend(zip(found, scores, strict=True))
        scored.sort(key=lambda item: -item[1])
        return scored[:k]

    def search(
        self, query: str, k: int, allowed: Allowed | None = None
    ) -> list[tuple[str, float]]:
        """The k best (version id, MaxSim score) pairs, best first, all of them in `allowed`."""
        import torch

        if k <= 0 or self.searcher is None:
            return []
        allowed_pids = None
        if allowed is not None:
            allowed_pids = self._allowed_pids(allowed)
            if allowed_pids.size == 0:
                return []
        want = min(k, len(self.docids) if allowed_pids is None else len(allowed_pids))
        with self._lock:
            Q = self._encode(query)  # noqa: N806
            self._settings_for(k)
            if allowed_pids is not None and len(allowed_pids) <= self.exact_limit:
                hits = self._exact(Q, allowed_pids.tolist(), k)
            else:
                filter_fn = None
                if allowed_pids is not None:
                    keep = torch.zeros(len(self.docids), dtype=torch.bool)
                    keep[torch.from_numpy(allowed_pids)] = True

                    def filter_fn(pids: torch.Tensor) -> torch.Tensor:
                        return pids[keep[pids.long()]]

                found, _, scores = self.searcher.dense_search(Q, k=k, filter_fn=filter_fn)
                hits = list(zip(found, scores, strict=True))
                if len(hits) < want:
                    pool = (allowed_pids.tolist() if allowed_pids is not None
                            else list(range(len(self))))
                    hits = self._exact(Q, pool, k)
        return [(self.docids[pid], float(score)) for pid, score in hits]
