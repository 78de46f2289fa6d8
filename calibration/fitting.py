"""Fit a configuration's calibrator on train, choose theta on dev, check the guarantee.

The examples are every train (dev) query, answerable or not, run under the default protocol
(the question and the case date only) through the configuration's stages (`structfirst fit`
runs them); a query the hard rules abstain on never reaches the calibrator. An example is
correct when the top candidate is a primary label (grade 2) in force at the as-of date and
every rule verdict the query expects is the engine's; an unanswerable query answered is wrong.

The guarantee check: out-of-fold confidences of train (each from a calibrator that did not see
it) and the dev confidences are pooled; over `resplits` random halvings, theta is chosen on one
half and the selective risk observed on the other; the count of halvings whose risk exceeds
the target should be about delta of them or fewer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from structfirst.calibration.calibrator import (
    CONFIDENCE_FEATURES,
    INPUT_SETS,
    SCORE_ONLY,
    IsotonicCalibrator,
    confidence_features,
    save_calibrator,
)
from structfirst.calibration.threshold import choose_threshold
from structfirst.engine.configuration import EngineConfig
from structfirst.engine.engine import Engine
from structfirst.engine.pipeline import QueryFrame
from structfirst.eval.ablation import bundle_verdicts
from structfirst.eval.query_set import Query

RESPLITS = 200


@dataclass(slots=True)
class Examples:
    rows: list[dict[str, float]]
    correct: list[int]
    qids: list[str]


def is_correct(engine: Engine, q: Query, frame: QueryFrame) -> int:
    """1 when answering with the frame's top candidate is right for `q` (see the module)."""
    if not q.answerable or not frame.candidates:
        return 0
    top = engine.catalog.versions[frame.candidates[0].version_id]
    if top.node_id not in q.primary_ids() or not top.valid_at(q.as_of):
        return 0
    got = bundle_verdicts(list(frame.verdicts))
    return int(all(got.get(rule) == v for rule, v in q.expected_verdicts.items()))


def examples(engine: Engine, queries: Sequence[Query], frames: Sequence[QueryFrame]) -> Examples:
    """The calibration examples of `queries`, given their final frames (uncalibrated): the
    queries the hard rules answer."""
    out = Examples([], [], [])
    for q, frame in zip(queries, frames, strict=True):
        if not engine.hard_decision(frame).answer:
            continue
        out.rows.append(confidence_features(frame))
        out.correct.append(is_correct(engine, q, frame))
        out.qids.append(q.qid)
    return out


def out_of_fold(rows: Sequence[dict[str, float]], correct: Sequence[int], folds: int = 5,
                inputs: Sequence[str] = CONFIDENCE_FEATURES) -> np.ndarray:
    """Each example's confidence from a calibrator fitted on the other folds."""
    from sklearn.model_selection import StratifiedKFold

    y = np.asarray(correct)
    p = np.zeros(len(y))
    for fit_idx, held in StratifiedKFold(folds, shuffle=True, random_state=1).split(rows, y):
        cal = IsotonicCalibrator(inputs).fit([rows[i] for i in fit_idx], y[fit_idx])
        p[held] = cal.predict([rows[i] for i in held])
    return p


def log_loss(p: np.ndarray, y: Sequence[int]) -> float:
    """Mean negative log likelihood of the outcomes `y` under the confidences `p`."""
    q = np.clip(np.asarray(p, dtype=float), 1e-4, 1 - 1e-4)
    t = np.asarray(y, dtype=float)
    return float(-np.mean(t * np.log(q) + (1 - t) * np.log(1 - q)))


def choose_inputs(
    fit_set: Examples, dev_set: Examples
) -> tuple[str, IsotonicCalibrator, dict[str, float]]:
    """The `INPUT_SETS` entry whose calibrator, fitted on the train examples, has the least log
    loss on the dev examples (a proper scoring rule), that calibrator, and each entry's dev log
    loss."""
    fitted = {name: IsotonicCalibrator(inputs).fit(fit_set.rows, fit_set.correct)
              for name, inputs in INPUT_SETS.items()}
    losses = {name: round(log_loss(cal.predict(dev_set.rows), dev_set.correct), 4)
              for name, cal in fitted.items()}
    chosen = min(losses, key=lambda name: (losses[name], name))
    return chosen, fitted[chosen], losses


