"""`structfirst eval`: the ablation runner from the command line."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

err = Console(stderr=True)
out = Console()


def _fail(message: str) -> None:
    err.print(f"[red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code=1)


def eval_command(
    index: Annotated[Path, typer.Option("--index", help="Index directory built by `ingest`.")],
    queries: Annotated[Path, typer.Option("--queries", help="Labeled query set (JSONL).")],
    configs: Annotated[
        str, typer.Option("--configs", help="Comma-separated configuration names, e.g. H0,H1,H2.")
    ],
    out_dir: Annotated[
        Path, typer.Option("--out", help="Folder for runs/, metrics.json and report.md.")
    ],
    k: Annotated[int, typer.Option("--k", help="Candidates kept per query.")] = 100,
    bootstrap: Annotated[int, typer.Option("--bootstrap", help="Bootstrap resamples.")] = 1000,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the bootstrap and the tests.")] = 0,
    no_progress: Annotated[bool, typer.Option("--no-progress", help="No progress bar.")] = False,
    oracle_filters: Annotated[
        bool,
        typer.Option(
            "--oracle-filters",
            help="Also hand the engine each query's gold jurisdiction (not what a user gives; "
            "for comparison with the default protocol only).",
        ),
    ] = False,
    workers: Annotated[
        int, typer.Option("--workers", help="Engines in worker processes (1: this one).")
    ] = 1,
    ray: Annotated[
        str | None,
        typer.Option("--ray", help="Run the workers as Ray actors: a cluster address or 'local'."),
    ] = None,
    models: Annotated[
        Path | None,
        typer.Option("--models", help="Models folder of the learned steps (default: models/)."),
    ] = None,
) -> None:
    """Run every query through each configuration and report the metrics with CIs."""
    from structfirst.engine.engine import MODELS_DIR
    from structfirst.eval.ablation import AblationError, run_ablation
    from structfirst.eval.batch_runner import BatchRunner
    from structfirst.eval.report import HEADLINE, SHORT, headline_rows, write_report

    if workers < 1:
        _fail(f"--workers must be positive (got {workers})")
    runner = (BatchRunner(index, workers, ray, models_dir=models or MODELS_DIR)
              if workers > 1 or ray else None)
    try:
        result = run_ablation(
            index, queries, configs.split(","), out_dir, k=k, n_boot=bootstrap, seed=seed,
            progress=not no_progress, console=err, oracle_filters=oracle_filters, runner=runner,
            models_dir=models or MODELS_DIR,
        )
    except AblationError as exc:
        _fail(str(exc))
        return
    finally:
        if runner is not None:
            runner.close()
    json_path, md_path = write_report(result, out_dir)
    table = Table(title=f"snapshot {result['header']['snapshot_id']}")
    table.add_column("type")
    table.add_column("config")
    for col in HEADLINE:
        table.add_column(SHORT.get(col, col), justify="right")
    for row in headline_rows(result):
        table.add_row(*row)
    out.print(table)
    h = result["header"]
    out.print(f"protocol: {h['protocol']['name']} ({h['protocol']['description']})")
    out.print(f"{h['n_queries']} queries, {h['run_seconds']} s running, {h['eval_seconds']} s "
              f"metrics; wrote {json_path} and {md_path}")


def register(app: typer.Typer) -> None:
    """Add the `eval` command to `app`."""
    app.command("eval")(eval_command)
