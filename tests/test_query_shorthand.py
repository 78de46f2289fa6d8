"""A question's shorthand, read as the words the rule library declares for it."""

from __future__ import annotations

from datetime import date

import pytest
from structfirst.engine.query_parser import parse_query
from structfirst.engine.query_shorthand import expand_shorthand

SHORTHAND = {"pmt": "payment", "dbtr": "debtor", "pet.": "petition", "cash adv": "cash advance",
             "w/": "with"}


def test_each_abbreviation_is_read_as_its_words_and_spans_map_back() -> None:
    q = "Dbtr made a PMT w/ cash adv proceeds; pet. filed."
    read, to_question = expand_shorthand(q, SHORTHAND)
    assert read == "debtor made a payment with cash advance proceeds; petition filed."
    for word, abbreviation in [("payment", "PMT"), ("cash advance", "cash adv"),
                               ("proceeds", "proceeds"), ("petition", "pet."),
                               ("filed.", "filed.")]:
        start = read.index(word)
        a, b = to_question((start, start + len(word)))
        assert q[a:b] == abbreviation
    a, b = to_question((read.index("made"), read.index("proceeds") + len("proceeds")))
    assert q[a:b] == "made a PMT w/ cash adv proceeds"


@pytest.mark.parametrize("q", ["a pmts ledger", "the pmtx field", "see pet.s", "dbtr2 pays",
                               "x/pmt", "1.pmt"])
def test_only_whole_words_are_abbreviations(q: str) -> None:
    assert expand_shorthand(q, SHORTHAND)[0] == q


def test_a_question_in_shorthand_gives_the_facts_of_its_words_at_its_own_spans() -> None:
    q = "dbtr indiv, pet. 3/15/04. cash adv $3,000 on card, 65 days prepetition. presumed?"
    p = parse_query(q, as_of=date(2004, 3, 15))
    assert p.question == q
    assert p.fact_values() == {"filing_date": date(2004, 3, 15), "cash_advance_amount": 3000,
                               "days_cash_advance_before_relief": 65}
    for f in p.facts:
        assert q[f.span[0]:f.span[1]] == f.text
    assert {f.name: f.text for f in p.facts}["cash_advance_amount"] == "$3,000"
    assert [d.text for d in p.dates] == ["3/15/04"]
