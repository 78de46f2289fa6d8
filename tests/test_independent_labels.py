"""The independent second labeler's file and the agreement computed against it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from structfirst.eval.build_query_set import QUERIES_DIR
from structfirst.eval.independent_labels import (
    SECOND_LABELS,
    agreement,
    categories,
    read_second_labels,
)
from structfirst.eval.query_set import load_queries, parse_query

BASE = {
    "qid": "t-1", "question": "What does 'claim' mean?", "type": "definition",
    "as_of": "2016-06-01", "jurisdiction": "us-federal", "answerable": True,
    "abstain_reason": None, "facts": {}, "expected_verdicts": {}, "origin": "handwritten",
    "provision": "/us/usc/t11/s101", "split": "dev",
    "labels": [{"id": "/us/usc/t11/s101/5", "grade": 2}, {"id": "/us/usc/t11/s101/5/B",
                                                          "grade": 2}],
}


def _second(primary: str | None, abstain: bool = False) -> dict:
    return {"qid": "t-1", "primary": primary, "supporting": [], "abstain": abstain, "note": ""}


def test_the_stored_labels_cover_100_dev_and_test_queries_and_none_of_train() -> None:
    second = read_second_labels(SECOND_LABELS)
    queries = {q.qid: q for q in load_queries(QUERIES_DIR / "all.jsonl")}
    assert len(second) == 100
    assert {queries[qid].split for qid in second} == {"dev", "test"}
    result = agreement(list(queries.values()), second)
    assert result["n"] == 100
    assert len(result["disagreements"]) == round(100 * (1 - result["kappa_exact"]["p_observed"]))


def test_a_primary_among_several_grade_2_labels_agrees() -> None:
    q = parse_query(BASE)
    assert categories(q, _second("/us/usc/t11/s101/5/B")) == ("/us/usc/t11/s101/5/B",) * 2
    assert categories(q, _second("/us/usc/t11/s101/6")) == (
        "/us/usc/t11/s101/5", "/us/usc/t11/s101/6")
    assert categories(q, _second(None, abstain=True)) == ("/us/usc/t11/s101/5", "abstain")
    unanswerable = parse_query({**BASE, "answerable": False, "labels": [],
                                "abstain_reason": "other_jurisdiction"})
    assert categories(unanswerable, _second(None, abstain=True)) == ("abstain", "abstain")


def test_bad_lines_and_unknown_queries_are_named(tmp_path: Path) -> None:
    bad = tmp_path / "second.jsonl"
    bad.write_text(json.dumps(_second("/x")) + "\n{oops\n", "utf-8")
    with pytest.raises(ValueError, match=r"second.jsonl: line 2"):
        read_second_labels(bad)
    with pytest.raises(ValueError, match="unknown queries: t-1"):
        agreement([], {"t-1": _second("/x")})
