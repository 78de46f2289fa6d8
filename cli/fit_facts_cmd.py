"""`structfirst fit-facts`: fit the learned fact reader on question sets with gold facts."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

err = Console(stderr=True)
out = Console()


def fit_facts_command(
    sets: Annotated[list[Path] | None, typer.Option(
        "--sets", help="Question sets with gold facts: TOML verdict sets or JSONL splits "
        "(default: every data/queries/verdict_*.toml and train.jsonl).")] = None,
    out_dir: Annotated[Path, typer.Option("--out", help="Folder to write.")] = Path(
        "models/fact-reader"),
    threshold: Annotated[float | None, typer.Option(
        "--threshold", help="The probability a learned fact needs (default: chosen by leaving "
        "one set out at a time).")] = None,
) -> None:
    """Fit a TF-IDF logistic reader per declared fact; save it with its record."""
    from structfirst.engine.learned_facts import FactReaderError
    from structfirst.eval.fact_reader_cv import (
        THRESHOLDS,
        default_sets,
        fit_fact_reader,
        print_table,
    )
    from structfirst.eval.query_set import QuerySetError

    try:
        record = fit_fact_reader(sets or default_sets(), out_dir, threshold)
    except (FactReaderError, QuerySetError, FileNotFoundError) as exc:
        err.print(f"[red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(code=1) from None
    for entry in record["trained_on"]:
        for refused in entry.get("refused", ()):
            out.print(f"not fitted on {refused['qid']} ({entry['set']}): the parser refuses it: "
                      f"{escape(refused['why'])}", highlight=False, soft_wrap=True)
    if record["leave_one_set_out"]:
        print_table(record["leave_one_set_out"], THRESHOLDS, record["leave_one_set_out_by_rule"])
    out.print(f"{len(record['facts'])} facts, threshold {record['params']['threshold']} "
              f"-> {out_dir}")


def register(app: typer.Typer) -> None:
    """Add the `fit-facts` command to `app`."""
    app.command("fit-facts")(fit_facts_command)
