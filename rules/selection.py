"""Choosing the rules a query implicates: from the provisions it cites, the predicate words it
uses, the rule keyword phrases it says together with a fact the rule turns on or in a yes/no
question, and the facts it states."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

from structfirst.rules.fact_schema import FactType
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


# A question implicates a rule by its facts when it states at least this many of the facts
# specific to the rule's section that the rule turns on: one fact alone is too thin a pointer.
MIN_SPECIFIC_FACTS = 2
_STOP = {"the", "and", "for", "can", "this", "that", "under", "with", "what", "does", "transfer"}
# the question a verdict answers: one that starts with an auxiliary ("Is the son an insider?",
# "Can she file alone?") or a phrase of a few words ("Insider status?", "Chapter 13?",
# "Protected by the (c)(9) threshold?")
_AUXILIARY = (r"(?:is|was|are|were|would|could|can|does|do|did|will|should|has|have|had|may|"
              r"might|must)")
_YES_NO = re.compile(
    r"(?:^|[.!?;:]\s+|\n)(?P<ask>(?:(?:am|" + _AUXILIARY + r")\b[^!?;]*|"
    r"(?!(?:what|who|whom|whose|which|how|when|where|why)\b)(?:[\w'’$.,%()-]+\s*){1,5}))\?\s*$",
    re.I)
# typed without a question mark, a last sentence that starts with an auxiliary ("... to file.
# was that enough people and money to file", "can they")
_YES_NO_UNMARKED = re.compile(r"(?:^|[.!?;:]\s+|\n)" + _AUXILIARY + r"\b[^.!?;:\n]*$", re.I)


def asks_yes_no(question: str) -> bool:
    """True when the question's last sentence is a yes/no question (see `_YES_NO`), or, with no
    mark at the end, starts with an auxiliary (`_YES_NO_UNMARKED`)."""
    q = question.strip()
    return bool(_YES_NO.search(q) or (q[-1:] not in ".!" and _YES_NO_UNMARKED.search(q)))


class RuleFacts(NamedTuple):
    """What the library's rules turn on, for choosing rules by the facts a question states."""

    facts: dict[str, frozenset[str]]  # rule id -> the facts its verdict can depend on
    uses: dict[str, frozenset[str]]  # rule id -> the rules it uses, transitively
    specific: frozenset[str]  # facts the rules of one rule file (one section) only use


def rule_facts(library: Library) -> RuleFacts:
    """Each rule id's facts: those its versions use, with those of the rules they use (through
    their heads), transitively. A fact several sections use (the kind of debtor, the filing
    date) is context, not specific: it points to no rule by itself."""
    got = library.cache.get("rule_facts")
    if got is not None:
        return got
    direct = {rid: frozenset().union(*(r.facts for r in vs)) for rid, vs in library.by_id.items()}
    calls = {rid: {u.id for r in vs for p in r.preds for u in library.by_head.get(p, [])}
             for rid, vs in library.by_id.items()}
    files: dict[str, set[str]] = {}
    for r in library.rules:
        for f in r.facts:
            files.setdefault(f, set()).add(r.file)
    facts: dict[str, frozenset[str]] = {}
    uses: dict[str, frozenset[str]] = {}
    for rid in library.by_id:
        seen, todo = {rid}, [rid]
        while todo:
            todo += [u for u in calls[todo.pop()] - seen]
            seen |= set(todo)
        facts[rid] = frozenset().union(*(direct[u] for u in seen))
        uses[rid] = frozenset(seen - {rid})
    got = RuleFacts(facts, uses, frozenset(f for f, fs in files.items() if len(fs) == 1))
    library.cache["rule_facts"] = got
    return got


def _phrase(text: str) -> str:
    """The stemmed words and numbers of `text`, space-separated with a space at each end, so
    that a keyword phrase is found as a substring ("small-transfer" has "small transfer")."""
    return " " + " ".join(_stem(w) for w in re.findall(r"[A-Za-z]+|\d+", text)) + " "


def select_rules(library: Library, seed_citations: Iterable[str] = (),
                 predicates: Iterable[str] | str | None = (),
                 facts: Iterable[str] = (), question: str = "") -> list[Rule]:
    """The rules a query implicates: those citing a seed or something under it (prefix-aware:
    `/us/usc/t11/s547` implicates rules citing `/us/usc/t11/s547/...`, and a seed below a
    rule's citation implicates that rule too), those whose head, id or keywords match a
    predicate word, those one of whose keyword phrases the `question` uses when it states a
    fact the rule turns on or asks yes or no (`_named_with_a_fact`), and those its stated
    `facts` point to (`_chosen_by_facts`). Every version of each rule is returned (evaluate
    picks the one in force)."""
    seeds = [s.strip().rstrip("/") for s in seed_citations if s and s.strip()]
    predicates = [predicates] if isinstance(predicates, str) else list(predicates or ())
    words: set[str] = set()
    for p in predicates:
        words |= _words(p)
    words -= {_stem(w) for w in _STOP}
    facts = set(facts)
    index = rule_facts(library)
    by_facts = _chosen_by_facts(index, facts)
    said = _phrase(question) if question else ""
    # a question asking what a term means is not answered by a verdict on context facts alone;
    # a yes/no question that names a rule's keyword asks for its verdict
    yes_no = bool(question) and asks_yes_no(question)
    context_ok = "definition" not in predicates or yes_no
    chosen: list[tuple[int, str]] = []
    for rule_id, versions in library.by_id.items():
        cites = {c for r in versions for c in r.all_citations()}
        by_seed = any(c == s or c.startswith(s + "/") or s.startswith(c + "/")
                      for c in cites for s in seeds)
        vocab: set[str] = set()
        for r in versions:
            vocab |= _words(r.head) | {_stem(k) for kw in r.decl.keywords for k in kw.split()}
        used = {f for f in facts & index.facts[rule_id]
                if f in library.vocabulary and library.vocabulary[f].type is not FactType.DATE}
        by_word = bool(words & vocab) or _named_with_a_fact(
            versions, said, used if context_ok else used & index.specific, yes_no)
        if by_seed or by_word or rule_id in by_facts:
            chosen.append((2 - (by_seed and by_word) - (rule_id in by_facts), rule_id))
    out: list[Rule] = []
    for _, rule_id in sorted(chosen):
        out += library.versions(rule_id)
    return out


def _named_with_a_fact(versions: list[Rule], said: str, used: set[str], yes_no: bool) -> bool:
    """The question says one of the rule's keyword phrases ("involuntary", "small transfer",
    "chapter 13") and either states a fact, other than a date, that the rule turns on (`used`:
    one specific to the rule's section when the question asks for a definition) or is a yes/no
    question ("Is the mayor's son an insider?": the rule is asked, and its verdict says which
    facts are missing)."""
    if not said or not (used or yes_no):
        return False
    return any(_phrase(kw) in said for r in versions for kw in r.decl.keywords)


def _chosen_by_facts(index: RuleFacts, stated: set[str]) -> set[str]:
    """Of the rules that use at least MIN_SPECIFIC_FACTS stated specific facts, those that use
    the most stated facts; of these, the innermost (a rule using another of them adds no
    stated fact, and evaluating the inner one evaluates what the question is about)."""
    covers = {rid: len(stated & fs) for rid, fs in index.facts.items()
              if len(stated & index.specific & fs) >= MIN_SPECIFIC_FACTS}
    most = max(covers.values(), default=0)
    tied = {rid for rid, n in covers.items() if n == most}
    return {rid for rid in tied if not index.uses[rid] & tied}