def guarantee_check(
    confidence: np.ndarray,
    correct: np.ndarray,
    target_accuracy: float,
    delta: float,
    resplits: int = RESPLITS,
    seed: int = 0,
) -> dict[str, Any]:
    """How often theta chosen on a random half lets the other half's risk exceed the target."""
    rng = np.random.default_rng(seed)
    exceed, coverages = 0, []
    for _ in range(resplits):
        order = rng.permutation(len(correct))
        cal, check = order[: len(order) // 2], order[len(order) // 2 :]
        theta = choose_threshold(confidence[cal], correct[cal], target_accuracy, delta).theta
        answered = confidence[check] > theta
        coverages.append(float(answered.mean()))
        if answered.any() and 1.0 - correct[check][answered].mean() > 1.0 - target_accuracy:
            exceed += 1
    return {
        "resplits": resplits,
        "exceeded": exceed,
        "allowed_about": round(delta * resplits),
        "mean_check_coverage": round(float(np.mean(coverages)), 3),
        "pool": int(len(correct)),
    }


def fit_calibration(
    cfg: EngineConfig,
    fit_set: Examples,
    dev_set: Examples,
    folder: Path,
    record: dict[str, Any],
) -> dict[str, Any]:
    """Fit on the train examples with the input set dev prefers (`choose_inputs`), choose theta
    on dev for the configuration's target selective accuracy and delta, check the guarantee,
    save; returns the record."""
    target_accuracy, delta = cfg.target_accuracy, cfg.risk_delta
    chosen, calibrator, losses = choose_inputs(fit_set, dev_set)
    dev_p = calibrator.predict(dev_set.rows)
    threshold = choose_threshold(dev_p, dev_set.correct, target_accuracy, delta)
    pooled_p = np.r_[out_of_fold(fit_set.rows, fit_set.correct, inputs=calibrator.inputs), dev_p]
    pooled_y = np.r_[fit_set.correct, dev_set.correct]
    meta = {
        **record,
        "configuration": cfg.name,
        "threshold": threshold.to_dict(),
        "guarantee_check": guarantee_check(pooled_p, pooled_y, target_accuracy, delta),
        "n_fit_examples": len(fit_set.correct),
        "fit_accuracy": round(float(np.mean(fit_set.correct)), 3),
        "n_dev_examples": len(dev_set.correct),
        "inputs": chosen,
        "dev_log_loss": losses,
        "tuning": {
            "split": "dev",
            "procedure": f"isotonic (5-fold cross-fitted) on train over the input set with the "
            f"least dev log loss ({chosen}: {losses}); theta by Learn-Then-Test "
            f"(Clopper-Pearson) on dev, selective accuracy {target_accuracy}, delta {delta}",
        },
    }
    save_calibrator(folder, calibrator, meta)
    return meta


def fit_score_calibrator(
    cfg: EngineConfig, fit_set: Examples, folder: Path, record: dict[str, Any]
) -> dict[str, Any]:
    """The same isotonic fitting on the top fused score alone (train), for a configuration
    without structural confidence features, so its curves compare with the calibrated ones."""
    calibrator = IsotonicCalibrator(SCORE_ONLY).fit(fit_set.rows, fit_set.correct)
    meta = {
        **record,
        "configuration": cfg.name,
        "n_fit_examples": len(fit_set.correct),
        "fit_accuracy": round(float(np.mean(fit_set.correct)), 3),
        "tuning": {"split": "train", "procedure": "isotonic on the top fused score, 5-fold "
                   "cross-fitted on train"},
    }
    save_calibrator(folder, calibrator, meta)
    return meta
