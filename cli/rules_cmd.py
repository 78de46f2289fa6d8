"""`structfirst rules ...`: the rule authors' tools (lint, test, explain, params, facts)."""

from __future__ import annotations

import json
import tomllib
from datetime import date
from pathlib import Path
from typing import Annotated, Any

import typer
from structfirst.rules.evaluator import evaluate
from structfirst.rules.fact_schema import FactError, FactType
from structfirst.rules.library_loader import LIBRARY_ROOT, Library, load_library
from structfirst.rules.lint import lint_library
from structfirst.rules.parameters import ParamValue, ThresholdSourceError
from structfirst.rules.scenario_tests import run_scenarios
from structfirst.rules.verdict import Verdict, jsonable

app = typer.Typer(no_args_is_help=True)

LibraryOpt = Annotated[Path, typer.Option("--library", help="Rule library directory.")]
IndexOpt = Annotated[
    Path | None,
    typer.Option(
        "--index",
        help="Index directory: thresholds from its snapshot's facts table, and (lint) "
        "citations checked against its provisions.",
    ),
]


def _load(library: Path, index: Path | None, thresholds: list[Any] | None = None) -> Library:
    if not library.is_dir():
        typer.echo(f"error: rule library not found at {library}", err=True)
        raise typer.Exit(2)
    try:
        return load_library(library, index=index, thresholds=thresholds)
    except ThresholdSourceError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None


def _date(text: str | None, option: str) -> date | None:
    if text is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        typer.echo(f"error: {option}: expected a date YYYY-MM-DD, got {text!r}", err=True)
        raise typer.Exit(2) from None


@app.command()
def lint(
    library: LibraryOpt = LIBRARY_ROOT,
    index: IndexOpt = None,
    through: Annotated[
        str | None,
        typer.Option(help="Check open-ended rules' parameters up to this date (default: today)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the issues as JSON.")] = False,
) -> None:
    """Check the library: syntax, predicates, variables, periods, parameters, citations, tests."""
    lib = _load(library, index)
    issues = lint_library(lib, index=index, through=_date(through, "--through"))
    errors = [i for i in issues if i.severity == "error"]
    if as_json:
        typer.echo(json.dumps([i.to_dict() for i in issues], indent=2))
    else:
        for issue in issues:
            typer.echo(str(issue))
        typer.echo(
            f"{len(lib.rules)} rule versions in {len(lib.rule_files)} files, "
            f"{len(lib.parameters.names())} parameters (ingested thresholds: "
            f"{lib.parameters.ingested_source}); {len(errors)} errors, "
            f"{sum(i.severity == 'warning' for i in issues)} warnings"
        )
    if errors:
        raise typer.Exit(1)


@app.command("test")
def test_cmd(
    library: LibraryOpt = LIBRARY_ROOT,
    index: IndexOpt = None,
    select: Annotated[
        str | None, typer.Option("-k", help="Only tests whose name or file contains this text.")
    ] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List every test.")] = False,
) -> None:
    """Run the scenario tests beside each rule file (`*.tests.toml`)."""
    lib = _load(library, index)
    for issue in lib.errors():
        typer.echo(str(issue))
    report = run_scenarios(lib, select=select)
    for issue in report.issues:
        typer.echo(str(issue))
    for res in report.results:
        if verbose or not res.passed:
            status = "PASS" if res.passed else "FAIL"
            typer.echo(f"{status} {res.scenario.where}: {res.scenario.name}")
        for message in res.messages():
            typer.echo(f"  {message}")
    failed = len(report.failed)
    typer.echo(
        f"{len(report.results) - failed} passed, {failed} failed"
        f" ({len(lib.errors())} library errors, ingested thresholds: "
        f"{lib.parameters.ingested_source})"
    )
    if failed or not report.ok or lib.errors():
        raise typer.Exit(1)


