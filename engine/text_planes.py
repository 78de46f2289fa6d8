"""Adapters from the lexical, dense and late-interaction searchers to the plane interface."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from structfirst.engine.plane import Allowed, PlaneHit, PlaneQuery
from structfirst.ingest.legal_tokenizer import tokenize

if TYPE_CHECKING:
    from structfirst.engine.lexical_plane import LexicalPlane


class Searcher(Protocol):
    def search(
        self, query: str, k: int, allowed: Allowed | None
    ) -> list[tuple[str, float]]: ...


class TextSearchPlane:
    """A text searcher as a plane: the query's hard filter is applied inside the search."""

    def __init__(self, name: str, searcher: Searcher) -> None:
        self.name = name
        self.searcher = searcher

    @classmethod
    def lexical(cls, lucene_dir: Path, k1: float, b: float,
                passage_text: Callable[[str], str] | None = None) -> LexicalSearchPlane:
        from structfirst.engine.lexical_plane import LexicalPlane

        return LexicalSearchPlane("lexical", LexicalPlane(lucene_dir, k1=k1, b=b), passage_text)

    @classmethod
    def dense(cls, dense_dir: Path) -> TextSearchPlane:
        from structfirst.engine.dense_plane import DensePlane

        return cls("dense", DensePlane(dense_dir))

    def retrieve(self, query: PlaneQuery, k: int) -> list[PlaneHit]:
        return [
            PlaneHit(docid, score)
            for docid, score in self.searcher.search(query.text, k, query.allowed)
        ]


class LexicalSearchPlane(TextSearchPlane):
    """BM25 as a plane: the query's thesaurus expansion joins at its lower weight; with the
    query's `feedback` (RM3), a first pass's top passages reweight the terms of a second."""

    def __init__(self, name: str, searcher: LexicalPlane,
                 passage_text: Callable[[str], str] | None = None) -> None:
        super().__init__(name, searcher)
        self.searcher: LexicalPlane = searcher
        self.passage_text = passage_text

    def retrieve(self, query: PlaneQuery, k: int) -> list[PlaneHit]:
        from structfirst.engine.lexical_plane import query_weights

        weights = query_weights(query.text, query.expansion, query.expansion_weight)
        if query.feedback is not None:
            if self.passage_text is None:
                raise ValueError(f"{self.name}: RM3 feedback needs the passages' text")
            first = self.searcher.search_weighted(weights, query.feedback.docs, query.allowed)
            weights = query.feedback.weights(
                weights, [(tokenize(self.passage_text(vid)), score) for vid, score in first])
        found = self.searcher.search_weighted(weights, k, query.allowed)
        return [PlaneHit(docid, score) for docid, score in found]


class ColbertReranker:
    """Late-interaction (MaxSim) scores for a given candidate list."""

    def __init__(self, colbert_dir: Path) -> None:
        from structfirst.engine.colbert_plane import ColbertPlane

        self.plane = ColbertPlane(colbert_dir)

    def scores(self, text: str, version_ids: Sequence[str]) -> dict[str, float]:
        if not version_ids:
            return {}
        return dict(self.plane.search(text, len(version_ids), frozenset(version_ids)))
