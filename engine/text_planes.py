"""Adapters from the lexical, dense and late-interaction searchers to the plane interface."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from structfirst.engine.plane import Allowed, PlaneHit, PlaneQuery


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
    def lexical(cls, lucene_dir: Path, k1: float, b: float) -> LexicalSearchPlane:
        from structfirst.engine.lexical_plane import LexicalPlane

        return LexicalSearchPlane("lexical", LexicalPlane(lucene_dir, k1=k1, b=b))

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
    """BM25 as a plane: the query's thesaurus expansion joins at its lower weight."""

    def retrieve(self, query: PlaneQuery, k: int) -> list[PlaneHit]:
        found = self.searcher.search(  # type: ignore[call-arg]
            query.text, k, query.allowed, expansion=query.expansion,
            expansion_weight=query.expansion_weight,
        )
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
