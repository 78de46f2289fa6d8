"""Calendar arithmetic of the rule language, and three-valued verdicts over date facts that
stay exact (the unknown dates are enumerated at the dates they are compared with)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from structfirst.rules.evaluator import evaluate
from structfirst.rules.functions import FUNCTIONS, add_span, federal_holidays
from structfirst.rules.library_loader import TITLE11_FACTS, Library, load_library

RULES = """\
base /t

rule t.split
  version 1
  cites a
  effective from 2000-01-01
  Either <= transfer_date < 2005-10-17
  Either <= transfer_date >= 2005-10-17

rule t.window
  version 1
  cites b
  effective from 2000-01-01
  InWindow <= transfer_date >= filing_date - 2 years & transfer_date <= filing_date
  InWindow <= transfer_date > filing_date & transfer_date < filing_date - 3 years

rule t.months
  version 1
  cites c
  effective from 2000-01-01
  LongAgo <= months_between(transfer_date, filing_date) >= 18 & 2 * days_before_filing > 1000
"""


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> Library:
    root: Path = tmp_path_factory.mktemp("dates")
    (root / "t.rules").write_text(RULES)
    (root / "facts.toml").write_text(TITLE11_FACTS.read_text())
    library = load_library(root, thresholds=[])
    assert not library.errors(), library.errors()
    return library


def test_calendar_units() -> None:
    assert add_span(date(2016, 2, 29), 1, "years") == date(2017, 2, 28)
    assert add_span(date(2019, 3, 1), -8, "years") == date(2011, 3, 1)
    assert add_span(date(2019, 1, 31), 1, "months") == date(2019, 2, 28)
    # Friday 2019-01-18 + 2 business days skips the weekend and Martin Luther King Jr. Day
    assert add_span(date(2019, 1, 18), 2, "business_days") == date(2019, 1, 23)
    assert date(2021, 6, 18) in federal_holidays(2021)  # Juneteenth on a Saturday
    assert date(2021, 12, 31) in federal_holidays(2021)  # New Year's Day 2022 on a Saturday
    years = FUNCTIONS["years_between"].apply
    assert years(date(2011, 3, 1), date(2019, 3, 1)) == 8
    assert years(date(2011, 3, 2), date(2019, 3, 1)) == 7
    assert FUNCTIONS["business_days_between"].apply(date(2019, 3, 1), date(2019, 3, 15)) == 10


def test_a_date_tautology_is_decided_by_cases(lib: Library) -> None:
    (v,) = evaluate(lib.versions("t.split"), {}, date(2020, 1, 1), library=lib)
    assert str(v.verdict) == "true" and v.exact
    assert "decided by cases: every value of transfer_date" in v.notes[0]


def test_dates_compared_with_known_dates_are_enumerated(lib: Library) -> None:
    (v,) = evaluate(lib.versions("t.window"), {"filing_date": "2019-03-01"}, None, library=lib)
    assert str(v.verdict) == "undetermined" and v.exact
    assert v.missing_facts == ["transfer_date"]
    facts = {"filing_date": "2019-03-01", "transfer_date": "2017-03-01"}
    (v,) = evaluate(lib.versions("t.window"), facts, None, library=lib)
    assert str(v.verdict) == "true"
    facts = {"filing_date": "2019-03-01", "transfer_date": "2017-02-28"}
    (v,) = evaluate(lib.versions("t.window"), facts, None, library=lib)
    assert str(v.verdict) == "false"


def test_months_and_multiplication_in_the_trace(lib: Library) -> None:
    facts = {"filing_date": "2019-03-01", "transfer_date": "2017-08-01"}
    (v,) = evaluate(lib.versions("t.months"), facts, None, library=lib)
    assert str(v.verdict) == "true"  # 19 months; 2 * 577 days > 1000
    assert [p.detail for p in v.premises] == ["19 >= 18", "1154 > 1000"]
