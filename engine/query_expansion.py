"""Legal paraphrase as data: practitioner phrasings in a question -> the statute's own words.

`LegalThesaurus.load()` reads `legal_thesaurus.toml` (beside this module; its header says how it
was built and checked); `expansions(question)` gives the statutory terms of every entry whose
phrase the question uses and whose terms it does not already use. The lexical plane adds them
to the BM25 query at the configuration's `expansion_weight` (the question's own words weigh 1).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

THESAURUS_FILE = Path(__file__).with_name("legal_thesaurus.toml")


class ThesaurusError(ValueError):
    """A malformed thesaurus file: the message names the file and the entry."""


@dataclass(frozen=True, slots=True)
class ThesaurusEntry:
    phrases: tuple[str, ...]
    terms: tuple[str, ...]
    where: tuple[str, ...]  # provisions whose text holds every term (checked by a test)
    pattern: re.Pattern[str]


@dataclass(frozen=True, slots=True)
class LegalThesaurus:
    source: str
    entries: tuple[ThesaurusEntry, ...]

    @classmethod
    def load(cls, path: Path = THESAURUS_FILE) -> LegalThesaurus:
        with path.open("rb") as fh:
            table = tomllib.load(fh)
        entries = []
        for i, raw in enumerate(table.get("entry", []), 1):
            where = f"{path}: entry {i}"
            if set(raw) != {"phrases", "terms", "where"}:
                raise ThesaurusError(f"{where}: needs exactly phrases, terms and where; got "
                                     f"{sorted(raw)}")
            lists = {k: raw[k] for k in ("phrases", "terms", "where")}
            for key, value in lists.items():
                if not value or not all(isinstance(v, str) and v.strip() for v in value):
                    raise ThesaurusError(f"{where}: {key} must be a non-empty list of strings")
            phrases = tuple(p.lower() for p in lists["phrases"])
            alternatives = "|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True))
            entries.append(ThesaurusEntry(
                phrases, tuple(lists["terms"]), tuple(lists["where"]),
                re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])", re.IGNORECASE),
            ))
        return cls(str(path), tuple(entries))

    def expansions(self, question: str) -> tuple[str, ...]:
        """The statutory terms for the practitioner phrases `question` uses, in entry order,
        leaving out terms the question already says."""
        low = question.lower()
        out: list[str] = []
        for entry in self.entries:
            if entry.pattern.search(question):
                out += [t for t in entry.terms if t.lower() not in low and t not in out]
        return tuple(out)
