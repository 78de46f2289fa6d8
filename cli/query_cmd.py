"""`structfirst ask` and `structfirst search`: the query path from the command line."""

from __future__ import annotations

import csv
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout
from datetime import date
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import track
from rich.table import Table
from structfirst.engine.engine import Engine
from structfirst.engine.evidence import EvidenceBundle
from structfirst.rules.parameters import ThresholdSourceError

WORKED_EXAMPLES = (
    "A non-consumer debtor paid a $6,000 invoice to an outside vendor 100 days before filing. "
    "Can the trustee avoid this transfer under § 547?",
    "As of policy issuance on June 1, 2026, what is the Iowa statutory minimum bodily injury "
    "liability per person for a private passenger auto?",
    "What was the §547(c)(9) threshold for a case filed in June 2011?",
    "What does 'insider' mean under the Bankruptcy Code if the debtor is a corporation?",
)
IndexOption = Annotated[Path, typer.Option("--index", help="Index directory built by `ingest`.")]
console = Console()
err = Console(stderr=True)


def _fail(message: str) -> None:
    err.print(f"[red]error:[/red] {message}")
    raise typer.Exit(1)


def _open(index: Path) -> Engine:
    try:
        return Engine.open(index)
    except (FileNotFoundError, ValueError) as exc:
        _fail(str(exc))
        raise  # unreachable: _fail exits


@contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Send whatever is written to stdout meanwhile (colbert-ai's loading lines, Java's
    prints: Python's `sys.stdout` and file descriptor 1) to stderr, so that the command's own
    stdout carries only its result."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        with redirect_stdout(sys.stderr):
            yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def _fact(fact: dict) -> str:
    """One fact of the parsed question, with where it came from: the words a pattern read,
    derived from other facts, or the learned reader and its probability."""
    if fact.get("confidence") is not None:
        how = f"learned, p {fact['confidence']:.2f}"
    else:
        how = "derived" if fact["derived"] else repr(fact["text"])
    return f"{fact['name']} = {fact['value']} ({how})"


def print_bundle(bundle: EvidenceBundle, limit: int = 8) -> None:
    """A readable rendering of an evidence bundle."""
    pq = bundle.parsed_query
    console.rule(f"[bold]{bundle.question}")
    console.print(
        f"as of {pq['as_of']['value']} ({pq['as_of']['how']}) · jurisdiction "
        f"{pq['jurisdiction']['value']} ({pq['jurisdiction']['how']}) · type {pq['query_type']} · "
        f"config {bundle.configuration} · snapshot {bundle.snapshot_id}"
    )
    if pq["facts"]:
        console.print("facts: " + "; ".join(escape(_fact(f)) for f in pq["facts"]),
                      highlight=False)
    for verdict in bundle.verdicts:
        if verdict.get("kind") == "parameter":
            value = verdict["value"]
            shown = (
                f"{value['value']:,} {value.get('from')} → {value.get('to') or 'open'} "
                f"({value.get('source')})"
                if verdict["verdict"] == "value"
                else f"no value: {value.get('no_value')}"
            )
            console.print(f"[bold]{verdict['rule']}[/bold] = {shown}")
            continue
        missing = verdict.get("missing_facts") or []
        console.print(
            f"[bold]{verdict['rule']}[/bold] = {verdict['verdict']}  {verdict.get('title', '')}"
            + (f"  (missing: {', '.join(missing)})" if missing else "")
        )
        for premise in verdict.get("premises", []):
            detail = f" [{premise['detail']}]" if premise.get("detail") else ""
            console.print(
                f"    {premise['value']:>12}  {premise['text']}{detail}  <{premise['citation']}>"
            )
    table = Table(show_lines=False)
    for col in ("#", "citation", "version", "planes", "path / rule"):
        table.add_column(col)
    for cand in bundle.candidates[:limit]:
        interval = f"{cand.effective_from or '…'} → {cand.effective_to or 'now'}"
        planes = " ".join(f"{p}:{r}" for p, r in cand.plane_ranks.items())
        extra = cand.graph_paths[0] if cand.graph_paths else ""
        if cand.rule_support:
            extra = (extra + " " if extra else "") + ", ".join(
                f"{s['rule']}={s['verdict']}" for s in cand.rule_support
            )
        table.add_row(str(cand.rank), cand.citation or cand.node_id, interval, planes, extra)
    console.print(table)
    for cand in bundle.definitions:
        console.print(f"  definition: {cand.citation}  via {cand.graph_paths[0]}")
    verdict = "ANSWER" if bundle.decision.answer else "ABSTAIN"
    console.print(f"[bold]{verdict}[/bold]: {bundle.decision.reason}")
    if bundle.decision.confidence is not None:
        console.print(f"confidence {bundle.decision.confidence:.2f} (theta "
                      f"{bundle.decision.threshold:.2f}; {bundle.decision.guarantee})")


def register(app: typer.Typer) -> None:
    @app.command()
    def ask(
        question: str,
        index: IndexOption,
        as_of: Annotated[
            str | None, typer.Option("--as-of", help="ISO date, e.g. 2011-06-15.")
        ] = None,
        jurisdiction: Annotated[str | None, typer.Option("--jurisdiction")] = None,
        config: Annotated[
            str, typer.Option("--config", help="Named configuration (H0..H4, full).")
        ] = "full",
        as_json: Annotated[bool, typer.Option("--json", help="Print the bundle as JSON.")] = False,
    ) -> None:
        """Answer one question with an evidence bundle."""
        try:
            day = date.fromisoformat(as_of) if as_of else None
        except ValueError as exc:
            _fail(f"--as-of {as_of!r} is not an ISO date (YYYY-MM-DD): {exc}")
        with stdout_to_stderr():
            engine = _open(index)
            try:
                bundle = engine.ask(question, as_of=day, jurisdiction=jurisdiction, config=config)
            except (ValueError, FileNotFoundError, ThresholdSourceError) as exc:
                _fail(str(exc))
        if as_json:
            print(bundle.to_json())
        else:
            print_bundle(bundle)
            for warning in bundle.decision.warnings:
                err.print(f"[yellow]warning:[/yellow] {warning}")

    @app.command()
    def demo(
        index: IndexOption,
        config: Annotated[str, typer.Option("--config")] = "full",
    ) -> None:
        """Answer the reference's worked examples (§547, Iowa §321A.1) and a version question."""
        engine = _open(index)
        for question in WORKED_EXAMPLES:
            try:
                print_bundle(engine.ask(question, config=config))
            except ValueError as exc:
                _fail(str(exc))

    @app.command()
    def search(
        index: IndexOption,
        topics: Annotated[Path, typer.Option("--topics", help="TSV: qid<TAB>question[<TAB>as_of]")],
        run: Annotated[Path, typer.Option("--run", help="TREC run file to write.")],
        config: Annotated[str, typer.Option("--config")] = "full",
        k: Annotated[int, typer.Option("--k")] = 100,
        as_of: Annotated[
            str | None,
            typer.Option("--as-of", help="ISO date for topics that give none (default: today)."),
        ] = None,
        jurisdiction: Annotated[
            str | None,
            typer.Option("--jurisdiction", help="Jurisdiction of every topic (default: each "
                         "question's own, else the corpus's)."),
        ] = None,
        workers: Annotated[
            int, typer.Option("--workers", help="Engines in worker processes (1: this one).")
        ] = 1,
        ray: Annotated[
            str | None,
            typer.Option("--ray", help="Run the workers as Ray actors: a cluster address or "
                         "'local'."),
        ] = None,
    ) -> None:
        """Batch-run a topics file into a TREC run file (docids are version ids)."""
        from structfirst.eval.batch_runner import AskJob, BatchRunner, chunks

        try:
            default_day = date.fromisoformat(as_of) if as_of else None
        except ValueError as exc:
            _fail(f"--as-of {as_of!r} is not an ISO date (YYYY-MM-DD): {exc}")
        engine = _open(index)
        rows = _read_topics(topics)
        jobs = [AskJob(f"{topics}: query {qid}", question, day or default_day, jurisdiction,
                       config, k) for qid, question, day in rows]
        run.parent.mkdir(parents=True, exist_ok=True)
        if workers < 1:
            _fail(f"--workers must be positive (got {workers})")
        runner = BatchRunner(index, workers, ray, engine=engine if workers == 1 else None)
        with run.open("w", encoding="utf-8") as out, runner:
            done = iter(rows)
            n_chunks = len(chunks(jobs, runner.chunk))
            try:
                for bundles in track(runner.iter_chunks(jobs), total=n_chunks,
                                     description=f"searching ({config}, {runner.label})"):
                    for bundle in bundles:
                        qid = next(done)[0]
                        n = len(bundle.candidates)
                        for cand in bundle.candidates:  # score k+1-rank keeps the order
                            out.write(f"{qid} Q0 {cand.version_id} {cand.rank} "
                                      f"{n + 1 - cand.rank} {config}\n")
            except ValueError as exc:
                _fail(str(exc))
        console.print(f"wrote {run} ({len(rows)} queries)")


def _read_topics(path: Path) -> list[tuple[str, str, date | None]]:
    if not path.is_file():
        _fail(f"{path}: no such topics file")
    rows = []
    with path.open(encoding="utf-8", newline="") as fh:
        for lineno, row in enumerate(csv.reader(fh, delimiter="\t"), start=1):
            if not row or not "".join(row).strip():
                continue
            if len(row) not in (2, 3):
                _fail(
                    f"{path}:{lineno}: expected qid<TAB>question[<TAB>as_of], got {len(row)} fields"
                )
            try:
                as_of = date.fromisoformat(row[2]) if len(row) == 3 and row[2] else None
            except ValueError:
                _fail(f"{path}:{lineno}: as_of {row[2]!r} is not an ISO date")
            rows.append((row[0], row[1], as_of))
    if not rows:
        _fail(f"{path}: no topics")
    return rows
