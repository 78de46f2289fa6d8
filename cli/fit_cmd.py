"""`structfirst fit`: fit the learned steps of configurations (fusion model, domain reranker)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

err = Console(stderr=True)
out = Console()
TOP_WEIGHTS = 12


def fit_command(
    index: Annotated[Path, typer.Option("--index", help="Index directory built by `ingest`.")],
    train: Annotated[list[Path], typer.Option(
        "--train", help="Training queries (JSONL); give it again to train on several files.")],
    dev: Annotated[Path, typer.Option(
        "--dev", help="Dev queries; the calibrators' inputs and thresholds are chosen on them "
        "(JSONL).")],
    out_dir: Annotated[Path, typer.Option("--out", help="Models folder to write.")] = Path(
        "models"
    ),
    configs: Annotated[
        str, typer.Option("--configs", help="Configurations whose learned steps to fit "
                          "(default: every configuration with a learned step, but those "
                          "whose trained cross-encoder is not in --out).")
    ] = "",
    score_calibrators: Annotated[
        str,
        typer.Option(
            "--score-calibrators",
            help="Uncalibrated configurations whose top fused score gets an isotonic "
            "calibrator (their curves then compare with the calibrated ones); '' for none.",
        ),
    ] = "H0,H4,H5",
) -> None:
    """Fit on train (calibration chosen on dev) and save each model with its schema and record."""
    from structfirst.engine.configuration import load_configurations
    from structfirst.eval.ablation import AblationError, select_configurations
    from structfirst.fusion.models import ModelError
    from structfirst.fusion.training import FitError, fit_configurations

    try:
        if configs:
            selected = select_configurations(configs.split(","))
        else:  # every learned configuration whose trained f_theta, if it has one, is here
            learned = [c for c in load_configurations().values() if c.fusion != "rrf"]
            selected = [c for c in learned
                        if not c.neural_model or (out_dir / c.neural_model).is_dir()]
            for c in learned:
                if c not in selected:
                    err.print(f"[yellow]skipped {c.name}:[/] no {out_dir / c.neural_model} "
                              "(train it with `structfirst adapt-reranker`)")
        by_score = select_configurations(score_calibrators.split(",")) if score_calibrators else []
        saved = fit_configurations(index, train, dev, out_dir, selected, by_score)
    except (AblationError, FitError, ModelError, FileNotFoundError) as exc:
        err.print(f"[red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(code=1) from None
    for step in saved:
        out.print(f"[bold]{step.config}[/] {step.step} -> {step.folder}")
        for name, weight in list(step.weights.items())[:TOP_WEIGHTS]:
            out.print(f"  {name:<28} {weight:>12}")


def register(app: typer.Typer) -> None:
    """Add the `fit` command to `app`."""
    app.command("fit")(fit_command)
