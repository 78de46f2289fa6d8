"""`structfirst rules lint|test|explain`, and mutations of a copy of the library that they catch."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from structfirst.cli.rules_cmd import app
from structfirst.rules.library_loader import LIBRARY_ROOT
from typer.testing import CliRunner

runner = CliRunner()
T11 = Path("us/usc/t11")
WORKED = json.dumps({"transfer_amount": 6000, "days_before_filing": 100,
                     "creditor_is_insider": False, "debtor_consumer_debts": False,
                     "filing_date": "2026-11-22"})


def rules(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


@pytest.fixture()
def copy(tmp_path: Path) -> Path:
    root = tmp_path / "library"
    shutil.copytree(LIBRARY_ROOT, root)
    return root


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def test_lint_and_test_pass_on_the_packaged_library() -> None:
    code, out = rules("lint", "--through", "2026-11-22")
    assert code == 0, out
    assert "0 errors" in out and "ingested thresholds: editions" in out
    code, out = rules("test")
    assert code == 0, out
    assert " passed, 0 failed" in out


def test_explain_prints_the_verdict_and_its_trace() -> None:
    code, out = rules("explain", "s547.b", "--facts", WORKED)
    assert code == 0, out
    assert "s547.b v1 Avoidable: false  as of 2026-11-22 (filing_date)" in out
    assert "- WithinReachBack  /us/usc/t11/s547/b/4  <- rule s547.b.4 v1" in out
    assert "- Within(days_before_filing, 90) [100 <= 90]" in out
    assert "grounds: 1.4, 1.6" in out
    code, out = rules("explain", "ExceptedSmallTransfer", "--facts", WORKED, "--json")
    data = json.loads(out)
    assert data["verdict"] == "true" and data["premises"][1]["detail"] == "6000 < 8575"
    code, out = rules("explain", "s547.c.9", "--fact", "transfer_amount=6000",
                      "--fact", "debtor_consumer_debts=false", "--fact", "filing_date=2012-06-01")
    assert code == 0 and "s547.c.9 v2 ExceptedSmallTransfer: false" in out
    assert "[6000 < 5850]" in out


def test_explain_refuses_bad_facts_and_unknown_rules() -> None:
    code, out = rules("explain", "s547.c.9", "--fact", "transfer_amount=2026-01-01")
    assert code == 2
    assert "fact transfer_amount: expected an amount in USD" in out
    code, out = rules("explain", "s547.z", "--facts", "{}")
    assert code == 2 and "no rule or predicate 's547.z'" in out
    code, out = rules("explain", "s547.b", "--facts", "[1]")
    assert code == 2 and "JSON object" in out


def test_changed_threshold_fails_the_test_naming_the_rule(copy: Path) -> None:
    edit(copy / T11 / "t11.params.toml", "value = 8575", "value = 5000")
    code, out = rules("test", "--library", str(copy))
    assert code == 1
    assert "rule s547.c.9 v2: expected true, got false" in out
    assert "s547.tests.toml:" in out and "6000 < 5000" in out


def test_deleted_premise_is_caught_by_lint_and_by_a_test(copy: Path) -> None:
    edit(copy / T11 / "s547.rules", "      & creditor_receives_more        @ b/5\n", "")
    code, out = rules("lint", "--library", str(copy), "--through", "2026-11-22")
    assert code == 1
    assert "rule s547.b: error: v1 cites /us/usc/t11/s547/b/5, but no premise comes from it" in out
    code, out = rules("test", "--library", str(copy))
    # (b)(5) false made Avoidable false; without the premise the exceptions leave it open
    assert code == 1 and "rule s547.b v1: expected false, got undetermined" in out


def test_overlapping_and_gapped_periods_are_lint_errors(copy: Path) -> None:
    rules_file = copy / T11 / "s547.rules"
    edit(rules_file, "effective from 1994-10-22 to 2005-10-17\n  keywords  ordinary course",
         "effective from 1994-10-22 to 2006-01-01\n  keywords  ordinary course")
    code, out = rules("lint", "--library", str(copy), "--through", "2026-11-22")
    assert code == 1
    assert "rule s547.c.2: error: v2 (from 2005-10-17) overlaps v1 (1994-10-22 to 2006-01-01)" \
        in out
    edit(rules_file, "to 2006-01-01\n  keywords  ordinary course",
         "to 2005-01-01\n  keywords  ordinary course")
    code, out = rules("lint", "--library", str(copy), "--through", "2026-11-22")
    assert "rule s547.c.2: error: no version in force from 2005-01-01 to 2005-10-17" in out
    assert "[gap]" in out


def test_bad_rule_files_are_clear_errors_and_the_other_rules_still_load(copy: Path) -> None:
    edit(copy / T11 / "s303.rules", "  keywords  involuntary",
         "  import os\n  keywords  involuntary")
    edit(copy / T11 / "s507.rules", "WagePriority <= Within(days_wages_earned_before_filing, 90)",
         "WagePriority <= Within(days_wages_earned_before_filing, 90) |")
    bar = next(n for n, text in enumerate((copy / T11 / "s507.rules").read_text().splitlines(), 1)
               if text.endswith("90) |        @ a/3"))
    edit(copy / T11 / "s523.rules", "& Within(days_luxury_before_relief, 90)",
         "& WithinLuxuryPeriod")
    line = (copy / T11 / "s523.rules").read_text().splitlines().index(
        "      & WithinLuxuryPeriod                    @ a/2/C/i/I") + 1
    code, out = rules("lint", "--library", str(copy), "--through", "2026-11-22")
    assert code == 1
    assert "s303.rules:10: error: rule files may not contain Python (found import)" in out
    assert f"s507.rules:{bar}: rule s507.a.4: error: no '|' in a clause body" in out
    assert (f"s523.rules:{line}: rule s523.a.2.C.luxury: error: unknown predicate "
            "WithinLuxuryPeriod") in out
    code, out = rules("test", "--library", str(copy))
    assert code == 1
    assert "rule s303.b: no such rule in the library" in out
    assert "FAIL" in out and "s547.tests.toml" not in out  # the § 547 scenarios still pass


def test_a_parameter_without_value_at_a_rules_dates_is_a_lint_error(copy: Path) -> None:
    edit(copy / T11 / "t11.params.toml", "to = 2028-04-01\n  value = 8575",
         "to = 2026-01-01\n  value = 8575")
    code, out = rules("lint", "--library", str(copy), "--through", "2026-11-22")
    assert code == 1
    assert ("rule s547.c.9: error: v2 uses parameter s547_c_9, which has no value from "
            "2026-01-01 to 2026-11-22") in out
    code, out = rules("explain", "s547.c.9", "--library", str(copy), "--facts", WORKED)
    assert "ExceptedSmallTransfer: undetermined" in out
    assert "parameters without value: s547_c_9" in out


def test_params_and_facts_listings() -> None:
    code, out = rules("params", "s547_c_9", "--as-of", "2012-06-01")
    assert code == 0 and "on 2012-06-01: 5850 (75 F.R. 8747" in out
    code, out = rules("params", "s547_c_9", "--as-of", "2030-01-01")
    assert "no value (after the last value (which ends 2028-04-01))" in out
    code, out = rules("facts")
    assert code == 0 and "transfer_amount: amount [USD] - value of the property" in out
    # an enumeration's values are listed in full, each with its meaning
    assert "- corporation_of_which_debtor_is_director_officer_or_in_control: a corporation" in out
    assert "derived: days between transfer_date and filing_date" in out
    # the shorthand a question may use, each meaning with its abbreviations
    assert "\n  payment: pmt, pymt, pmt., pymt.\n" in out
