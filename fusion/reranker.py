"""Plane 6, the domain-aware reranker: s(q, d) = f_theta(q, d) + sum_i gamma_i * phi_i(d, q).

Over the fused top `depth`, f_theta is the neural score the features stage recorded
(`neural_score`: the ColBERT MaxSim, or the configuration's trained cross-encoder, normalized
over the head) and phi are structural features
named in `inputs` (by default the reference's gamma_1..gamma_6: jurisdiction match, date valid,
authority, citation-path support, rule satisfied, contradictions, plus the fusion score, so the
reranker refines the learned fusion rather than discarding it). With no inputs it is the neural
reranker alone (s = f_theta), the ablation the reference asks for.

gamma is learned on train by a pairwise logistic loss with f_theta as a fixed offset: for every
pair of head candidates of one query with different grades, log(1 + exp(-(s_better - s_worse))),
plus an L2 penalty; `scipy.optimize.minimize` (L-BFGS).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from structfirst.engine.features import FEATURE_NAMES
from structfirst.engine.pipeline import Examples, Labels, QueryFrame, Stage
from structfirst.fusion.models import META_FILE, ModelError, read_meta, write_meta
from structfirst.fusion.rrf import FusedCandidate
from structfirst.fusion.stages import labels_of

KIND = "domain-reranker"
FUSION_SCORE = "fusion_score"  # the incoming order's score, min-max normalized over the head
DOMAIN_INPUTS = (
    "jurisdiction_match",
    "date_valid",
    "authority_statute",
    "authority_regulation",
    "authority_interpretation",
    "graph_score",
    "rule_true",
    "contradictions",
    FUSION_SCORE,
)


class DomainReranker(Stage):
    """Re-order the top `depth` by f_theta + gamma . phi; `fit` learns gamma."""

    name = "rerank"

    def __init__(
        self, inputs: Sequence[str] = DOMAIN_INPUTS, depth: int = 100, l2: float = 1e-3
    ) -> None:
        unknown = [n for n in inputs if n not in FEATURE_NAMES and n != FUSION_SCORE]
        if unknown:
            raise ValueError(f"reranker inputs {unknown} are not features ({FEATURE_NAMES})")
        self.inputs = tuple(inputs)
        self.depth = depth
        self.l2 = l2
        self.gamma_ = np.zeros(len(self.inputs))

    def _design(self, head: Sequence[FusedCandidate]) -> tuple[np.ndarray, np.ndarray]:
        """(f_theta, phi) for the head candidates."""
        scores = [c.score for c in head]
        low, high = min(scores), max(scores)
        rows, offset = [], []
        for c in head:
            f = c.features
            if not f:
                raise ValueError(f"candidate {c.version_id} has no features (run the features "
                                 "stage before the reranker)")
            fusion = 1.0 if high == low else (c.score - low) / (high - low)
            rows.append([fusion if n == FUSION_SCORE else f[n] for n in self.inputs])
            offset.append(max(f["neural_score"], 0.0))
        return np.array(offset), np.array(rows, dtype=float).reshape(len(head), len(self.inputs))

    def scores(self, head: Sequence[FusedCandidate]) -> np.ndarray:
        offset, phi = self._design(head)
        return offset + phi @ self.gamma_

    def transform(self, frame: QueryFrame) -> QueryFrame:
        if not frame.candidates:
            return frame
        head, tail = list(frame.candidates[: self.depth]), frame.candidates[self.depth :]
        s = self.scores(head)
        order = sorted(range(len(head)), key=lambda i: (-s[i], head[i].version_id))
        reranked = [replace(head[i], score=float(s[i])) for i in order]
        # the tail stays below the head: its scores are shifted under the head's lowest
        floor = min(s) if len(s) else 0.0
        shifted = [replace(c, score=floor - 1.0 - i) for i, c in enumerate(tail)]
        return replace(frame, candidates=(*reranked, *shifted))

    def fit(
        self,
        frames: Sequence[QueryFrame],
        labels: Sequence[Labels],
        dev: Examples | None = None,
    ) -> DomainReranker:
        """Learn gamma on the frames (the dev frames are not used)."""
        from scipy.optimize import minimize

        if not self.inputs:
            return self
        grades = labels_of(frames, labels)
        diffs_f, diffs_phi = [], []
        for frame, g in zip(frames, grades, strict=True):
            head = frame.candidates[: self.depth]
            if not head:
                continue
            offset, phi = self._design(head)
            g = np.array(g[: len(head)])
            better, worse = np.nonzero(g[:, None] > g[None, :])
            diffs_f.append(offset[better] - offset[worse])
            diffs_phi.append(phi[better] - phi[worse])
        if not diffs_f or not sum(len(d) for d in diffs_f):
            raise ValueError("no training pair: no query has a labeled candidate in its head")
        df, dphi = np.concatenate(diffs_f), np.concatenate(diffs_phi)

        def loss(gamma: np.ndarray) -> tuple[float, np.ndarray]:
            margin = df + dphi @ gamma
            value = np.logaddexp(0.0, -margin).mean() + 0.5 * self.l2 * gamma @ gamma
            weight = -1.0 / (1.0 + np.exp(margin))  # d/dmargin of log(1 + exp(-margin))
            return float(value), dphi.T @ weight / len(df) + self.l2 * gamma

        found = minimize(loss, np.zeros(len(self.inputs)), jac=True, method="L-BFGS-B")
        self.gamma_ = found.x
        return self

    def weights(self) -> dict[str, float]:
        return {n: round(float(g), 4) for n, g in zip(self.inputs, self.gamma_, strict=True)}

    def save(self, folder: Path, meta: dict[str, Any]) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        params = {
            "inputs": list(self.inputs),
            "depth": self.depth,
            "l2": self.l2,
            "gamma": self.gamma_.tolist(),
        }
        write_meta(folder, KIND, {**meta, "parameters": params}, self.weights())

    @classmethod
    def load(cls, folder: Path) -> DomainReranker:
        meta = read_meta(folder, KIND)
        params = meta["parameters"]
        reranker = cls(params["inputs"], params["depth"], params["l2"])
        if len(params["gamma"]) != len(reranker.inputs):
            raise ModelError(f"{Path(folder) / META_FILE}: one gamma per input expected")
        reranker.gamma_ = np.array(params["gamma"], dtype=float)
        return reranker

