"""Three-valued evaluation on pyDatalog: exact verdicts, sound negation, traces, isolation."""

from __future__ import annotations

import itertools
import json
import random
import shutil
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from pathlib import Path

import pytest
from structfirst.rules.evaluator import evaluate
from structfirst.rules.fact_schema import FactError
from structfirst.rules.library_loader import TITLE11_FACTS, Library, load_library

RULES = """\
base /t

rule t.a
  version 1
  cites a, a/1, a/2
  effective from 2000-01-01
  A <= debtor_insolvent @ a/1 & ~B @ a/1
  A <= transfer_amount < $1,000 @ a/2 & debtor_kind == corporation @ a/2

rule t.b
  version 1
  cites b
  effective from 2000-01-01
  B <= debtor_kind == individual & days_before_filing > 30
  B <= ~debtor_insolvent & creditor_is_insider

rule t.c
  version 1
  cites c
  effective from 2000-01-01
  C <= debtor_kind == individual
  C <= ~(debtor_kind == individual)

rule t.d
  version 1
  cites d
  effective from 2000-01-01
  D <= A & ~C
  D <= transfer_amount >= 500 & transfer_amount < 2000

rule t.e
  version 1
  cites e
  effective from 2000-01-01 to 2015-01-01
  E <= creditor_is_insider

rule t.f
  version 1
  cites f
  effective from 2000-01-01
  F <= E
  F <= transfer_amount < param(limit)
"""

PARAMS = """\
[limit]
provision = "/t/f"
  [[limit.values]]
  from = 2000-01-01
  to = 2010-01-01
  value = 100
  source = "test"
"""

DAY = date(2012, 1, 1)


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> Library:
    root = tmp_path_factory.mktemp("lib")
    (root / "t.rules").write_text(RULES)
    (root / "t.params.toml").write_text(PARAMS)
    shutil.copy(TITLE11_FACTS, root / "facts.toml")
    library = load_library(root, thresholds=[])
    assert not library.errors(), library.errors()
    return library


def verdicts(lib: Library, facts: dict, day: date | None = DAY, ids=("t.a", "t.b", "t.c", "t.d")):
    got = evaluate([lib.versions(i)[0] for i in ids], facts, day, library=lib)
    return {v.rule_id: v for v in got}


# an independent oracle: the same rules in plain Python, two-valued, over every completion
DOMAINS = {
    "debtor_insolvent": [True, False],
    "creditor_is_insider": [True, False],
    "debtor_kind": ["individual", "corporation", "partnership", "municipality"],
    "transfer_amount": [0, 499, 500, 999, 1000, 1999, 2000, 5000],
    "days_before_filing": [0, 29, 30, 31, 100],
}


def oracle(f: dict) -> dict[str, bool]:
    b = (f["debtor_kind"] == "individual" and f["days_before_filing"] > 30) or (
        not f["debtor_insolvent"] and f["creditor_is_insider"])
    a = (f["debtor_insolvent"] and not b) or (
        f["transfer_amount"] < 1000 and f["debtor_kind"] == "corporation")
    c = True
    d = (a and not c) or (500 <= f["transfer_amount"] < 2000)
    return {"t.a": a, "t.b": b, "t.c": c, "t.d": d}


def expected(known: dict) -> dict[str, str]:
    unknown = [k for k in DOMAINS if k not in known]
    seen: dict[str, set[bool]] = {k: set() for k in ("t.a", "t.b", "t.c", "t.d")}
    for combo in itertools.product(*(DOMAINS[k] for k in unknown)):
        for rule, value in oracle({**known, **dict(zip(unknown, combo, strict=True))}).items():
            seen[rule].add(value)
    return {r: ("true" if s == {True} else "false" if s == {False} else "undetermined")
            for r, s in seen.items()}


def test_verdicts_match_every_completion(lib: Library) -> None:
    rng = random.Random(20261122)
    for _ in range(150):
        known = {k: rng.choice(v) for k, v in DOMAINS.items() if rng.random() < 0.55}
        got = verdicts(lib, known)
        want = expected(known)
        assert {r: str(v.verdict) for r, v in got.items()} == want, known
        for v in got.values():
            assert v.exact
            unknown = set(DOMAINS) - set(known)  # or the dates a number of days comes from
            inputs = unknown | {i for k in unknown for i in lib.vocabulary.inputs(k)}
            assert set(v.missing_facts) <= inputs - {"days_before_filing"}
            assert bool(v.missing_facts) == (str(v.verdict) == "undetermined"), (known, v.rule_id)


def test_tautology_is_decided_by_cases(lib: Library) -> None:
    v = verdicts(lib, {}, ids=("t.c",))["t.c"]
    assert str(v.verdict) == "true" and v.exact and not v.missing_facts
    assert [str(p.value) for p in v.premises] == ["undetermined", "undetermined"]
    assert "decided by cases" in v.notes[0] and "debtor_kind" in v.notes[0]


def test_negation_of_an_undetermined_predicate_stays_undetermined(lib: Library) -> None:
    # B is undetermined (days unknown); A's first clause needs ~B
    v = verdicts(lib, {"debtor_insolvent": True, "debtor_kind": "individual",
                       "transfer_amount": 5000}, ids=("t.a",))["t.a"]
    # the days are derived from the two dates: those are what the user supplies
    assert str(v.verdict) == "undetermined" and v.missing_facts == ["filing_date",
                                                                     "transfer_date"]
    assert str(v.supporting["t.b"].verdict) == "undetermined"
    # a known B flips A through the negation
    v = verdicts(lib, {"debtor_insolvent": True, "debtor_kind": "individual",
                       "days_before_filing": 40, "transfer_amount": 5000}, ids=("t.a",))["t.a"]
    assert str(v.verdict) == "false" and str(v.supporting["t.b"].verdict) == "true"


