"""Scenario tests beside the rule files: facts in, expected verdicts and missing facts out.

`s547.rules` is tested by `s547.tests.toml` (compare Catala test scopes, OpenFisca YAML
tests)::

    [[test]]
    name  = "worked example: $6,000 to an outside vendor, 100 days before a 2026 filing"
    facts = { transfer_amount = 6000, days_before_filing = 100, creditor_is_insider = false,
              debtor_consumer_debts = false, filing_date = 2026-11-22 }
    expect = { "s547.b" = "false", "s547.c.9" = "true" }

      [test.missing]            # optional: the exact missing facts of an undetermined verdict
      "s547.c.2" = ["ordinary_business_terms", "ordinary_course_debt", "ordinary_course_payment"]

      [test.grounds]            # optional: citations that must be among the deciding premises
      "s547.b" = ["/us/usc/t11/s547/b/4"]

Keys: `name`, `facts`, `as_of` (needed when the facts give no `filing_date`), `expect`
(rule id -> true | false | undetermined), `missing`, `grounds`, and `error` (the facts must be
refused with a message containing this text, e.g. a date given as an amount).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from structfirst.rules.evaluator import evaluate
from structfirst.rules.fact_schema import FactError, validate_facts
from structfirst.rules.library_loader import Library
from structfirst.rules.rule_syntax import Issue
from structfirst.rules.toml_file import read_toml

_TEST_KEYS = {"name", "facts", "as_of", "expect", "missing", "grounds", "error"}
_VERDICTS = {"true", "false", "undetermined"}


@dataclass
class Scenario:
    file: str
    line: int
    name: str
    facts: dict[str, Any]
    as_of: date | None
    expect: dict[str, str]
    missing: dict[str, list[str]] = field(default_factory=dict)
    grounds: dict[str, list[str]] = field(default_factory=dict)
    error: str | None = None

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass
class ScenarioResult:
    scenario: Scenario
    failures: list[str]  # "rule R: expected ..., got ..." messages
    covered: set[tuple[str, int]] = field(default_factory=set)  # (rule id, version) evaluated

    @property
    def passed(self) -> bool:
        return not self.failures

    def messages(self) -> list[str]:
        return [f"{self.scenario.where}: test {self.scenario.name!r}: {m}" for m in self.failures]


@dataclass
class ScenarioReport:
    results: list[ScenarioResult]
    issues: list[Issue]  # malformed test files
    covered: set[tuple[str, int]]

    @property
    def failed(self) -> list[ScenarioResult]:
        return [r for r in self.results if not r.passed]

    @property
    def ok(self) -> bool:
        return not self.failed and not any(i.severity == "error" for i in self.issues)


def scenario_files(library: Library) -> list[Path]:
    return sorted(library.root.rglob("*.tests.toml")) if library.root.is_dir() else []


def read_scenarios(path: Path) -> tuple[list[Scenario], list[Issue]]:
    file = str(path)
    read = read_toml(path, "test-syntax")
    if isinstance(read, Issue):
        return [], [read]
    text, data = read
    lines = [n for n, line in enumerate(text.splitlines(), 1)
             if re.match(r"\s*\[\[\s*test\s*\]\]", line)]
    extra = set(data) - {"test"}
    issues = []
    if extra:
        issues.append(Issue("error", "test-syntax",
                            f"unknown top-level key(s) {', '.join(sorted(extra))}; write [[test]]",
                            file, 1))
    out = []
    for i, entry in enumerate(data.get("test", [])):
        line = lines[i] if i < len(lines) else 1
        problem = _check_entry(entry)
        if problem:
            issues.append(Issue("error", "test-syntax", problem, file, line))
            continue
        out.append(Scenario(
            file, line, str(entry.get("name", f"test {i + 1}")), dict(entry.get("facts", {})),
            entry.get("as_of"), {k: str(v) for k, v in entry.get("expect", {}).items()},
            {k: list(v) for k, v in entry.get("missing", {}).items()},
            {k: list(v) for k, v in entry.get("grounds", {}).items()},
            entry.get("error"),
        ))
    return out, issues


def _check_entry(entry: Any) -> str | None:
    if not isinstance(entry, dict):
        return "a [[test]] must be a table"
    bad = set(entry) - _TEST_KEYS
    if bad:
        return f"unknown key(s) {', '.join(sorted(bad))} (allowed: {', '.join(sorted(_TEST_KEYS))})"
    if "as_of" in entry and not isinstance(entry["as_of"], date):
        return "as_of must be a date (YYYY-MM-DD, unquoted)"
    if not isinstance(entry.get("facts", {}), dict):
        return "facts must be a table"
    expect = entry.get("expect", {})
    if not isinstance(expect, dict) or (not expect and "error" not in entry):
        return "expect must be a table of rule id = \"true\" | \"false\" | \"undetermined\""
    for rule_id, verdict in expect.items():
        if str(verdict) not in _VERDICTS:
            return f"expect.{rule_id}: {verdict!r} is not true, false or undetermined"
    for key in ("missing", "grounds"):
        table = entry.get(key, {})
        if not isinstance(table, dict) or not all(isinstance(v, list) for v in table.values()):
            return f"{key} must be a table of rule id = [names]"
    return None


def run_scenario(library: Library, sc: Scenario) -> ScenarioResult:
    failures: list[str] = []
    covered: set[tuple[str, int]] = set()
    if sc.error is not None:
        try:
            validate_facts(sc.facts, library.vocabulary)
        except FactError as exc:
            if sc.error not in str(exc):
                failures.append(f"facts refused, but the message lacks {sc.error!r}: {exc}")
        else:
            failures.append(f"facts accepted, but a refusal mentioning {sc.error!r} was expected")
        if not sc.expect:
            return ScenarioResult(sc, failures)
    for r in sc.expect:
        if r in library.failed:
            cause = library.failed[r].cause
            root = "" if cause.rule_id == r else f" (it uses {cause.rule_id})"
            failures.append(f"rule {r}: failed to load{root}, see {cause.file}:{cause.line}")
        elif r not in library.by_id:
            failures.append(f"rule {r}: no such rule in the library")
    ids = [r for r in sc.expect if r in library.by_id and r not in library.failed]
    if not ids:
        return ScenarioResult(sc, failures)
    try:
        verdicts = evaluate([library.by_id[r][0] for r in ids], sc.facts, sc.as_of,
                            library=library)
    except (FactError, ValueError) as exc:
        return ScenarioResult(sc, failures + [f"cannot evaluate: {exc}"])
    for v in verdicts:
        if v.version is not None:
            covered.add((v.rule_id, v.version))
        want = sc.expect[v.rule_id]
        where = f"rule {v.rule_id}" + (f" v{v.version}" if v.version is not None else "")
        if str(v.verdict) != want:
            why = _why(v)
            failures.append(f"{where}: expected {want}, got {v.verdict}{why}")
            continue
        if v.rule_id in sc.missing:
            want_missing = sorted(sc.missing[v.rule_id])
            if sorted(v.missing_facts) != want_missing:
                failures.append(f"{where}: expected missing facts {want_missing}, got "
                                f"{sorted(v.missing_facts)}")
        if v.rule_id in sc.grounds:
            cited = {v.premise(g).citation for g in v.grounds}
            lacking = [c for c in sc.grounds[v.rule_id] if c not in cited]
            if lacking:
                failures.append(f"{where}: expected grounds citing {lacking}, the grounds cite "
                                f"{sorted(cited)}")
    return ScenarioResult(sc, failures, covered)


def _why(v: Any) -> str:
    parts = []
    for ref in v.grounds or v.blocked_by:
        p = v.premise(ref)
        parts.append(f"{p.text} = {p.value}" + (f" ({p.detail})" if p.detail else ""))
    if v.notes:
        parts += v.notes[:1]
    return f" [{'; '.join(parts)}]" if parts else ""


def run_scenarios(library: Library, paths: Iterable[Path] | None = None,
                  select: str | None = None) -> ScenarioReport:
    """Run every scenario of `paths` (default: all `*.tests.toml` of the library); `select`
    keeps tests whose name or file contains it."""
    results: list[ScenarioResult] = []
    issues: list[Issue] = []
    covered: set[tuple[str, int]] = set()
    for path in paths if paths is not None else scenario_files(library):
        scenarios, file_issues = read_scenarios(Path(path))
        issues += file_issues
        for sc in scenarios:
            if select and select not in sc.name and select not in sc.file:
                continue
            res = run_scenario(library, sc)
            covered |= res.covered
            results.append(res)
    return ScenarioReport(results, issues, covered)
