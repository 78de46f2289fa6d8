"""Lint never passes what crashes: each broken input gives one clear error with file and line,
and `rules test` on it reports failures instead of raising."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from structfirst.cli.rules_cmd import app
from structfirst.rules.library_loader import LIBRARY_ROOT, load_library
from structfirst.rules.lint import lint_library
from structfirst.rules.scenario_tests import run_scenarios
from typer.testing import CliRunner

S547 = Path("us/usc/t11/s547.rules")
SMALL = "& transfer_amount < param(s547_c_9)          @ c/9"  # s547.c.9 v2, line 102


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("lib") / "library"
    shutil.copytree(LIBRARY_ROOT, root)
    return root


def _broken(tmp_path: Path, pristine: Path, old: str, new: str,
            fails: bool | None = True) -> tuple[Path, list, int]:
    root = tmp_path / "library"
    shutil.copytree(pristine, root)
    path = root / S547
    text = path.read_text()
    assert old in text, old
    line = text[:text.index(old)].count("\n") + 1
    path.write_text(text.replace(old, new, 1))
    lib = load_library(root, thresholds=[])
    errors = [i for i in lint_library(lib) if i.severity == "error"]
    report = run_scenarios(lib, select="s547")  # must not raise
    if fails is not None:
        assert report.ok is not fails
    return path, errors, line


def _one(errors: list, path: Path, line: int, code: str, text: str) -> None:
    assert len(errors) == 1, [str(e) for e in errors]
    (e,) = errors
    assert (e.file, e.line, e.code) == (str(path), line, code), str(e)
    assert text in e.message, e.message


def test_unknown_function_is_a_lint_error(tmp_path: Path, pristine: Path) -> None:
    path, errors, line = _broken(tmp_path, pristine, SMALL, "& total(transfer_amount) > $5 @ c/9")
    _one(errors, path, line, "unknown-function", "unknown function total (the functions are")


def test_a_fact_used_as_a_function(tmp_path: Path, pristine: Path) -> None:
    path, errors, line = _broken(tmp_path, pristine, SMALL,
                                 "& transfer_amount(2) > $5 @ c/9")
    _one(errors, path, line, "unknown-function", "transfer_amount is a fact, not a function")


def test_a_400_term_sum_loads_and_a_deep_nesting_is_one_syntax_error(
        tmp_path: Path, pristine: Path) -> None:
    long = " + ".join(["transfer_amount"] * 400)
    root = tmp_path / "long"
    path, errors, line = _broken(root, pristine, SMALL, f"& {long} > $5 @ c/9")
    assert errors == []  # valid (and evaluated without recursion)
    path, errors, line = _broken(tmp_path, pristine, SMALL,
                                 "& " + "(" * 200 + "transfer_amount" + ")" * 200 + " > $5 @ c/9")
    _one(errors, path, line, "syntax", "parentheses nested more than 32 deep")


def test_one_typo_is_one_root_cause_error(tmp_path: Path, pristine: Path) -> None:
    path, errors, line = _broken(tmp_path, pristine, "WithinReachBack <= Within(days_before",
                                 "WithinReachBack <= Within(days_before_filling")
    _one(errors, path, line, "unknown-predicate",
         "s547.b.4 failed to load, and so did the rules that use it: s547.b")
    lib = load_library(path.parents[3], thresholds=[])
    messages = [m for r in run_scenarios(lib, select="s547").failed for m in r.messages()]
    assert any(f"rule s547.b: failed to load (it uses s547.b.4), see {path}:{line}" in m
               for m in messages)


def test_head_arguments_have_their_own_messages(tmp_path: Path, pristine: Path) -> None:
    path, errors, line = _broken(tmp_path, pristine, "  ExceptedSmallTransfer <=\n",
                                 "  ExceptedSmallTransfer(creditor, 2) <=\n")
    _one(errors, path, line, "syntax", "a rule head takes at most one argument, a variable for "
                                       "an entity: write 'ExceptedSmallTransfer <= ...'")
    path, errors, line = _broken(tmp_path / "v", pristine, "  ExceptedSmallTransfer <=\n",
                                 "  ExceptedSmallTransfer(Creditor) <=\n")
    _one(errors, path, line, "unsafe-variable", "the head's variable Creditor must range over "
                                                "an entity")


def test_a_calendar_span_compared_with_days(tmp_path: Path, pristine: Path) -> None:
    path, errors, line = _broken(tmp_path, pristine, "Within(days_before_filing, 365)",
                                 "days_before_filing <= 1 year")
    _one(errors, path, line, "type", "1 years is a calendar span, not a number of days")


@pytest.mark.parametrize(("new", "message"), [
    ("days_before_filing <= 90.5 days", "a duration counts whole days: 90.5"),
    ("days_before_filing <= years", "'years' must follow a whole number"),
    ("90 days", "90 days is a duration, not a premise"),
])
def test_bad_durations_have_their_own_messages(tmp_path: Path, pristine: Path, new: str,
                                               message: str) -> None:
    path, errors, line = _broken(tmp_path, pristine, "Within(days_before_filing, 90)", new)
    _one(errors, path, line, "syntax", message)


def test_dates_subtracted_and_a_predicate_compared(tmp_path: Path, pristine: Path) -> None:
    path, errors, line = _broken(tmp_path, pristine, "Within(days_before_filing, 90)",
                                 "filing_date - transfer_date <= 90")
    _one(errors, path, line, "type", "write days_between(transfer_date, filing_date)")
    path, errors, line = _broken(tmp_path / "p", pristine, "Within(days_before_filing, 90)",
                                 "Insider > 3")
    _one(errors, path, line, "type", "Insider is a predicate (true or false)")


def test_citations_not_checked_without_an_index(tmp_path: Path, pristine: Path) -> None:
    path, _, _ = _broken(tmp_path, pristine, SMALL, SMALL.replace("@ c/9", "@ c/9/Z"),
                         fails=None)
    result = CliRunner().invoke(app, ["lint", "--library", str(path.parents[3]),
                                      "--through", "2026-11-22"])
    assert "citations not checked against the statute: no --index" in result.output
