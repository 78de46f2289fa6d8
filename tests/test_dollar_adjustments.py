"""Dated thresholds from the "Adjustment of Dollar Amounts" notes of real Title 11 editions."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from structfirst.ingest.crossrefs import resolve_loc_list
from structfirst.ingest.dollar_adjustments import merge_threshold_facts, parse_adjustments
from structfirst.ingest.model import Fact, FactKind, ParsedDocument
from structfirst.ingest.uscode import parse_uscode

T = "/us/usc/t11"
C9 = f"{T}/s547/c/9"


def t11(corpus: Path, year: int) -> Path:
    return corpus / "us-code" / "title-11" / str(year) / "usc11.htm"


@pytest.fixture(scope="module")
def editions(corpus) -> dict[int, ParsedDocument]:
    return {y: parse_uscode(t11(corpus, y)) for y in (2004, 2010, 2013, 2018)}


def thresholds(doc: ParsedDocument) -> list[Fact]:
    return [f for f in doc.facts if f.kind == FactKind.THRESHOLD]


def timeline(facts: list[Fact], node_id: str, series: str | None = None) -> list[tuple]:
    return sorted(
        (f.effective_from, f.value, f.effective_to)
        for f in facts
        if f.node_id == node_id and (series is None or f.attrs["series"] == series)
    )


def test_547c9_in_the_2018_edition(editions):
    facts = thresholds(editions[2018])
    assert timeline(facts, C9) == [
        (date(2007, 4, 1), 5475.0, date(2010, 4, 1)),
        (date(2010, 4, 1), 5850.0, date(2013, 4, 1)),
        (date(2013, 4, 1), 6225.0, date(2016, 4, 1)),
        (date(2016, 4, 1), 6425.0, date(2019, 4, 1)),
        (date(2019, 4, 1), 6825.0, None),
    ]
    latest = next(f for f in facts if f.node_id == C9 and f.effective_from == date(2019, 4, 1))
    assert latest.unit == "USD" and latest.attrs["old_value"] == 6425.0
    assert latest.attrs["notice_citation"] == "84 F.R. 3488"
    assert latest.attrs["notice_date"] == "2019-02-05"
    assert latest.attrs["series"] == f"{C9}#1"
    assert latest.attrs["source"] == "section-104-table"  # the §104 table wins over the note
    assert "Section 547(c)(9)" in latest.attrs["row_label"]


def test_547c9_across_editions(editions):
    merged = merge_threshold_facts(thresholds(editions[y]) for y in (2010, 2013, 2018))
    got = {(f.effective_from, f.value) for f in merged if f.node_id == C9}
    assert {
        (date(2010, 4, 1), 5850.0),
        (date(2013, 4, 1), 6225.0),
        (date(2016, 4, 1), 6425.0),
        (date(2019, 4, 1), 6825.0),
    } <= got
    # each edition alone reads the amount its own §104 table puts in force
    for year, value in ((2010, 5850.0), (2013, 6225.0)):
        table = [
            f
            for f in thresholds(editions[year])
            if f.node_id == C9 and f.attrs["source"] == "section-104-table"
        ]
        assert [f.value for f in table] == [value]


def test_two_amounts_in_one_provision_are_two_series(editions):
    facts = thresholds(editions[2018])
    e = f"{T}/s109/e"
    assert {f.attrs["series"] for f in facts if f.node_id == e} == {f"{e}#1", f"{e}#2"}
    assert timeline(facts, e, f"{e}#1")[-1] == (date(2019, 4, 1), 419275.0, None)
    assert timeline(facts, e, f"{e}#2")[-1] == (date(2019, 4, 1), 1257850.0, None)
    assert timeline(facts, e, f"{e}#2")[0] == (date(1998, 4, 1), 807750.0, date(2001, 4, 1))


def test_title_28_rows(editions):
    facts = thresholds(editions[2018])
    got = [f for f in facts if f.node_id == "/us/usc/t28/s1409/b/1"]
    assert [(f.value, f.attrs["old_value"]) for f in got] == [(1375.0, 1300.0)]


def test_three_tables_of_the_2004_edition(editions):
    facts = thresholds(editions[2004])
    e = f"{T}/s109/e"
    assert timeline(facts, e, f"{e}#1") == [
        (date(1998, 4, 1), 269250.0, date(2001, 4, 1)),
        (date(2001, 4, 1), 290525.0, date(2004, 4, 1)),
        (date(2004, 4, 1), 307675.0, None),
    ]
    # "(2)—in paragraph (4)(B)(i)" under "Section 507(a)"
    assert timeline(facts, f"{T}/s507/a/4/B/i")[-1] == (date(2004, 4, 1), 4925.0, None)


def test_chaining_across_renumbered_citations(editions):
    # the 2010 notice cites "101(18)(A), (B)(ii)", the others "101(18)": one series continues
    facts = thresholds(editions[2018])
    series = f"{T}/s101/18#1"
    got = sorted((f.effective_from, f.node_id) for f in facts if f.attrs["series"] == series)
    assert got[0] == (date(2007, 4, 1), f"{T}/s101/18")
    assert (date(2010, 4, 1), f"{T}/s101/18/A") in got
    assert got[-1] == (date(2019, 4, 1), f"{T}/s101/18")


def test_parse_adjustments_entry_points(corpus, editions):
    from_doc = parse_adjustments(editions[2013])
    from_path = parse_adjustments(t11(corpus, 2013))
    key = [(f.node_id, f.attrs["series"], f.effective_from, f.value) for f in from_doc]
    assert key == [(f.node_id, f.attrs["series"], f.effective_from, f.value) for f in from_path]
    assert len(from_doc) == len(thresholds(editions[2013])) > 100


def test_location_lists():
    assert resolve_loc_list(["(b)(5)(C)", "(6)(C)", "(10)(C)"]) == [
        ["b", "5", "C"],
        ["b", "6", "C"],
        ["b", "10", "C"],
    ]
    assert resolve_loc_list(["(18)(A)", "(B)(ii)"]) == [["18", "A"], ["18", "B", "ii"]]
    assert resolve_loc_list(["(19A)(A)(i)", "(b)(ii)(II)"]) == [
        ["19A", "A", "i"],
        ["19A", "B", "ii", "II"],
    ]
