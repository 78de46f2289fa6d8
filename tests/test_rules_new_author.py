"""A rule author's path without Python: a new library directory (fact declarations, a rule
over entities with a date difference in years, a sum, scenario tests) is linted, tested and
explained by `structfirst rules`, and `structfirst ask` answers with it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from structfirst.cli.main import app
from structfirst.rules.library_loader import LIBRARY_ENV
from typer.testing import CliRunner

pytest_plugins = ["engine_fixtures"]

NEW_LIBRARY = Path(__file__).parent / "rules_new_author"  # as an author would write it


@pytest.fixture()
def library(tmp_path: Path) -> Path:
    """The new library directory, added beside (not inside) the packaged one."""
    shutil.copytree(NEW_LIBRARY, tmp_path / "newlib")
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
