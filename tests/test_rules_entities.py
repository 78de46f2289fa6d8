"""Entities: predicates with an entity argument compiled to pyDatalog clauses (joins through
references, recursion), aggregates over them, open and closed lists, the missing inputs named,
and pyDatalog's answers equal to the Python oracle's on random fact sets."""

from __future__ import annotations

import random
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from structfirst.rules.evaluator import entity_members, evaluate, oracle_verdicts
from structfirst.rules.fact_schema import FactError, validate_facts
from structfirst.rules.library_loader import Library, load_library

LIB = Path(__file__).parent / "rules_entities"
FACTS: dict[str, Any] = {
    "filing_date": "2020-06-01",
    "person": [{"id": "ann", "person_is_relative": True},
               {"id": "bob", "person_controlled_by": "ann"}, {"id": "cy"}],
    "payment": [{"payment_amount": 600, "payment_date": "2020-01-01", "payment_payee": "bob"},
                {"payment_amount": 700, "payment_date": "2019-08-01", "payment_payee": "ann"},
                {"payment_amount": 900, "payment_date": "2018-01-01", "payment_payee": "ann"},
                {"payment_amount": 50, "payment_date": "2020-01-01"}],
    "claim": [{"claim_amount": 4000}, {"claim_amount": 7000}],
}


@pytest.fixture(scope="module")
def lib() -> Library:
    library = load_library(LIB, thresholds=[])
    assert not library.issues, [str(i) for i in library.issues]
    return library


def verdicts(lib: Library, facts: dict[str, Any]) -> dict[str, Any]:
    return {v.rule_id: v for v in evaluate(lib.rules, facts, None, library=lib)}


def test_joins_recursion_and_sums(lib: Library) -> None:
    v = verdicts(lib, FACTS)
    # bob is an insider through ann, who controls him (recursion through a reference)
    assert v["t.insider"].notes == ["Insider(ann): true", "Insider(bob): true",
                                    "Insider(cy): undetermined"]
    # payment3 is more than a year old; payment4's payee is unknown
    assert v["t.insider_payment"].notes == [
        "InsiderPayment(payment1): true", "InsiderPayment(payment2): true",
        "InsiderPayment(payment3): false", "InsiderPayment(payment4): undetermined"]
    (big,) = v["t.big"].premises
    assert str(v["t.big"].verdict) == "true"
    assert big.detail == ("between 1300 and 1350 > 1000; sum(payment_amount(P) : "
                          "InsiderPayment(P)) = 600 (payment1) + 700 (payment2) + 50 (payment4, "
                          "if it counts)")
    assert str(v["t.some"].verdict) == "true"


def test_undetermined_names_the_entity_inputs(lib: Library) -> None:
    facts = {**FACTS, "payment": [{"payment_amount": 1200, "payment_date": "2020-01-01"}]}
    v = verdicts(lib, facts)
    assert str(v["t.big"].verdict) == "undetermined"
    assert v["t.big"].missing_facts == ["payment1.payment_payee"]
    assert not v["t.big"].exact


def test_open_and_closed_lists(lib: Library) -> None:
    v = verdicts(lib, FACTS)  # claims are an open list: 2 listed, $11,000
    assert str(v["t.claims"].verdict) == "true"  # the sum already reaches $10,000
    v = verdicts(lib, {**FACTS, "claim": [{"claim_amount": 100}, {"claim_amount": 200}]})
    assert str(v["t.claims"].verdict) == "undetermined"
    assert "every claim" in v["t.claims"].missing_facts
    # payments are a closed list: no payment listed means none was made
    v = verdicts(lib, {**FACTS, "payment": []})
    assert str(v["t.some"].verdict) == "false" and str(v["t.big"].verdict) == "false"


def test_bad_entity_facts_are_refused(lib: Library) -> None:
    with pytest.raises(FactError) as err:
        validate_facts({"payment_amount": 5, "payment": [{"payment_payee": "zed"}]},
                       lib.vocabulary)
    assert "payment_amount: an attribute of each payment" in str(err.value)
    assert "payment1.payment_payee: 'zed' is not a listed person" in str(err.value)


def _random_facts(rng: random.Random) -> dict[str, Any]:
    people = [{"id": f"p{i}"} for i in range(rng.randrange(0, 4))]
    for p in people:
        if rng.random() < 0.6:
            p["person_is_relative"] = rng.random() < 0.4
        if people and rng.random() < 0.5:
            p["person_controlled_by"] = rng.choice(people)["id"]
    payments = []
    for _ in range(rng.randrange(0, 4)):
        pay: dict[str, Any] = {}
        if rng.random() < 0.8:
            pay["payment_amount"] = rng.choice([100, 500, 900])
        if rng.random() < 0.8:
            pay["payment_date"] = date(2019, 1, 1) + timedelta(days=rng.randrange(600))
        if people and rng.random() < 0.7:
            pay["payment_payee"] = rng.choice(people)["id"]
        payments.append(pay)
    claims = [{"claim_amount": rng.choice([1000, 5000])} for _ in range(rng.randrange(0, 4))]
    return {"filing_date": "2020-06-01", "person": people, "payment": payments, "claim": claims}


def test_pydatalog_agrees_with_the_python_oracle(lib: Library) -> None:
    rng = random.Random(7)
    for _ in range(60):
        facts = _random_facts(rng)
        members = entity_members(facts, None, lib)
        assert members and members == entity_members(facts, None, lib, oracle=True), facts
        got = {v.rule_id: v.verdict for v in evaluate(lib.rules, facts, None, library=lib,
                                                        refine=False)}
        assert got == oracle_verdicts(lib.rules, facts, None, lib), facts
