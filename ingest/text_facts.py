"""Typed values read from any node's text: dollar amounts, durations and calendar dates.

`extract_text_facts(node)` is generic (US Code, CFR, interpretations, ...):

* AMOUNT: "$7,575", "$1,000,000", "$4,411,400", "$5 million", "$2.50" -> value in dollars
  (float), unit "USD";
* DURATION: "90 days", "ninety days", "one year", "180 days", "2 years", "45-day period",
  "6 months", "three business days" -> value in days (a week 7, a month 30, a year 365),
  unit "days", attrs {"quantity": 90, "unit_word": "days"};
* DATE: "April 1, 2019", "Apr. 1, 2019", "Sept. 30, 2019" -> ISO text.

Every fact carries the node's provenance, attrs["text_span"] = [start, end) of the literal
within node.text, and the node's effective_from/effective_to.
"""

from __future__ import annotations

import re

from structfirst.ingest.model import Fact, FactKind, Node
from structfirst.ingest.uscode import DATE_PATTERN, parse_date

__all__ = ["extract_text_facts", "parse_number_words"]

_AMOUNT_RE = re.compile(
    r"\$\s?(?P<num>\d{1,3}(?:,\d{3})+|\d+)(?P<cents>\.\d{1,2})?(?!\d)"
    r"(?:\s+(?P<scale>million|billion|thousand)\b)?"
)
_SCALE = {"thousand": 1e3, "million": 1e6, "billion": 1e9}

_ONES = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
_WORD = "|".join(sorted([*_ONES, *_TENS, "hundred"], key=len, reverse=True))
_NUMBER_WORDS = rf"(?:(?:{_WORD})(?:[- ](?:and[- ])?(?=(?:{_WORD})\b))?)+"
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
_DURATION_RE = re.compile(
    rf"(?<![\w$.,])(?P<q>\d{{1,4}}|{_NUMBER_WORDS})"
    r"(?:\s+|-)(?P<qual>(?:business|calendar|full|consecutive)\s+)?"
    r"(?P<unit>days?|weeks?|months?|years?)\b",
    re.I,
)
_DATE_RE = re.compile(rf"\b{DATE_PATTERN}")


def parse_number_words(text: str) -> int | None:
    """'ninety' -> 90, 'one hundred eighty' -> 180, 'forty-five' -> 45, '12' -> 12."""
    t = text.strip().lower()
    if t.isdigit():
        return int(t)
    total = 0
    current = 0
    for w in re.split(r"[\s-]+", t):
        if not w or w == "and":
            continue
        if w in _ONES:
            current += _ONES[w]
        elif w in _TENS:
            current += _TENS[w]
        elif w == "hundred":
            current = max(current, 1) * 100
        else:
            return None
    total += current
    return total or None


def extract_text_facts(node: Node) -> list[Fact]:
    """AMOUNT, DURATION and DATE facts of one node's own text (see the module docstring)."""
    text = node.text or ""
    facts: list[Fact] = []
    if not text:
        return facts

    def fact(kind: FactKind, value: float | str, m: re.Match[str], unit: str | None, **attrs):
        attrs["text_span"] = [m.start(), m.end()]
        facts.append(
            Fact(
                node_id=node.id,
                kind=kind,
                value=value,
                text=m.group(0),
                provenance=node.provenance,
                unit=unit,
                effective_from=node.effective_from,
                effective_to=node.effective_to,
                attrs=attrs,
            )
        )

    if "$" in text:
        for m in _AMOUNT_RE.finditer(text):
            value = float(m.group("num").replace(",", "") + (m.group("cents") or ""))
            if m.group("scale"):
                value *= _SCALE[m.group("scale").lower()]
            fact(FactKind.AMOUNT, value, m, "USD")
    for m in _DURATION_RE.finditer(text):
        q = parse_number_words(m.group("q"))
        if q is None:
            continue
        unit = m.group("unit").lower().rstrip("s")
        unit_word = ((m.group("qual") or "") + m.group("unit")).lower().strip()
        fact(
            FactKind.DURATION,
            float(q * _UNIT_DAYS[unit]),
            m,
            "days",
            quantity=q,
            unit_word=unit_word,
        )
    for m in _DATE_RE.finditer(text):
        d = parse_date(m.group(0))
        if d is not None:
            fact(FactKind.DATE, d.isoformat(), m, None)
    return facts
