"""A rule author's path without Python: a new library directory (fact declarations, a rule
over entities with a date difference in years, a sum, scenario tests) is linted, tested and
explained by `structfirst rules`, and `structfirst ask` answers with it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from structfirst.cli.main import app
from structfirst.rules.library_loader import LIBRARY_ENV
from typer.testing import CliRunner

pytest_plugins = ["engine_fixtures"]

FACTS = """\
[fact.filing_date]
type = "date"
meaning = "date the petition was filed"
source = "/us/usc/t11/s301"
stated = { role = "filing" }

[fact.debtor_consumer_debts]
type = "bool"
meaning = "the debtor's debts are primarily consumer debts"
source = "/us/usc/t11/s547/c/8"
  [fact.debtor_consumer_debts.stated.values]
  true = ['\\bprimarily\\s+consumer\\s+debts\\b']

[fact.transferred_value]
type = "amount"
meaning = "the value of the property transferred"
source = "/us/usc/t11/s547/c/8"
  [fact.transferred_value.stated]
  after = ['\\s+(?:worth\\s+of\\s+)?(?:property|goods)\\b']

[entity.transferred_item]
meaning = "an item of property that constitutes or is affected by the transfer"
source = "/us/usc/t11/s547/c/8"
closed = true

[fact.item_value]
type = "amount"
of = "transferred_item"
meaning = "the item's value"

[entity.prior_case]
meaning = "an earlier bankruptcy case of the debtor"
source = "/us/usc/t11/s1328/f"
closed = true

[fact.prior_case_chapter]
type = "enumeration"
of = "prior_case"
meaning = "the chapter of the earlier case"
  [fact.prior_case_chapter.values]
  chapter_7 = "chapter 7"
  chapter_11 = "chapter 11"
  chapter_12 = "chapter 12"
  chapter_13 = "chapter 13"

[fact.prior_case_date]
type = "date"
of = "prior_case"
meaning = "date the earlier case was filed"

[fact.prior_case_discharged]
type = "bool"
of = "prior_case"
meaning = "the debtor received a discharge in the earlier case"
"""

S1328 = """\
# 11 U.S.C. § 1328(f): no chapter 13 discharge after a recent discharge.
base /us/usc/t11/s1328

rule s1328.f.case
  title     "An earlier case with a discharge in the look-back period"
  version   1
  cites     f, f/1, f/2
  effective from 2005-10-17
  BarringCase(C) <=
        prior_case(C)
      & prior_case_discharged(C)                                        @ f
      & prior_case_chapter(C) != chapter_13                             @ f/1
      & years_between(prior_case_date(C), filing_date) < 4              @ f/1
  BarringCase(C) <=
        prior_case(C)
      & prior_case_discharged(C)                                        @ f
      & prior_case_chapter(C) == chapter_13                             @ f/2
      & years_between(prior_case_date(C), filing_date) < 2              @ f/2

rule s1328.f
  title     "No discharge in a chapter 13 case filed soon after a discharge"
  version   1
  cites     f
  effective from 2005-10-17
  NoChapter13Discharge <= count(C : BarringCase(C)) >= 1                @ f
"""

S547 = """\
# 11 U.S.C. § 547(c)(8): small transfers by a consumer debtor.
base /us/usc/t11/s547

rule s547.c.8.items
  title     "The aggregate value of the property transferred is less than $600"
  version   1
  cites     c/8
  effective from 1994-10-22
  SmallConsumerTransfer <=
        debtor_consumer_debts                                           @ c/8
      & sum(item_value(T) : transferred_item(T)) < $600                 @ c/8

rule s547.c.8.value
  title     "A consumer debtor's transfer of property worth less than $600"
  version   1
  cites     c/8
  effective from 1994-10-22
  SmallConsumerTransferValue <=
        debtor_consumer_debts                                           @ c/8
      & transferred_value < $600                                        @ c/8
"""

TESTS_1328 = """\
[[test]]
name = "a chapter 7 discharge in a case filed 3 years and 364 days earlier bars it"
facts = { filing_date = 2019-03-01, prior_case = [{ prior_case_chapter = "chapter_7", prior_case_date = 2015-03-02, prior_case_discharged = true }] }
expect = { "s1328.f" = "true", "s1328.f.case" = "true" }

