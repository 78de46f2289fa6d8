"""The query path as composable stages: a per-query frame, the `Stage` interface, a pipeline.

A `QueryFrame` carries one query through the path: the parsed question, the query the planes
see (text, as-of date, the allowed versions), each plane's ranked hits, the rule verdicts, and
the candidates in their current order, each with its feature dict. A `Stage` maps a frame to a
new frame (`transform`) and never keeps anything of one query for the next, so one stage serves
concurrent queries; a learned stage also has `fit(frames, labels)`, which returns the stage
(in the manner of scikit-learn's estimators: parameters in `__init__`, no work there).

A `Pipeline` is itself a stage: it applies its stages in order, timing each, and fits them in
order, each on the frames the stages before it produced.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from structfirst.engine.plane import PlaneHit, PlaneQuery
from structfirst.engine.query_parser import ParsedQuery
from structfirst.fusion.rrf import FusedCandidate

# per frame, the graded relevance of canonical node ids (2 primary, 1 supporting, 0 background)
Labels = Mapping[str, int]


@dataclass(frozen=True, slots=True)
class QueryFrame:
    """One query on its way through the stages; stages return a new frame, never mutate one."""

    parsed: ParsedQuery
    query: PlaneQuery
    ranked: Mapping[str, tuple[PlaneHit, ...]] = field(default_factory=dict)
    verdicts: tuple[dict[str, Any], ...] = ()
    candidates: tuple[FusedCandidate, ...] = ()  # best first
    neural_scores: Mapping[str, float] = field(default_factory=dict)  # f_theta per version id
    timings: Mapping[str, float] = field(default_factory=dict)

    def with_timing(self, name: str, ms: float) -> QueryFrame:
        return replace(self, timings={**self.timings, name: ms})


class Stage:
    """One step of the query path. Subclasses set `name` and implement `transform`."""

    name = "stage"

    def transform(self, frame: QueryFrame) -> QueryFrame:
        raise NotImplementedError

    def fit(
        self,
        frames: Sequence[QueryFrame],
        labels: Sequence[Labels],
        dev: Examples | None = None,
    ) -> Stage:
        """Learn from frames as this stage receives them (`dev`: held-out frames and labels
        for early stopping); a no-op unless the stage is learned. Returns the stage."""
        return self

    def fit_transform(
        self,
        frames: Sequence[QueryFrame],
        labels: Sequence[Labels],
        dev: Examples | None = None,
    ) -> list[QueryFrame]:
        """Fit, then the training frames as the next stage should learn from them (a stage
        whose in-sample output would be optimistic returns cross-fitted output instead)."""
        self.fit(frames, labels, dev)
        return [self.transform(f) for f in frames]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


Examples = tuple[Sequence[QueryFrame], Sequence[Labels]]  # frames and their labels


class Pipeline(Stage):
    """Stages applied in order; `fit` fits each on the output of the stages before it."""

    name = "pipeline"

    def __init__(self, stages: Sequence[Stage]) -> None:
        self.stages = tuple(stages)

    def transform(self, frame: QueryFrame) -> QueryFrame:
        for stage in self.stages:
            started = time.perf_counter()
            frame = stage.transform(frame)
            frame = frame.with_timing(stage.name, elapsed_ms(started))
        return frame

    def fit(
        self,
        frames: Sequence[QueryFrame],
        labels: Sequence[Labels],
        dev: Examples | None = None,
    ) -> Pipeline:
        for given, wanted in ((frames, labels), dev or ((), ())):
            if len(given) != len(wanted):
                raise ValueError(f"{len(given)} frames but {len(wanted)} label sets")
        for stage in self.stages:
            frames = stage.fit_transform(frames, labels, dev)
            if dev is not None:
                dev = ([stage.transform(f) for f in dev[0]], dev[1])
        return self

    def transform_all(self, frames: Sequence[QueryFrame]) -> list[QueryFrame]:
        return [self.transform(f) for f in frames]

    def head(self, stop: type[Stage]) -> Pipeline:
        """The stages before the first of type `stop` (all of them when there is none)."""
        kept = []
        for stage in self.stages:
            if isinstance(stage, stop):
                break
            kept.append(stage)
        return Pipeline(kept)

    def __repr__(self) -> str:
        return f"Pipeline({', '.join(map(repr, self.stages))})"


def elapsed_ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000.0, 3)
