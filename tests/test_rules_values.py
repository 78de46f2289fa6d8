"""Rules that return a number: the § 522(d) exemption amounts, with their computation in the
trace, the dated limits (statutory, § 104-adjusted from the editions, 2022 and 2025) and a
value rule used by another."""

from __future__ import annotations

from datetime import date

import pytest
from structfirst.rules.evaluator import evaluate
from structfirst.rules.library_loader import Library, default_library


@pytest.fixture(scope="module")
def lib() -> Library:
    return default_library()


def value(lib: Library, rule: str, **facts: object) -> object:
    (v,) = evaluate(lib.versions(rule), facts, None, library=lib)
    return v.value


@pytest.mark.parametrize(("filing", "limit"), [
    (date(1996, 1, 1), 15000), (date(2019, 3, 31), 23675), (date(2019, 4, 1), 25150),
    (date(2022, 3, 31), 25150), (date(2022, 4, 1), 27900), (date(2025, 4, 1), 31575)])
def test_the_homestead_limit_on_each_side_of_an_adjustment(lib: Library, filing: date,
                                                           limit: int) -> None:
    assert value(lib, "s522.d.1", residence_equity=100000, filing_date=filing) == limit
    assert value(lib, "s522.d.1", residence_equity=limit - 1, filing_date=filing) == limit - 1


def test_the_wildcard_uses_the_unused_homestead_amount(lib: Library) -> None:
    day = date(2023, 6, 1)  # (d)(1) 27,900; (d)(5) 1,475 + up to 13,950 of the unused (d)(1)
    assert value(lib, "s522.d.5", residence_equity=0, wildcard_property_value=50000,
                 filing_date=day) == 1475 + 13950
    assert value(lib, "s522.d.5", residence_equity=20000, wildcard_property_value=50000,
                 filing_date=day) == 1475 + 7900
    assert value(lib, "s522.d.5", residence_equity=20000, wildcard_property_value=900,
                 filing_date=day) == 900
    (v,) = evaluate(lib.versions("s522.d.5"), {"residence_equity": 20000,
                                               "wildcard_property_value": 50000,
                                               "filing_date": day}, None, library=lib)
    assert v.premises[0].detail == ("min(50000, 1475 + min(13950, 27900 - 20000)) = 9375; "
                                    "HomesteadExemption: min(20000, 27900) = 20000")
    assert v.to_dict()["value"] == 9375