[[test]]
name = "exactly 4 years earlier is outside the period"
facts = { filing_date = 2019-03-01, prior_case = [{ prior_case_chapter = "chapter_7", prior_case_date = 2015-03-01, prior_case_discharged = true }] }
expect = { "s1328.f" = "false" }

[[test]]
name = "a chapter 13 discharge 3 years earlier is outside the 2-year period"
facts = { filing_date = 2019-03-01, prior_case = [{ prior_case_chapter = "chapter_13", prior_case_date = 2016-03-01, prior_case_discharged = true }] }
expect = { "s1328.f" = "false" }

[[test]]
name = "whether the earlier case ended in a discharge is not stated"
facts = { filing_date = 2019-03-01, prior_case = [{ prior_case_chapter = "chapter_7", prior_case_date = 2017-03-01 }] }
expect = { "s1328.f" = "undetermined" }
  [test.missing]
  "s1328.f" = ["prior_case1.prior_case_discharged"]
"""

TESTS_547 = """\
[[test]]
name = "three items worth $599 in all"
facts = { filing_date = 2019-03-01, debtor_consumer_debts = true, transferred_item = [{ item_value = 200 }, { item_value = 300 }, { item_value = 99 }] }
expect = { "s547.c.8.items" = "true" }

[[test]]
name = "three items worth exactly $600"
facts = { filing_date = 2019-03-01, debtor_consumer_debts = true, transferred_item = [{ item_value = 200 }, { item_value = 300 }, { item_value = 100 }] }
expect = { "s547.c.8.items" = "false" }

[[test]]
name = "one value unknown"
facts = { filing_date = 2019-03-01, debtor_consumer_debts = true, transferred_item = [{ item_value = 200 }, { }] }
expect = { "s547.c.8.items" = "undetermined", "s547.c.8.value" = "undetermined" }

[[test]]
name = "property worth $450"
facts = { filing_date = 2019-03-01, debtor_consumer_debts = true, transferred_value = 450 }
expect = { "s547.c.8.value" = "true" }
"""


@pytest.fixture()
def library(tmp_path: Path) -> Path:
    root = tmp_path / "newlib" / "us" / "usc" / "t11"
    root.mkdir(parents=True)
    for name, text in {"facts.toml": FACTS, "s1328.rules": S1328, "s547.rules": S547,
                       "s1328.tests.toml": TESTS_1328, "s547.tests.toml": TESTS_547}.items():
        (root / name).write_text(text)
    return tmp_path / "newlib"


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def test_lint_test_and_explain_use_the_new_library(library: Path) -> None:
    code, out = run("rules", "lint", "--library", str(library), "--through", "2026-11-22")
    assert code == 0 and "4 rule versions in 2 files" in out and "0 errors" in out, out
    code, out = run("rules", "test", "--library", str(library))
    assert code == 0 and "8 passed, 0 failed" in out, out
    facts = {"filing_date": "2019-03-01", "prior_case": [
        {"prior_case_chapter": "chapter_11", "prior_case_date": "2016-01-10",
         "prior_case_discharged": True}]}
    code, out = run("rules", "explain", "s1328.f", "--library", str(library), "--facts",
                    json.dumps(facts))
    assert code == 0 and "NoChapter13Discharge: true" in out, out
    assert "count(C : BarringCase(C)) = 1 certain (prior_case1)" in out, out
    code, out = run("rules", "facts", "--library", str(library))
    assert "item_value: amount [USD] - the item's value" in out, out


def test_ask_answers_with_the_new_library(library: Path, small_index: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(LIBRARY_ENV, str(library))
    code, out = run("ask", "A debtor with primarily consumer debts transferred $450 worth of "
                           "property to a creditor 30 days before filing. Is the transfer "
                           "protected by § 547(c)(8)?", "--index", str(small_index),
                    "--as-of", "2019-03-01", "--config", "fast", "--json")
    assert code == 0, out
    verdicts = {v["rule"]: v for v in json.loads(out)["verdicts"]}
    assert verdicts["s547.c.8.value"]["verdict"] == "true", verdicts
