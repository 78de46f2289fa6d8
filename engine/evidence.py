"""The evidence bundle: what `Engine.ask` returns, typed and JSON-serializable."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(slots=True)
class EvidenceCandidate:
    rank: int
    version_id: str
    node_id: str
    type: str
    citation: str | None
    heading: str | None
    hierarchy_path: str | None
    effective_from: str | None  # ISO date, inclusive
    effective_to: str | None  # ISO date, exclusive; None while in force
    jurisdiction: str
    authority: str
    text: str
    source: dict[str, Any]  # {"source_id": ..., "span": [start, end]}
    fused_score: float
    plane_scores: dict[str, float]
    plane_ranks: dict[str, int]
    rerank_score: float | None = None
    graph_paths: list[str] = field(default_factory=list)
    rule_support: list[dict[str, Any]] = field(default_factory=list)


@dataclass(slots=True)
class Decision:
    answer: bool
    reason: str
    confidence: float | None = None  # calibrated p(answer correct); None when uncalibrated
    threshold: float | None = None  # theta: the decision answers when confidence > theta
    guarantee: str | None = None  # the risk guarantee theta was chosen under
    warnings: list[str] = field(default_factory=list)  # e.g. an as-of date past the corpus


@dataclass(slots=True)
class EvidenceBundle:
    question: str
    parsed_query: dict[str, Any]
    configuration: str
    snapshot_id: str | None
    corpus_versions: list[dict[str, Any]]
    candidates: list[EvidenceCandidate]
    definitions: list[EvidenceCandidate]  # definitional context reached by the graph walk
    verdicts: list[dict[str, Any]]
    decision: Decision
    timings_ms: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False, default=str)
