"""Choosing the rules a query implicates, from its seed citations and its predicate words."""

from __future__ import annotations

import re
from collections.abc import Iterable

from structfirst.rules.library_loader import Library, Rule

_SUFFIXES = ("ability", "ibility", "able", "ible", "ness", "ing", "ion", "ed", "es", "s")


def _stem(word: str) -> str:
    w = word.lower()
    for suf in _SUFFIXES:
        if w.endswith(suf) and len(w) - len(suf) >= 4:
            return w[: -len(suf)]
    return w


def _words(text: str) -> set[str]:
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    return {_stem(w) for w in re.findall(r"[A-Za-z]+", text) if len(w) > 2}


_STOP = {"the", "and", "for", "can", "this", "that", "under", "with", "what", "does", "transfer"}


def select_rules(library: Library, seed_citations: Iterable[str] = (),
                 predicates: Iterable[str] | str | None = ()) -> list[Rule]:
    """The rules a query implicates: those citing a seed or something under it (prefix-aware:
    `/us/usc/t11/s547` implicates rules citing `/us/usc/t11/s547/...`, and a seed below a
    rule's citation implicates that rule too), and those whose head, id or keywords match a
    predicate word. Every version of each rule is returned (evaluate picks the one in force)."""
    seeds = [s.strip().rstrip("/") for s in seed_citations if s and s.strip()]
    if isinstance(predicates, str):
        predicates = [predicates]
    words: set[str] = set()
    for p in predicates or ():
        words |= _words(p)
    words -= {_stem(w) for w in _STOP}
    chosen: list[tuple[int, str]] = []
    for rule_id, versions in library.by_id.items():
        cites = {c for r in versions for c in r.all_citations()}
        by_seed = any(c == s or c.startswith(s + "/") or s.startswith(c + "/")
                      for c in cites for s in seeds)
        vocab: set[str] = set()
        for r in versions:
            vocab |= _words(r.head) | {_stem(k) for kw in r.decl.keywords for k in kw.split()}
        by_word = bool(words & vocab)
        if by_seed or by_word:
            chosen.append((0 if by_seed and by_word else 1, rule_id))
    out: list[Rule] = []
    for _, rule_id in sorted(chosen):
        out += library.versions(rule_id)
    return out