def test_trace_premises_grounds_and_citations(lib: Library) -> None:
    v = verdicts(lib, {"transfer_amount": 700, "debtor_kind": "corporation"},
                 ids=("t.a",))["t.a"]
    assert str(v.verdict) == "true"
    assert v.grounds == ["2.1", "2.2"]
    p = v.premise("2.1")
    assert (p.text, p.kind, p.citation, p.detail) == (
        "transfer_amount < $1,000", "comparison", "/t/a/2", "700 < 1000")
    assert p.facts == {"transfer_amount": 700}
    assert v.premise("1.1").citation == "/t/a/1" and v.premise("1.2").kind == "rule"
    assert v.premise("1.2").rule == {"id": "t.b", "version": 1, "head": "B",
                                     "verdict": "undetermined"}
    data = json.loads(json.dumps(v.to_dict()))
    assert data["verdict"] == "true" and data["premises"][2]["citation"] == "/t/a/2"
    assert data["supporting"]["t.b"]["rule"] == "t.b"
    v = verdicts(lib, {"debtor_insolvent": True, "debtor_kind": "individual",
                       "transfer_amount": 5000}, ids=("t.a",))["t.a"]
    assert v.blocked_by == ["1.2"] and v.grounds == []


def test_rule_not_in_force_and_parameter_without_value(lib: Library) -> None:
    got = evaluate([lib.versions("t.e")[0], lib.versions("t.f")[0]],
                   {"creditor_is_insider": True, "transfer_amount": 50}, date(2020, 1, 1),
                   library=lib)
    e, f = got
    assert (str(e.verdict), e.in_force, e.version) == ("undetermined", False, None)
    assert "no version of t.e is in force on 2020-01-01" in e.notes[0]
    assert str(f.verdict) == "undetermined" and f.missing_parameters == ["limit"]
    assert any("parameter limit has no value on 2020-01-01" in n for n in f.notes)
    assert "no rule defining E is in force" in f.premise("1.1").detail
    e, f = evaluate([lib.versions("t.e")[0], lib.versions("t.f")[0]],
                    {"creditor_is_insider": False, "transfer_amount": 50}, date(2005, 1, 1),
                    library=lib)
    assert (str(e.verdict), str(f.verdict)) == ("false", "true")
    assert f.premise("2.1").parameters["limit"]["value"] == 100


def test_filing_date_is_the_as_of_date(lib: Library) -> None:
    (f,) = evaluate(lib.versions("t.f"), {"transfer_amount": 50, "creditor_is_insider": False,
                                          "filing_date": "2005-06-01"}, date(2020, 1, 1),
                    library=lib)
    assert (f.as_of, f.as_of_source, str(f.verdict)) == (date(2005, 6, 1), "filing_date", "true")
    with pytest.raises(ValueError, match="no as_of date"):
        evaluate(lib.versions("t.f"), {}, None, library=lib)


def test_facts_of_the_wrong_type_are_refused(lib: Library) -> None:
    with pytest.raises(FactError) as err:
        evaluate(lib.versions("t.a"), {"transfer_amount": date(2026, 1, 1),
                                       "debtor_insolvent": "maybe", "debtor_kind": "trust",
                                       "days_before_filing": -3, "no_such_fact": 1}, DAY,
                 library=lib)
    problems = " | ".join(err.value.problems)
    assert "transfer_amount: expected an amount in USD, got date 2026-01-01" in problems
    assert "debtor_insolvent: expected true or false" in problems
    assert "debtor_kind: expected one of individual" in problems
    assert "days_before_filing: expected a whole number of days, got a negative" in problems
    assert "no_such_fact: not a declared fact" in problems


def test_no_facts_leak_between_calls(lib: Library) -> None:
    first = verdicts(lib, {"debtor_insolvent": False, "creditor_is_insider": True})
    assert str(first["t.b"].verdict) == "true"
    second = verdicts(lib, {})
    assert str(second["t.b"].verdict) == "undetermined"
    assert verdicts(lib, {})["t.b"].missing_facts == second["t.b"].missing_facts


def test_concurrent_calls_are_isolated(lib: Library) -> None:
    rng = random.Random(7)
    cases = [{k: rng.choice(v) for k, v in DOMAINS.items() if rng.random() < 0.5}
             for _ in range(60)]
    want = [{r: str(v.verdict) for r, v in verdicts(lib, c).items()} for c in cases]

    def run(i: int) -> tuple[int, dict[str, str]]:
        return i, {r: str(v.verdict) for r, v in verdicts(lib, cases[i]).items()}

    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(run, [i % len(cases) for i in range(240)]))
    for i, got in results:
        assert got == want[i], cases[i]


def test_a_second_library_in_the_same_thread(lib: Library, tmp_path: Path) -> None:
    (tmp_path / "x.rules").write_text(RULES.replace("days_before_filing > 30",
                                                    "days_before_filing > 300"))
    (tmp_path / "x.params.toml").write_text(PARAMS)
    shutil.copy(TITLE11_FACTS, tmp_path / "facts.toml")
    other = load_library(tmp_path, thresholds=[])
    facts = {"debtor_kind": "individual", "days_before_filing": 100}
    assert str(verdicts(other, facts, ids=("t.b",))["t.b"].verdict) == "undetermined"
    assert str(verdicts(lib, facts, ids=("t.b",))["t.b"].verdict) == "true"
    assert str(verdicts(other, facts, ids=("t.b",))["t.b"].verdict) == "undetermined"
