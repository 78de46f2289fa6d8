"""The jurisdiction question set and its loader (`eval.jurisdiction_accuracy`)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from structfirst.eval.build_query_set import QUERIES_DIR
from structfirst.eval.jurisdiction_accuracy import (
    JurisdictionSetError,
    family,
    load_jurisdiction_questions,
    wilson,
)


def test_a_bad_record_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    path.write_text('{"qid": "a", "question": "q", "jurisdiction": "us-ia"}\n{"qid": "b"}\n')
    with pytest.raises(JurisdictionSetError, match=r"set\.jsonl, line 2: KeyError"):
        load_jurisdiction_questions(path)


def test_a_cfpb_answer_counts_as_federal() -> None:
    assert family("us-federal/cfpb") == "us-federal" and family("us-ia") == "us-ia"


def test_wilson_interval_holds_the_rate() -> None:
    lo, hi = wilson(18, 24)
    assert 0.5 < lo < 0.75 < hi < 0.9


def test_the_set_has_both_kinds_in_equal_numbers() -> None:
    questions = load_jurisdiction_questions(QUERIES_DIR / "jurisdiction_check.jsonl")
    kinds = Counter("federal" if q.jurisdiction == "us-federal" else "state" for q in questions)
    assert kinds == {"federal": 24, "state": 24}
    assert all(q.jurisdiction.startswith("us-") for q in questions)
