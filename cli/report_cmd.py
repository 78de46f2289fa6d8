"""`structfirst report`: the risk-coverage report (HTML and PNG) of an evaluation folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

err = Console(stderr=True)
out = Console()


def report_command(
    eval_dir: Annotated[Path, typer.Option("--eval", help="Folder written by `structfirst eval`.")],
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for report.html and the PNGs.")],
) -> None:
    """Risk-coverage curves, reliability diagram, nDCG per type, calibration table."""
    from structfirst.calibration.report import ReportError, write_risk_report
    from structfirst.eval.query_set import QuerySetError

    try:
        page = write_risk_report(eval_dir, out_dir)
    except (ReportError, QuerySetError) as exc:
        err.print(f"[red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(code=1) from None
    out.print(f"wrote {page}")


def register(app: typer.Typer) -> None:
    """Add the `report` command to `app`."""
    app.command("report")(report_command)
