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

    def __init__(self, model: RankingModel, cross_fit: int = 5) -> None:
        self.model = model
        self.cross_fit = cross_fit

    def fit(
        self,
        frames: Sequence[QueryFrame],
        labels: Sequence[Labels],
        dev: Examples | None = None,
    ) -> LearnedFusion:
        """Train the model on the frames' candidates (`dev` goes to the model's `fit`)."""
        held_out = None
        if dev is not None:
            held_out = ([f.candidates for f in dev[0]], labels_of(dev[0], dev[1]))
        self.model.fit([f.candidates for f in frames], labels_of(frames, labels), held_out)
        return self

    def fit_transform(
        self,
        frames: Sequence[QueryFrame],
        labels: Sequence[Labels],
        dev: Examples | None = None,
    ) -> list[QueryFrame]:
        """Fit on all frames, but return each training frame scored by a model of the other
        `cross_fit` folds (queries i with i % cross_fit == fold), so that a stage learning
        after this one (the domain reranker) sees fusion scores as they are on new queries."""
        self.fit(frames, labels, dev)
        if self.cross_fit < 2 or len(frames) < self.cross_fit:
            return [self.transform(f) for f in frames]
        out: list[QueryFrame] = list(frames)
        for fold in range(self.cross_fit):
            inside = [i for i in range(len(frames)) if i % self.cross_fit != fold]
            part = LearnedFusion(self.model.clone(), cross_fit=0)
            part.fit([frames[i] for i in inside], [labels[i] for i in inside], dev)
            for i in range(fold, len(frames), self.cross_fit):
                out[i] = part.transform(frames[i])
        return out

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
