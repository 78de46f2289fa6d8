"""Fit the learned steps of configurations (fusion model, domain reranker) and save them.

    structfirst fit --index DIR --train data/queries/train.jsonl --dev data/queries/dev.jsonl \
        --out models/ [--configs H5,H5-logistic]

Each query goes through the configuration's stages up to its first learned step under the
default protocol (the question and the case date only); the learned steps are then fitted in
order on the train frames (`Pipeline.fit`), and dev chooses the calibrator's inputs and
threshold. Every model folder records its feature schema, the hashes of the train and dev
files, the snapshot id, the library versions, the inputs it was trained with and its tuning
record. A model folder named by several configurations is fitted once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from structfirst.calibration.calibrator import score_calibrator_folder
from structfirst.calibration.fitting import examples, fit_calibration, fit_score_calibrator
from structfirst.calibration.threshold import DEFAULT_DELTA, DEFAULT_TARGET_ACCURACY
from structfirst.engine.configuration import EngineConfig
from structfirst.engine.engine import Engine
from structfirst.engine.pipeline import Labels, Pipeline, QueryFrame, Stage
from structfirst.eval.ablation import sha256_of
from structfirst.eval.query_set import Query, QuerySetError, load_queries
from structfirst.fusion.models import trained_with
from structfirst.fusion.reranker import DomainReranker
from structfirst.fusion.stages import LearnedFusion

PROCEDURES = {
    "lightgbm": "the mean of 10 LGBMRanker lambdarank models on graded labels, one group per "
    "query, each fitted on a random 80% of the train queries, at most 150 trees of 7 leaves "
    "(depth 3), each tree count by 5-fold cross-validated nDCG@10 over its queries",
    "logistic": "L2 logistic regression (C=1) on standardized features, relevant = grade >= 1, "
    "fitted on train",
    "domain": "gamma by a pairwise logistic loss (f_theta as offset, L2 1e-3) over the fused top "
    "100 of train",
}


class FitError(ValueError):
    """Bad input to `fit`: the message names the file, the configuration or the split."""


@dataclass(slots=True)
class FittedStep:
    config: str
    step: str
    folder: Path
    weights: dict[str, Any]  # importances, coefficients, gamma, or the calibrator's theta


def head_settings(cfg: EngineConfig) -> EngineConfig:
    """`cfg` without what only its learned steps read: two configurations equal here send the
    same frames into their first learned step (planes, depths, weights, expansion, filters)."""
    return replace(cfg, name="", description="", fusion="", reranker="", calibration="",
                   fusion_model="", reranker_model="", calibration_model="", tuning={},
                   target_accuracy=DEFAULT_TARGET_ACCURACY, risk_delta=DEFAULT_DELTA)


def read_split(path: Path, split: str) -> list[Query]:
    """The queries of a query file; an unreadable file, test-split queries or no answerable
    labeled query are errors."""
    try:
        queries = load_queries(path)
    except QuerySetError as exc:
        raise FitError(str(exc)) from None
    except OSError as exc:
        raise FitError(f"{path}: cannot read ({exc})") from None
    leaked = [q.qid for q in queries if q.split == "test"]
    if leaked:
        raise FitError(f"{path}: holds test-split queries ({', '.join(leaked[:5])}); "
                       "never fit on the test split")
    if not labeled(queries):
        raise FitError(f"{path}: the {split} split has no answerable labeled query to fit on")
    return queries


def labeled(queries: Sequence[Query]) -> list[Query]:
    return [q for q in queries if q.answerable and q.labels]


def labels(queries: Sequence[Query]) -> list[Labels]:
    return [{lab.id: lab.grade for lab in q.labels} for q in queries]


def frames_through(
    engine: Engine, stages: Stage, cfg: EngineConfig, queries: Sequence[Query]
) -> list[QueryFrame]:
    """Each query's frame through `stages` under the user protocol (the question and the case
    date only)."""
    return [stages.transform(engine.start_frame(q.question, q.as_of, None, cfg)) for q in queries]


def split_learned(stages: Sequence[Stage]) -> tuple[Pipeline, list[Stage]]:
    """(the stages before the first learned one, the rest)."""
    first = next(
        (i for i, s in enumerate(stages) if isinstance(s, (LearnedFusion, DomainReranker))),
        None,
    )
    if first is None:
        return Pipeline(stages), []
    return Pipeline(stages[:first]), list(stages[first:])


def model_folder(cfg: EngineConfig, stage: Stage) -> tuple[str, str] | None:
    """(step, folder name) of a learned stage, None for the others."""
    if isinstance(stage, LearnedFusion):
        return "fusion", cfg.fusion_model
    if isinstance(stage, DomainReranker) and stage.inputs and cfg.reranker == "domain":
        return "reranker", cfg.reranker_model
    return None


def fit_configurations(
    index: Path,
    train_paths: Path | Sequence[Path],
    dev_path: Path,
    out_dir: Path,
    configs: Sequence[EngineConfig],
    score_configs: Sequence[EngineConfig] = (),
) -> list[FittedStep]:
    """Fit and save the learned steps of `configs` on the queries of `train_paths` (one file
    or several, read as one training set), then a top-score calibrator for each of
    `score_configs` (configurations without a calibration of their own); returns what was
    saved."""
    unlearned = [c.name for c in configs if c.fusion == "rrf"]
    if unlearned:
        raise FitError(f"configuration(s) {', '.join(unlearned)} have no learned step")
    own = [c.name for c in score_configs if c.calibration]
    if own:
        raise FitError(f"configuration(s) {', '.join(own)} have a calibration of their own")
    train_paths = [train_paths] if isinstance(train_paths, Path) else list(train_paths)
    train_all = [q for p in train_paths for q in read_split(p, "train")]
    dev_all = read_split(dev_path, "dev")
    repeated = sorted(qid for qid, n in Counter(q.qid for q in train_all).items() if n > 1)
    if repeated:
        raise FitError(f"training queries given twice: {', '.join(repeated[:5])}")
    train, dev = labeled(train_all), labeled(dev_all)
    engine = Engine.open(index, models_dir=out_dir)
    record = {
        "training_set": " + ".join(str(p) for p in train_paths),
        "training_set_sha256": sha256_of(train_paths),
        "dev_set": str(dev_path),
        "dev_set_sha256": sha256_of(dev_path),
        "n_train_queries": len(train),
        "n_dev_queries": len(dev),
        "snapshot_id": engine.snapshot.snapshot_id,
        "protocol": "user: the question and the case date only",
        "fitted_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    head_frames: dict[str, tuple[list[QueryFrame], list[QueryFrame]]] = {}
    fitted: dict[str, tuple[Stage, list[QueryFrame]]] = {}  # folder -> stage, its train frames
    calibrated: set[str] = set()
    final: dict[str, list[QueryFrame]] = {}  # per configuration, the train frames at its end
    saved: list[FittedStep] = []
    is_labeled = [[bool(q.answerable and q.labels) for q in qs] for qs in (train_all, dev_all)]
    for cfg in configs:
        head, tail = split_learned(engine.stages(cfg, fitted=False))
        key = repr(head_settings(cfg))
        if key not in head_frames:
            head_frames[key] = tuple(  # type: ignore[assignment]
                frames_through(engine, head, cfg, qs) for qs in (train_all, dev_all)
            )
        frames, dev_frames = head_frames[key]
        for stage in tail:
            named = model_folder(cfg, stage)
            crossed: list[QueryFrame] | None = None
            if named is not None:
                step, folder = named
                if folder in fitted:
                    stage, crossed = fitted[folder]
                else:
                    fit_frames = [f for f, ok in zip(frames, is_labeled[0], strict=True) if ok]
                    held = [f for f, ok in zip(dev_frames, is_labeled[1], strict=True) if ok]
                    crossed = stage.fit_transform(fit_frames, labels(train), (held, labels(dev)))
                    fitted[folder] = (stage, crossed)
                    saved.append(_save(cfg, step, stage, out_dir / folder, record))
            frames = [stage.transform(f) for f in frames]
            if crossed is not None:  # the labeled frames as a later learned stage sees them
                it = iter(crossed)
                frames = [
                    next(it) if ok else f for f, ok in zip(frames, is_labeled[0], strict=True)
                ]
            dev_frames = [stage.transform(f) for f in dev_frames]
        final[cfg.name] = frames
        if cfg.calibration and cfg.calibration_model not in calibrated:
            folder = out_dir / cfg.calibration_model
            fit_set = examples(engine, train_all, frames)
            dev_set = examples(engine, dev_all, dev_frames)
            meta = fit_calibration(cfg, fit_set, dev_set, folder, record)
            calibrated.add(cfg.calibration_model)
            saved.append(FittedStep(cfg.name, "calibration", folder, meta["threshold"]))
    for cfg in score_configs:
        if cfg.name in final:
            frames = final[cfg.name]
        else:
            frames = frames_through(engine, engine.pipeline(cfg), cfg, train_all)
        folder = score_calibrator_folder(out_dir, cfg.name)
        try:
            meta = fit_score_calibrator(cfg, examples(engine, train_all, frames), folder, record)
        except ValueError as exc:  # too few right (or wrong) top answers to cross-fit
            saved.append(FittedStep(cfg.name, "score calibration", folder, {"skipped": str(exc)}))
            continue
        saved.append(FittedStep(cfg.name, "score calibration", folder,
                                {"fit_accuracy": meta["fit_accuracy"]}))
    return saved


def _save(
    cfg: EngineConfig, step: str, stage: Stage, folder: Path, record: dict[str, Any]
) -> FittedStep:
    kind = cfg.fusion if step == "fusion" else cfg.reranker
    meta = {
        **record,
        "configuration": cfg.name,
        "trained_with": trained_with(cfg),
        "tuning": {"split": "train", "procedure": PROCEDURES[kind]},
    }
    if isinstance(stage, LearnedFusion):
        stage.model.save(folder, meta)
        weights = stage.model.weights()
    else:
        assert isinstance(stage, DomainReranker)
        stage.save(folder, meta)
        weights = stage.weights()
    return FittedStep(cfg.name, step, folder, weights)
