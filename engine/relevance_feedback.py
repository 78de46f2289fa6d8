"""RM3 pseudo-relevance feedback for the lexical plane (Lavrenko and Croft's relevance model,
interpolated with the query as Anserini's `RM3` does).

The first BM25 pass's top `docs` passages (under the same hard filter) are read as the
relevant set: each passage's term distribution P(w | D) = tf(w, D) / |D| is weighted by its
share of the passages' BM25 scores, the sum is cut to its `terms` heaviest terms and
normalized, and the second pass's term weights are `original_weight` * the question's (its
own normalized term counts) + (1 - `original_weight`) * the feedback model's. Terms come from
the index's own tokenizer, so the feedback speaks the index's vocabulary (citations included).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RM3:
    """The feedback settings: passages read, terms kept, the question's share of the weight."""

    docs: int = 10
    terms: int = 10
    original_weight: float = 0.5

    def __post_init__(self) -> None:
        if self.docs < 1 or self.terms < 1:
            raise ValueError(f"RM3: docs ({self.docs}) and terms ({self.terms}) must be >= 1")
        if not 0.0 <= self.original_weight <= 1.0:
            raise ValueError(f"RM3: original_weight {self.original_weight} is not in [0, 1]")

    def weights(
        self, query: Mapping[str, float], feedback: Sequence[tuple[Sequence[str], float]]
    ) -> dict[str, float]:
        """The second pass's term weights from the first pass's query weights and its top
        passages, given as (tokens, BM25 score)."""
        model: Counter[str] = Counter()
        total_score = sum(max(score, 0.0) for _, score in feedback[: self.docs])
        for tokens, score in feedback[: self.docs]:
            if not tokens or total_score <= 0:
                continue
            share = max(score, 0.0) / total_score / len(tokens)
            for term, tf in Counter(tokens).items():
                model[term] += share * tf
        kept = dict(sorted(model.items(), key=lambda kv: (-kv[1], kv[0]))[: self.terms])
        kept_mass = sum(kept.values())
        query_mass = sum(query.values())
        out: dict[str, float] = {}
        if query_mass > 0:
            for term, w in query.items():
                out[term] = self.original_weight * w / query_mass
        if kept_mass > 0:
            for term, w in kept.items():
                out[term] = out.get(term, 0.0) + (1.0 - self.original_weight) * w / kept_mass
        return out