def _read_facts(facts: str | None, fact: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if facts:
        path = Path(facts)
        try:
            if path.suffix in (".json", ".toml") and path.is_file():
                text = path.read_text(encoding="utf-8")
                data = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
            else:
                data = json.loads(facts)
        except (OSError, ValueError) as exc:
            typer.echo(f"error: --facts: {exc}", err=True)
            raise typer.Exit(2) from None
        if not isinstance(data, dict):
            typer.echo("error: --facts must be a JSON object (or a .json/.toml file)", err=True)
            raise typer.Exit(2)
        out.update(data)
    for item in fact:
        name, sep, value = item.partition("=")
        if not sep:
            typer.echo(f"error: --fact {item!r}: expected name=value", err=True)
            raise typer.Exit(2)
        out[name.strip()] = value.strip()
    return out


def _print_verdict(v: Verdict, indent: str = "") -> None:
    where = f"{v.file}:{v.line}" if v.file else ""
    version = f" v{v.version}" if v.version is not None else ""
    value = f" = {jsonable(v.value)}" if v.value is not None else ""
    typer.echo(
        f"{indent}{v.rule_id}{version} {v.head}{value}: {v.verdict}"
        f"{'' if v.exact else ' (not exact)'}  as of {v.as_of} ({v.as_of_source})  {where}"
    )
    if v.title:
        typer.echo(f"{indent}  {v.title}")
    marks = {"true": "+", "false": "-", "undetermined": "?"}
    for clause in v.clauses:
        typer.echo(
            f"{indent}  clause {clause['clause']} (line {clause['line']}): {clause['value']}"
        )
        for p in v.premises:
            if p.clause != clause["clause"]:
                continue
            ground = ""
            if p.rule is not None:
                ground = f"rule {p.rule.get('id')} v{p.rule.get('version', '?')}"
            elif p.facts:
                ground = ", ".join(
                    f"{k} = {'unknown' if val is None else val}" for k, val in p.facts.items()
                )
            if p.parameters:
                ground += ("; " if ground else "") + ", ".join(
                    f"{k} = {rec.get('value', 'no value')} "
                    f"({rec.get('source', rec.get('no_value'))})"
                    for k, rec in p.parameters.items()
                )
            detail = f" [{p.detail}]" if p.detail else ""
            typer.echo(
                f"{indent}    {marks[str(p.value)]} {p.text}{detail}  {p.citation}"
                f"{'  <- ' + ground if ground else ''}"
            )
    if v.grounds:
        typer.echo(f"{indent}  grounds: {', '.join(v.grounds)}")
    if v.blocked_by:
        typer.echo(f"{indent}  blocked by: {', '.join(v.blocked_by)}")
    if v.missing_facts:
        typer.echo(f"{indent}  missing facts: {', '.join(v.missing_facts)}")
    if v.missing_parameters:
        typer.echo(f"{indent}  parameters without value: {', '.join(v.missing_parameters)}")
    for note in v.notes:
        typer.echo(f"{indent}  note: {note}")


@app.command()
def explain(
    rule: Annotated[str, typer.Argument(help="Rule id (s547.b) or predicate (Avoidable).")],
    facts: Annotated[
        str | None, typer.Option(help="Facts as a JSON object, or a .json/.toml file.")
    ] = None,
    fact: Annotated[
        list[str] | None, typer.Option("--fact", help="One fact as name=value (repeatable).")
    ] = None,
    as_of: Annotated[
        str | None,
        typer.Option(
            "--as-of", help="As-of date when the facts give no filing_date (default: today)."
        ),
    ] = None,
    library: LibraryOpt = LIBRARY_ROOT,
    index: IndexOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the verdict as JSON.")] = False,
) -> None:
    """Evaluate one rule for the given facts and print the verdict with its trace."""
    lib = _load(library, index)
    rule_id = rule if rule in lib.by_id else next((r.id for r in lib.rules if r.head == rule), None)
    if rule_id is None:
        typer.echo(f"error: no rule or predicate {rule!r} in {library}", err=True)
        raise typer.Exit(2)
    values = _read_facts(facts, fact or [])
    try:
        (verdict,) = evaluate(
            lib.versions(rule_id)[:1], values, _date(as_of, "--as-of") or date.today(), library=lib
        )
    except FactError as exc:
        for problem in exc.problems:
            typer.echo(f"error: fact {problem}", err=True)
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(json.dumps(verdict.to_dict(), indent=2))
        return
    _print_verdict(verdict)
    for sub in verdict.supporting.values():
        typer.echo("")
        _print_verdict(sub, indent="  ")


@app.command()
def params(
    name: Annotated[
        str | None, typer.Argument(help="A parameter (default: list them all).")
    ] = None,
    as_of: Annotated[
        str | None, typer.Option("--as-of", help="Look the value up on this date.")
    ] = None,
    library: LibraryOpt = LIBRARY_ROOT,
    index: IndexOpt = None,
) -> None:
    """Show the dated parameter series (merged library and ingested values)."""
    lib = _load(library, index)
    names = [name] if name else lib.parameters.names()
    for n in names:
        if n not in lib.parameters:
            typer.echo(f"error: no parameter {n!r}", err=True)
            raise typer.Exit(2)
        series = lib.parameters.series[n]
        typer.echo(f"{n}: {series.spec.title} [{series.spec.provision}]")
        day = _date(as_of, "--as-of")
        if day is not None:
            got = lib.parameters.lookup(n, day)
            shown = (
                f"{got.value} ({got.source})"
                if isinstance(got, ParamValue)
                else f"no value ({got.reason})"
            )
            typer.echo(f"  on {day}: {shown}")
            continue
        for v in series.values:
            end = str(v.end) if v.end else ""
            typer.echo(f"  {v.start} .. {end:10}  {v.value:>12}  {v.origin:8}  {v.source}")


@app.command("facts")
def facts_cmd(library: LibraryOpt = LIBRARY_ROOT) -> None:
    """List the facts the library declares (its facts.toml files): name, type, unit, meaning,
    source clause, and an enumeration's values in full; then the shorthand it declares."""
    lib = _load_facts(library)
    for spec in lib.vocabulary.values():
        unit = f" [{spec.unit}]" if spec.unit else ""
        typer.echo(f"{spec.name}: {spec.type.value}{unit} - {spec.description}")
        where = f"{lib.relative(spec.file)}:{spec.line}" if spec.line else lib.relative(spec.file)
        typer.echo(f"  source {spec.source or '-'}  declared {where}")
        if spec.type is FactType.ENUM:
            for value in spec.values:
                typer.echo(f"  - {value}: {spec.value_meanings.get(value, '')}")
        for d in spec.derived:
            how = (f"days between {d.days_between[0]} and {d.days_between[1]}" if d.days_between
                   else f"{d.value} when {d.conditions()}")
            typer.echo(f"  derived: {how}")
        if spec.assume is not None:
            typer.echo(f"  assumed {spec.assume} when not stated (closed world)")
    if lib.vocabulary.shorthand:
        typer.echo("shorthand a question may use (read as the words):")
        by_words: dict[str, list[str]] = {}
        for abbreviation, words in lib.vocabulary.shorthand.items():
            by_words.setdefault(words, []).append(abbreviation)
        for words, abbreviations in by_words.items():
            typer.echo(f"  {words}: {', '.join(abbreviations)}")


def _load_facts(library: Path) -> Library:
    lib = _load(library, None, thresholds=[])
    errors = [i for i in lib.issues if i.code.startswith("fact")]
    for issue in errors:
        typer.echo(str(issue), err=True)
    if errors:
        raise typer.Exit(1)
    return lib
