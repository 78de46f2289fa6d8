"""`structfirst adapt` and `adapt-reranker`: fine-tune the dense encoder, or train the cross-encoder
f_theta, on triples mined from an index's snapshot."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

err = Console(stderr=True)
out = Console()
DEFAULT_CAPS = json.dumps({"heading": 600, "defined_term": 300, "cross_ref": 1000, "threshold": 150,
                           "amendment": 500, "interpretation": 700})
# the options both trainers take
IndexOption = Annotated[Path, typer.Option("--index", help="Index directory built by `ingest`.")]
CapsOption = Annotated[str, typer.Option(
    "--caps", help="Most pairs per source, as JSON ({} for every mined pair).")]
RepeatsOption = Annotated[int, typer.Option(help="Copies of each train question pair.")]
MaxStepsOption = Annotated[int, typer.Option(help="Stop after this many steps (-1: epochs).")]
SeedOption = Annotated[int, typer.Option(help="Seed of sampling, negatives and training.")]
ThreadsOption = Annotated[int, typer.Option(help="Torch threads (0: torch's default).")]


def adapt_command(
    index: IndexOption,
    train: Annotated[Path, typer.Option("--train", help="Train-split queries (JSONL).")],
    dev: Annotated[Path, typer.Option("--dev", help="Dev queries that choose the checkpoint.")],
    out_dir: Annotated[Path, typer.Option("--out", help="Model directory to write.")] = Path(
        "models/dense-adapted"
    ),
    work: Annotated[Path, typer.Option(
        "--work", help="Checkpoints (reused by a re-run of the same triples and settings) and "
        "dev indexes.")] = Path(
        "/tmp/adapt-work"
    ),
    caps: CapsOption = DEFAULT_CAPS,
    question_repeats: RepeatsOption = 2,
    epochs: Annotated[int, typer.Option(help="Passes over the triples.")] = 1,
    batch_size: Annotated[int, typer.Option(help="Triples per step (in-batch negatives).")] = 32,
    learning_rate: Annotated[float, typer.Option(help="Peak learning rate.")] = 2e-5,
    max_seq_length: Annotated[int, typer.Option(help="Tokens per text in training.")] = 128,
    checkpoints: Annotated[int, typer.Option(
        help="Checkpoints scored on dev, evenly spaced over the steps.")] = 2,
    max_steps: MaxStepsOption = -1,
    seed: SeedOption = 0,
    threads: ThreadsOption = 0,
) -> None:
    """Mine, train (MNRL, tau 0.05), choose the checkpoint on dev, write model and record."""
    from structfirst.ingest.encoder_adaptation import (
        AdaptationSettings,
        EncoderAdapter,
        adapt_encoder,
    )
    from structfirst.ingest.snapshot import SnapshotError
    from structfirst.ingest.training_pairs import PairMiner

    try:
        miner = PairMiner(caps=json.loads(caps), question_repeats=question_repeats, seed=seed)
        settings = AdaptationSettings(
            epochs=epochs, batch_size=batch_size, learning_rate=learning_rate,
            max_seq_length=max_seq_length, seed=seed, max_steps=max_steps, checkpoints=checkpoints,
        )
        adapter = EncoderAdapter(settings=settings, threads=threads or None)
        record = adapt_encoder(index, train, dev, out_dir, work, miner, adapter)
    except (SnapshotError, FileNotFoundError, FileExistsError, ValueError) as exc:
        err.print(f"[red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(code=1) from None
    out.print(f"adapted encoder -> {out_dir} ({record['triples']} triples, "
              f"{record['steps']} steps, {record['training_seconds']} s)")
    out.print(f"  by source: {record['pairs_by_source']}")
    out.print(f"  dev nDCG@10 by checkpoint: {record['tuning']['checkpoint']['candidates']}; "
              f"chosen {record['chosen_checkpoint']}")
    out.print(f"  use it: STRUCTFIRST_DENSE_MODEL={out_dir.resolve()}")


def adapt_reranker_command(
    index: IndexOption,
    train: Annotated[list[Path], typer.Option(
        "--train", help="Training queries (JSONL); give it again to train on several files.")],
    out_dir: Annotated[Path, typer.Option("--out", help="Model directory to write.")] = Path(
        "models/cross-encoder"
    ),
    caps: CapsOption = DEFAULT_CAPS,
    # 0: the fusion fitted on the same questions would learn to trust a score that has seen
    # their answers (on dev: H5-ce 0.609 with the questions, 0.634 without; H5 0.631)
    question_repeats: RepeatsOption = 0,
    epochs: Annotated[int, typer.Option(help="Passes over the pairs.")] = 1,
    batch_size: Annotated[int, typer.Option(help="Pairs per step.")] = 16,
    learning_rate: Annotated[float, typer.Option(help="Peak learning rate.")] = 7e-5,
    max_length: Annotated[int, typer.Option(help="Tokens of question and passage.")] = 192,
    random_negatives: Annotated[int, typer.Option(
        help="Random passages per triple as negatives, besides its hard negative.")] = 1,
    max_steps: MaxStepsOption = -1,
    seed: SeedOption = 0,
    threads: ThreadsOption = 0,
    base_model: Annotated[Path | None, typer.Option(
        help="Start from this model folder (e.g. an earlier cross-encoder) instead of the "
        "packaged MiniLM.")] = None,
    folds: Annotated[int, typer.Option(
        help="Cross-fit: also train one model per fold of the questions without that fold, to "
        "score the training questions it left out (0: none).")] = 0,
) -> None:
    """Mine, train the cross-encoder (binary cross-entropy on positives and hard negatives),
    write model and record; a configuration uses it as `neural = { kind = "cross-encoder" }`."""
    from structfirst.fusion.cross_encoder import (
        CrossEncoderAdapter,
        CrossEncoderSettings,
        adapt_cross_encoder,
    )
    from structfirst.ingest.snapshot import SnapshotError
    from structfirst.ingest.training_pairs import PairMiner

    try:
        miner = PairMiner(caps=json.loads(caps), question_repeats=question_repeats, seed=seed)
        settings = CrossEncoderSettings(
            epochs=epochs, batch_size=batch_size, learning_rate=learning_rate,
            max_length=max_length, random_negatives=random_negatives, seed=seed,
            max_steps=max_steps,
        )
        adapter = CrossEncoderAdapter(base_model=base_model, settings=settings,
                                      threads=threads or None)
        record = adapt_cross_encoder(index, train, out_dir, miner, adapter, folds=folds)
    except (SnapshotError, FileNotFoundError, FileExistsError, ValueError) as exc:
        err.print(f"[red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(code=1) from None
    out.print(f"cross-encoder -> {out_dir} ({record['triples']} triples, "
              f"{record['steps']} steps, {record['training_seconds']} s)")
    out.print(f"  by source: {record['pairs_by_source']}")
    if record["cross_fitting"]["folds"]:
        out.print(f"  cross-fitted: {record['cross_fitting']['folds']} fold models")


def register(app: typer.Typer) -> None:
    """Add the `adapt` and `adapt-reranker` commands to `app`."""
    app.command("adapt")(adapt_command)
    app.command("adapt-reranker")(adapt_reranker_command)
