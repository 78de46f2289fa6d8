"""Reciprocal rank fusion over the planes' ranked lists, keeping per-plane scores and ranks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from structfirst.engine.plane import PlaneHit


@dataclass(slots=True)
class FusedCandidate:
    version_id: str
    score: float = 0.0
    plane_scores: dict[str, float] = field(default_factory=dict)
    plane_ranks: dict[str, int] = field(default_factory=dict)  # 1-based
    paths: list[str] = field(default_factory=list)
    rule_support: list[dict[str, Any]] = field(default_factory=list)
    features: dict[str, float] = field(default_factory=dict)  # see engine/features.py


def reciprocal_rank_fusion(
    ranked: Mapping[str, Sequence[PlaneHit]],
    k: int = 60,
    weights: Mapping[str, float] | None = None,
) -> list[FusedCandidate]:
    """Weighted RRF: sum over planes of w_plane / (k + rank_plane(d)), w defaulting to 1;
    ties broken by version id."""
    weights = weights or {}
    fused: dict[str, FusedCandidate] = {}
    for plane, hits in ranked.items():
        for rank, hit in enumerate(hits, start=1):
            cand = fused.setdefault(hit.version_id, FusedCandidate(hit.version_id))
            if plane in cand.plane_ranks:  # a plane listing a doc twice counts its best rank
                continue
            cand.score += weights.get(plane, 1.0) / (k + rank)
            cand.plane_scores[plane] = hit.score
            cand.plane_ranks[plane] = rank
            if hit.path:
                cand.paths.append(hit.path)
            cand.rule_support.extend(hit.rule_support)
    return sorted(fused.values(), key=lambda c: (-c.score, c.version_id))
