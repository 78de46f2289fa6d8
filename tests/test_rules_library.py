"""The packaged Title 11 rule library: loads clean, passes its scenarios, matches the reference."""

from __future__ import annotations

import json
from datetime import date

import pytest
from structfirst.eval.bench_rules import fact_sets
from structfirst.rules.evaluator import evaluate
from structfirst.rules.library_loader import Library, load_library
from structfirst.rules.lint import check_tests, lint_library
from structfirst.rules.parameters import ParamValue
from structfirst.rules.scenario_tests import run_scenarios
from structfirst.rules.selection import rule_facts, select_rules

WORKED = {"transfer_amount": 6000, "days_before_filing": 100, "creditor_is_insider": False,
          "debtor_consumer_debts": False}


@pytest.fixture(scope="module")
def lib() -> Library:
    return load_library()  # thresholds: the §104 notes of the shared editions


def test_loads_without_errors_with_ingested_thresholds(lib: Library) -> None:
    assert not lib.errors(), lib.errors()
    assert lib.parameters.ingested_source == "editions"
    assert len(lib.rule_ids()) >= 10
    origins = {(v.start, v.value, v.origin) for v in lib.parameters.series["s547_c_9"].values}
    assert (date(2005, 10, 17), 5000, "library") in origins
    assert (date(2007, 4, 1), 5475, "ingested") in origins
    assert (date(2019, 4, 1), 6825, "ingested") in origins
    assert (date(2025, 4, 1), 8575, "library") in origins
    v2010 = lib.parameters.lookup("s547_c_9", date(2012, 6, 1))
    assert isinstance(v2010, ParamValue) and v2010.value == 5850
    assert v2010.source.startswith("75 F.R. 8747")
    assert lib.parameters.lookup("s109_e_unsecured", date(2020, 1, 1)).value == 419275
    assert lib.parameters.lookup("s109_e_secured", date(2020, 1, 1)).value == 1257850


def test_lint_finds_no_errors(lib: Library) -> None:
    issues = lint_library(lib, through=date(2026, 11, 22))
    assert not [i for i in issues if i.severity == "error"], [str(i) for i in issues]


def test_every_rule_version_has_scenario_tests(lib: Library) -> None:
    """The scenarios themselves run one by one in test_rules_scenarios.py."""
    assert not check_tests(lib), [str(i) for i in check_tests(lib)]
    report = run_scenarios(lib, select="worked example")
    assert report.ok and {(r.id, r.version) for r in lib.rules} > report.covered


def test_the_reference_worked_example(lib: Library) -> None:
    facts = {**WORKED, "filing_date": date(2026, 11, 22)}
    avoidable, excepted = evaluate(lib.versions("s547.b") + lib.versions("s547.c.9"), facts,
                                   None, library=lib)
    assert str(avoidable.verdict) == "false" and avoidable.head == "Avoidable"
    reach = avoidable.premise("1.4")
    assert (reach.text, str(reach.value), reach.citation) == (
        "WithinReachBack", "false", "/us/usc/t11/s547/b/4")
    assert "1.4" in avoidable.grounds
    b4 = avoidable.supporting["s547.b.4"]
    assert [p.detail for p in b4.premises if p.kind == "comparison"] == ["100 <= 90",
                                                                         "100 <= 365"]
    assert str(b4.premise("2.1").value) == "false"  # not an insider
    assert str(excepted.verdict) == "true"
    amount = excepted.premise("1.2")
    assert amount.detail == "6000 < 8575" and amount.citation == "/us/usc/t11/s547/c/9"
    assert amount.parameters["s547_c_9"]["source"].startswith("90 FR 8941")
    json.dumps(avoidable.to_dict())  # plain data


