"""`structfirst rules lint`: everything wrong with the library that can be found without facts.

Besides the problems found while loading (syntax, Python in a rule file, unknown predicates,
facts or parameters, unsafe variables, wrong types, dependency cycles, bad parameter files,
conflicting parameter values), lint checks:

- the versions of a rule: duplicate numbers, different predicates, overlapping or gapped
  effective periods;
- one predicate defined by two rules in force at the same time;
- each predicate a rule version uses has a rule in force over the whole version's period;
- each parameter a rule version uses has a value over the whole period (up to `through`);
- each citation in `cites` is cited by some premise (a deleted premise leaves its clause
  uncited), and premises cite only clauses listed in `cites`;
- with an index: every citation names a provision of the ingested snapshot;
- scenario tests: malformed files, tests naming unknown rules, rule versions no test covers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date
from pathlib import Path

from structfirst.rules.library_loader import Library, Rule
from structfirst.rules.rule_syntax import Issue
from structfirst.rules.scenario_tests import read_scenarios, scenario_files


def _issue(rule: Rule, code: str, message: str, severity: str = "error",
           line: int | None = None) -> Issue:
    return Issue(severity, code, message, rule.file, line or rule.line, rule.id)


def check_versions(library: Library) -> list[Issue]:
    out = []
    for versions in library.by_id.values():
        numbers: dict[int, Rule] = {}
        for r in versions:
            if r.version in numbers:
                out.append(_issue(r, "version", f"version {r.version} is given twice (also "
                                  f"{numbers[r.version].file}:{numbers[r.version].line})"))
            numbers[r.version] = r
        heads = sorted({r.head for r in versions})
        if len(heads) > 1:
            out.append(_issue(versions[-1], "version",
                              f"the versions define different predicates ({', '.join(heads)}); "
                              "a new predicate needs a new rule id"))
        for a, b in zip(versions, versions[1:], strict=False):
            a_end = a.effective_to
            if a_end is None or a_end > b.effective_from:
                out.append(_issue(b, "overlap", f"v{b.version} (from {b.effective_from}) overlaps "
                                  f"v{a.version} ({a.effective_from} to {a_end or 'open end'})"))
            elif a_end < b.effective_from:
                out.append(_issue(b, "gap", f"no version in force from {a_end} to "
                                  f"{b.effective_from} (between v{a.version} and v{b.version})"))
    for head, rules in library.by_head.items():
        ids = {r.id for r in rules}
        if len(ids) < 2:
            continue
        for a in rules:
            for b in rules:
                if a.id < b.id and _overlap(a, b):
                    out.append(_issue(b, "overlap", f"{head} is also defined by rule {a.id} "
                                      f"({a.file}:{a.line}) in the same period"))
    return out


def _overlap(a: Rule, b: Rule) -> bool:
    a_end, b_end = a.effective_to or date.max, b.effective_to or date.max
    return a.effective_from < b_end and b.effective_from < a_end


def _uncovered(periods: Iterable[tuple[date, date | None]], start: date,
               end: date) -> list[tuple[date, date]]:
    gaps, cursor = [], start
    for s, e in sorted(periods):
        if cursor >= end:
            break
        e = e or date.max
        if e <= cursor:
            continue
        if s > cursor:
            gaps.append((cursor, min(s, end)))
        cursor = max(cursor, e)
    if cursor < end:
        gaps.append((cursor, end))
    return gaps


def check_coverage(library: Library, through: date) -> list[Issue]:
    """Predicates and parameters a rule version needs, over the version's whole period."""
    out = []
    failed_heads = {f.head for f in library.failed.values()}
    for r in library.rules:
        end = min(r.effective_to or date.max, max(through, r.effective_from))
        if end <= r.effective_from:
            continue
        for pred in sorted(r.preds - failed_heads):  # a failed rule is reported once, as such
            periods = [(d.effective_from, d.effective_to) for d in library.by_head.get(pred, [])]
            for a, b in _uncovered(periods, r.effective_from, end):
                out.append(_issue(r, "dependency-gap",
                                  f"v{r.version} uses {pred}, but no rule defining it is in force "
                                  f"from {a} to {b}"))
        for name in sorted(r.params):
            for a, b in library.parameters.coverage_gaps(name, r.effective_from, end):
                out.append(_issue(r, "param-gap",
                                  f"v{r.version} uses parameter {name}, which has no value from "
                                  f"{a} to {b}"))
    used = {p for r in library.rules for p in r.params}
    for f in library.failed.values():  # a rule left out still counts as using its parameters
        used |= set(re.findall(r"\b[Pp]aram\(\s*(\w+)", f.source))
    for name in library.parameters.names():
        if name not in used:
            spec = library.parameters.series[name].spec
            out.append(Issue("warning", "param-unused", f"parameter {name} is used by no rule",
                             spec.file, spec.line))
    return out


