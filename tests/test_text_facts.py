"""Amounts, durations and dates read from node text."""

from __future__ import annotations

from datetime import date

from structfirst.ingest.model import Authority, FactKind, Node, NodeType, Provenance
from structfirst.ingest.text_facts import extract_text_facts, parse_number_words
from structfirst.ingest.uscode import parse_uscode


def _node(text: str) -> Node:
    return Node(
        id="/us/usc/t11/s1/a",
        type=NodeType.CLAUSE,
        text=text,
        provenance=Provenance("x.htm", (10, 20), "test/1"),
        jurisdiction="us-federal",
        authority=Authority.STATUTE,
        effective_from=date(2019, 1, 14),
    )


def test_amounts_durations_dates():
    node = _node(
        "less than $7,575, $1,000,000 or $4,411,400, at least $5 million; within 90 days, "
        "ninety days, one year, 180 days, 2 years, a 45-day period, three business days; "
        "on April 1, 2019 or Apr. 1, 2019; the 15th day of section 90"
    )
    facts = extract_text_facts(node)
    amounts = [(f.value, f.text) for f in facts if f.kind == FactKind.AMOUNT]
    assert amounts == [
        (7575.0, "$7,575"),
        (1000000.0, "$1,000,000"),
        (4411400.0, "$4,411,400"),
        (5000000.0, "$5 million"),
    ]
    durations = [
        (f.value, f.attrs["quantity"], f.attrs["unit_word"])
        for f in facts
        if f.kind == FactKind.DURATION
    ]
    assert durations == [
        (90.0, 90, "days"),
        (90.0, 90, "days"),
        (365.0, 1, "year"),
        (180.0, 180, "days"),
        (730.0, 2, "years"),
        (45.0, 45, "day"),
        (3.0, 3, "business days"),
    ]
    dates = [(f.value, f.text) for f in facts if f.kind == FactKind.DATE]
    assert dates == [("2019-04-01", "April 1, 2019"), ("2019-04-01", "Apr. 1, 2019")]
    for f in facts:
        s, e = f.attrs["text_span"]
        assert node.text[s:e] == f.text
        assert f.provenance == node.provenance and f.node_id == node.id
        assert f.effective_from == date(2019, 1, 14)
    assert {f.unit for f in facts if f.kind == FactKind.DURATION} == {"days"}
    assert extract_text_facts(_node("")) == []


def test_number_words():
    assert parse_number_words("ninety") == 90
    assert parse_number_words("one hundred eighty") == 180
    assert parse_number_words("forty-five") == 45
    assert parse_number_words("lots") is None


def test_real_clauses(corpus):
    doc = parse_uscode(corpus / "us-code" / "title-11" / "2010" / "usc11.htm")
    by = {n.id: n for n in doc.nodes}
    b4b = extract_text_facts(by["/us/usc/t11/s547/b/4/B"])
    assert [(f.text, f.value) for f in b4b] == [("ninety days", 90.0), ("one year", 365.0)]
    c9 = extract_text_facts(by["/us/usc/t11/s547/c/9"])
    assert [(f.kind, f.value) for f in c9] == [(FactKind.AMOUNT, 5000.0)]
