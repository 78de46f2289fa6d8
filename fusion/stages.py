"""Fusion as stages: reciprocal rank fusion, and a learned ranker over the structural features."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from structfirst.engine.pipeline import Examples, Labels, QueryFrame, Stage
from structfirst.fusion.models import RankingModel
from structfirst.fusion.rrf import reciprocal_rank_fusion


class RRFFusion(Stage):
    """Weighted reciprocal rank fusion of the planes' lists into the frame's candidates."""

    name = "fusion"

    def __init__(self, k: int = 60, weights: Mapping[str, float] | None = None) -> None:
        self.k = k
        self.weights = dict(weights or {})

    def transform(self, frame: QueryFrame) -> QueryFrame:
        fused = reciprocal_rank_fusion(frame.ranked, k=self.k, weights=self.weights)
        return replace(frame, candidates=tuple(fused))


class LearnedFusion(Stage):
    """Order every candidate by a learned ranking model of its structural features (the
    features stage runs first); ties by version id. `fit` trains the model."""

    name = "learned_fusion"

    def __init__(self, model: RankingModel) -> None:
        self.model = model

    def fit(
        self,
        frames: Sequence[QueryFrame],
        labels: Sequence[Labels],
        dev: Examples | None = None,
    ) -> LearnedFusion:
        """Train the model on the frames' candidates; `dev` early-stops the LightGBM ranker."""
        held_out = None
        if dev is not None:
            held_out = ([f.candidates for f in dev[0]], labels_of(dev[0], dev[1]))
        self.model.fit([f.candidates for f in frames], labels_of(frames, labels), held_out)
        return self

    def transform(self, frame: QueryFrame) -> QueryFrame:
        if not frame.candidates:
            return frame
        scores = self.model.predict(frame.candidates)
        scored = [replace(c, score=s) for c, s in zip(frame.candidates, scores, strict=True)]
        scored.sort(key=lambda c: (-c.score, c.version_id))
        return replace(frame, candidates=tuple(scored))


def labels_of(frames: Sequence[QueryFrame], labels: Sequence[Labels]) -> list[list[int]]:
    """Per frame, the graded label of each candidate (by its canonical node id; 0 unlabeled)."""
    catalog_ids = [[c.version_id.split("@", 1)[0] for c in f.candidates] for f in frames]
    return [[lab.get(n, 0) for n in ids] for ids, lab in zip(catalog_ids, labels, strict=True)]
