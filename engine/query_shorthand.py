"""A question's shorthand read as the words it stands for, with the way back to the question.

The rule library declares the abbreviations practitioners type (`[shorthand]` in a facts file:
"payment" = ["pmt", "pymt"]). `expand_shorthand` replaces each one, as a whole word and in any
case, by its words, and returns the read text with a function that maps a span of it back to
the span of the question it came from (a span inside a replaced abbreviation maps to the whole
abbreviation).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Mapping

from structfirst.engine.query_dates import Span

__all__ = ["expand_shorthand"]

# one compiled pattern per shorthand table (kept while the table lives), so a parse does not
# rebuild it
_COMPILED: dict[int, tuple[Mapping[str, str], re.Pattern[str]]] = {}


def _pattern(shorthand: Mapping[str, str]) -> re.Pattern[str]:
    got = _COMPILED.get(id(shorthand))
    if got is None or got[0] is not shorthand:
        # the longest first, so "cash adv." wins over "cash adv"; whitespace as any whitespace
        alts = sorted(shorthand, key=len, reverse=True)
        body = "|".join(r"\s+".join(re.escape(w) for w in a.split()) for a in alts)
        got = _COMPILED[id(shorthand)] = (
            shorthand, re.compile(rf"(?<![\w/.])(?:{body})(?![\w/])", re.I))
    return got[1]


def expand_shorthand(question: str, shorthand: Mapping[str, str]
                     ) -> tuple[str, Callable[[Span], Span]]:
    """`question` with each declared abbreviation replaced by its words, and the map from a
    span of that text to the span of `question` it reads."""
    if not shorthand:
        return question, lambda span: span
    pieces: list[str] = []
    # (start in the read text, start in the question, length of the read piece, length in the
    # question): plain text maps one to one, a replaced abbreviation to the whole of it
    segments: list[tuple[int, int, int, int]] = []
    read_at = source_at = 0
    for m in _pattern(shorthand).finditer(question):
        plain = question[source_at:m.start()]
        pieces.append(plain)
        segments.append((read_at, source_at, len(plain), len(plain)))
        read_at += len(plain)
        words = shorthand[" ".join(m.group().lower().split())]
        pieces.append(words)
        segments.append((read_at, m.start(), len(words), m.end() - m.start()))
        read_at += len(words)
        source_at = m.end()
    if not segments:
        return question, lambda span: span
    rest = question[source_at:]
    pieces.append(rest)
    segments.append((read_at, source_at, len(rest), len(rest)))
    starts = [s[0] for s in segments]

    def position(at: int, end: bool) -> int:
        i = max(0, bisect.bisect_right(starts, at - (1 if end else 0)) - 1)
        read0, source0, n_read, n_source = segments[i]
        if n_read == n_source:
            return source0 + (at - read0)
        return source0 + (n_source if end else 0)

    def to_question(span: Span) -> Span:
        return position(span[0], False), position(span[1], True)

    return "".join(pieces), to_question