def check_citations(library: Library, known_ids: set[str] | None = None) -> list[Issue]:
    out = []
    for r in library.rules:
        cited = {p.cite for c in r.clauses for p in c.premises}
        listed = set(r.cites)
        for cite in r.cites[1:]:
            if cite not in cited:
                out.append(_issue(r, "cite-unused",
                                  f"v{r.version} cites {cite}, but no premise comes from it "
                                  "(was a premise deleted?)"))
        for c in r.clauses:
            for p in c.premises:
                if not any(p.cite == c or p.cite.startswith(c + "/") for c in listed):
                    out.append(_issue(r, "cite-unlisted", f"premise {p.text!r} cites {p.cite}, "
                                      "which is not in the rule's 'cites'", "warning",
                                      p.source.line))
        if known_ids is not None:
            for cite in r.all_citations():
                if cite not in known_ids:
                    out.append(_issue(r, "cite-missing",
                                      f"{cite} is not a provision of the ingested snapshot"))
    return out


def snapshot_node_ids(index: Path | str) -> set[str]:
    from structfirst.ingest.duckdb_store import connect_readonly
    from structfirst.ingest.snapshot import open_snapshot

    snap = open_snapshot(Path(index))
    with connect_readonly(snap.store_path) as con:
        return {row[0] for row in con.execute("SELECT DISTINCT node_id FROM artifacts").fetchall()}


def check_tests(library: Library) -> list[Issue]:
    """Scenario files are well formed, name real rules, and cover every rule version."""
    out: list[Issue] = []
    covered: set[tuple[str, int]] = set()
    for path in scenario_files(library):
        scenarios, issues = read_scenarios(path)
        out += issues
        for sc in scenarios:
            for rule_id in sc.expect:
                versions = library.versions(rule_id)
                if not versions and rule_id not in library.failed:
                    out.append(Issue("error", "test-unknown-rule",
                                     f"test {sc.name!r} expects a verdict of {rule_id}, which is "
                                     "not in the library", sc.file, sc.line))
                    continue
                day = _scenario_day(sc.facts, sc.as_of)
                for v in versions:
                    if day is not None and v.in_force(day):
                        covered.add((rule_id, v.version))
    for r in library.rules:
        if (r.id, r.version) not in covered:
            out.append(_issue(r, "untested", f"v{r.version} ({r.effective_from} to "
                              f"{r.effective_to or 'open end'}) has no scenario test"))
    return out


def _scenario_day(facts: dict[str, object], as_of: date | None) -> date | None:
    filing = facts.get("filing_date")
    if isinstance(filing, date):
        return filing
    if isinstance(filing, str):
        try:
            return date.fromisoformat(filing)
        except ValueError:
            return None
    return as_of


def lint_library(library: Library, *, index: Path | str | None = None,
                 through: date | None = None, tests: bool = True) -> list[Issue]:
    """All problems of the library, loading problems first; `through` bounds the check of
    open-ended rules against their parameters (default: today)."""
    through = through or date.today()
    issues = list(library.issues)
    issues += check_versions(library)
    issues += check_coverage(library, through)
    known = None
    if index is not None:
        try:
            known = snapshot_node_ids(index)
        except Exception as exc:  # a missing or unreadable snapshot is reported, not raised
            issues.append(Issue("error", "index", f"cannot read provisions from {index}: {exc}"))
    issues += check_citations(library, known)
    if index is None:
        issues.append(Issue("note", "cite-unchecked", "citations not checked against the "
                            "statute: no --index (give --index DIR to check that every cited "
                            "clause exists)"))
    if tests:
        issues += check_tests(library)
    return issues