def test_the_threshold_flips_with_the_filing_date(lib: Library) -> None:
    (v,) = evaluate(lib.versions("s547.c.9"), {**WORKED, "filing_date": "2012-06-01"}, None,
                    library=lib)
    assert str(v.verdict) == "false" and v.premise("1.2").detail == "6000 < 5850"
    (v,) = evaluate(lib.versions("s547.c.9"), WORKED, date(2026, 11, 22), library=lib)
    assert str(v.verdict) == "true" and v.as_of_source == "as_of"


def test_select_rules_by_seed_prefix_and_predicate(lib: Library) -> None:
    ids = {r.id for r in select_rules(lib, ["/us/usc/t11/s547"], [])}
    assert ids == {i for i in lib.rule_ids() if i.startswith("s547")}
    ids = {r.id for r in select_rules(lib, ["/us/usc/t11/s547/c/9"], [])}
    assert ids == {"s547.c.9", "s547.c"}
    ids = {r.id for r in select_rules(lib, ["/us/usc/t11/s547/b/4/A"], [])}
    assert ids == {"s547.b.4", "s547.b"}
    assert {r.id for r in select_rules(lib, [], ["Can the trustee avoid this transfer?"])} \
        >= {"s547.b"}
    assert {r.id for r in select_rules(lib, [], "insider")} >= {"s101.31"}
    assert {r.id for r in select_rules(lib, [], ["Avoidable"])} == {"s547.b"}
    assert select_rules(lib, ["/us/usc/t11/s9999"], ["zebra"]) == []
    versions = [r for r in select_rules(lib, ["/us/usc/t11/s109/e"], []) if r.id == "s109.e"]
    assert [r.version for r in versions] == [1, 2, 3]


def test_select_rules_by_stated_facts(lib: Library) -> None:
    index = rule_facts(lib)
    assert "relationship" in index.facts["s547.b"]  # through § 547(b)(4)(B) and § 101(31)
    assert "s101.31" in index.uses["s547.b"]
    assert "transfer_amount" in index.specific and "debtor_kind" not in index.specific

    def chosen(*facts: str) -> set[str]:
        return {r.id for r in select_rules(lib, [], [], facts)}

    # the rule that uses the most stated facts: § 547(b) uses both, (c)(9) and (b)(4) one each
    assert chosen("transfer_amount", "days_before_filing") == {"s547.b"}
    assert chosen("noncontingent_unsecured_debts", "secured_debts", "debtor_regular_income") \
        == {"s109.e.eligible"}
    # of rules tied on the stated facts, the innermost: the question is about the insider
    assert chosen("creditor_is_insider", "relationship") == {"s101.31"}
    # one specific fact, or context facts several sections use, point to no rule
    assert chosen("transfer_amount") == set()
    assert chosen("days_before_filing", "debtor_kind", "filing_date") == set()


def test_missing_facts_are_the_inputs_a_user_supplies(lib: Library) -> None:
    # the days before the petition follow from two dates; the filing date is known
    v = {x.rule_id: x for x in evaluate(lib.versions("s547.b.4"), {
        "filing_date": date(2016, 5, 2), "creditor_is_insider": True}, None, library=lib)}
    assert v["s547.b.4"].missing_facts == ["transfer_date"]
    # whether fewer than 12 hold claims follows from their number
    v = {x.rule_id: x for x in evaluate(lib.versions("s303.b"), {
        "petitioning_creditors": 1, "unsecured_claims_total": 30000}, date(2026, 1, 5),
        library=lib)}
    assert v["s303.b"].missing_facts == ["creditor_count"]
    # a fact only sometimes implied by another stays an input (consumer debts -> individual)
    assert lib.vocabulary.inputs("debtor_kind") == ()
    assert lib.vocabulary.inputs("holders_fewer_than_12") == ("creditor_count",)
    # over random fact sets, no missing fact is one its declarations settle from others
    for facts in fact_sets(lib.vocabulary, 40, 3):
        for x in evaluate(lib.rules, facts, facts["filing_date"], library=lib):
            for name in x.missing_facts:
                assert name in lib.vocabulary and not lib.vocabulary.inputs(name), (x.rule_id,
                                                                                     name)
