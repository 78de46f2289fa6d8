"""Facts of § 303(b) and § 523(a)(2)(C) questions reach the rules: the questions of
`rules_questions.toml` (written for this test from the statute's words and a practitioner's
paraphrase; none is a labeled query) are read by the query parser with the library's fact
declarations, and the library's verdict on those facts is the expected one."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from structfirst.engine.query_parser import parse_query
from structfirst.engine.symbolic_plane import rule_verdicts
from structfirst.eval.ablation import bundle_verdicts
from structfirst.rules.evaluator import evaluate
from structfirst.rules.library_loader import Library, default_library

QUESTIONS = tomllib.loads((Path(__file__).parent / "rules_questions.toml").read_text())["question"]


@pytest.fixture(scope="module")
def lib() -> Library:
    return default_library()


@pytest.mark.parametrize("q", QUESTIONS, ids=[f"{q['rule']}:{q['text'][:50]}" for q in QUESTIONS])
def test_question_facts_decide_the_rule(lib: Library, q: dict[str, Any]) -> None:
    parsed = parse_query(q["text"], as_of=q["as_of"])
    (verdict,) = evaluate(lib.versions(q["rule"]), parsed.fact_values(), q["as_of"], library=lib)
    assert str(verdict.verdict) == q["verdict"], (parsed.fact_values(), verdict.missing_facts)


@pytest.mark.parametrize("q", QUESTIONS, ids=[f"{q['rule']}:{q['text'][:50]}" for q in QUESTIONS])
def test_engine_chooses_the_rule_from_the_question(lib: Library, q: dict[str, Any]) -> None:
    """The symbolic plane's own choice of rules (from the parsed citations, predicate and
    facts; no rule named to it) reaches the same verdict."""
    parsed = parse_query(q["text"], as_of=q["as_of"])
    got = bundle_verdicts(rule_verdicts(
        lib, parsed.seeds, parsed.predicate.name if parsed.predicate else None,
        parsed.fact_values(), parsed.as_of.value, parsed.words_besides_facts()))
    want = {"true": True, "false": False}.get(q["verdict"], q["verdict"])
    assert got.get(q["rule"]) == want, (parsed.fact_values(), got)
