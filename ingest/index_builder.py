"""The seam between the snapshot pipeline and each retrieval index (Lucene, dense, ColBERT)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Protocol

OPEN_START = 0  # the day ordinal of an open effective_from
OPEN_END = date.max.toordinal()  # the day ordinal of an open (exclusive) effective_to


def day_interval(start: date | None, end: date | None) -> tuple[int, int]:
    """[start, end) as day ordinals, the open ends as OPEN_START and OPEN_END: the interval
    columns of the hard filter (allowed: start <= as_of < end)."""
    return (start.toordinal() if start else OPEN_START, end.toordinal() if end else OPEN_END)


@dataclass(frozen=True, slots=True)
class IndexableDoc:
    """One artifact version as the retrieval indexes see it."""

    version_id: str  # the docid in every index
    node_id: str
    contents: str  # the text to index: citation, heading, ancestor chapeaus, own text
    jurisdiction: str
    authority: str
    effective_from: date | None
    effective_to: date | None


class IndexBuilder(Protocol):
    """Builds one index inside a snapshot directory.

    A builder may also have `prepare()`, which the pipeline calls before parsing, to start work
    that does not need the documents (the ColBERT builder compiles its C++ extensions there).
    """

    name: str  # also the sub-directory of the snapshot the index is written to

    def build(self, docs: Sequence[IndexableDoc], out_dir: Path) -> dict[str, Any]:
        """Write the index under `out_dir` and return figures about it (counts, seconds)."""
        ...
