"""The calibrator, the threshold with its guarantee, and the calibrated decision."""

from __future__ import annotations

from datetime import date

import numpy as np
import pytest
from structfirst.calibration.calibrator import (
    CONFIDENCE_FEATURES,
    IsotonicCalibrator,
    confidence_features,
)
from structfirst.calibration.fitting import Examples, choose_inputs, guarantee_check, log_loss
from structfirst.calibration.threshold import choose_threshold, clopper_pearson_upper
from structfirst.engine.configuration import get_configuration
from structfirst.engine.decision import calibrated_decision
from structfirst.engine.engine import Engine
from structfirst.engine.evidence import Decision

pytest_plugins = ["engine_fixtures"]


def synthetic(n: int, seed: int = 0) -> tuple[list[dict[str, float]], np.ndarray]:
    """Rows whose agreement (and margin) predict correctness."""
    rng = np.random.default_rng(seed)
    agreement = rng.uniform(0, 1, n)
    margin = rng.uniform(0, 1, n)
    correct = (rng.uniform(0, 1, n) < 0.1 + 0.85 * agreement).astype(int)
    rows = []
    for a, m in zip(agreement, margin, strict=True):
        row = dict.fromkeys(CONFIDENCE_FEATURES, 0.0)
        row.update(agreement=float(a), margin=float(m), top_score=float(m), margin_z=float(m),
                   top_z=float(m))
        rows.append(row)
    return rows, correct


def test_clopper_pearson_upper_bound() -> None:
    # no error in n answers: the bound is 1 - delta^(1/n)
    assert clopper_pearson_upper(0, 45, 0.1) == pytest.approx(1 - 0.1 ** (1 / 45))
    assert clopper_pearson_upper(0, 0, 0.1) == 1.0
    assert clopper_pearson_upper(2, 100, 0.1) > 0.02


def test_threshold_is_the_last_one_the_fixed_sequence_accepts() -> None:
    p = np.linspace(1.0, 0.01, 100)
    y = np.r_[np.ones(60), np.zeros(40)].astype(int)  # the 60 most confident are right
    t = choose_threshold(p, y, target_accuracy=0.95, delta=0.1)
    assert t.n_answered >= 60 and t.risk_bound <= 0.05
    answered = p > t.theta
    assert answered.sum() == t.n_answered and t.errors == int((1 - y[answered]).sum())
    assert "selective accuracy >= 0.95 with probability >= 0.90" in t.guarantee
    # too few confident right answers: no threshold passes, theta abstains on everything
    never = choose_threshold(p[:20], y[:20], target_accuracy=0.95, delta=0.1)
    assert never.theta == 1.0 and never.n_answered == 0


def test_isotonic_calibrator_is_monotone_cross_fitted_and_round_trips() -> None:
    rows, y = synthetic(400)
    cal = IsotonicCalibrator().fit(rows, y)
    assert cal.fit(rows, y) is cal and len(cal.folds_) == 5
    p = cal.predict(rows)
    assert ((p >= 0) & (p <= 1)).all()
    low = [r for r in rows if r["agreement"] < 0.2]
    high = [r for r in rows if r["agreement"] > 0.8]
    assert cal.predict(high).mean() > cal.predict(low).mean() + 0.4
    again = IsotonicCalibrator.from_dict(cal.to_dict())
    assert np.allclose(again.predict(rows), p)
    assert cal.weakest({**rows[0], "agreement": 0.0, "margin": 1.0, "top_score": 1.0}) == (
        "agreement"
    )
    with pytest.raises(ValueError, match="at least 5 correct and 5 wrong"):
        IsotonicCalibrator().fit(rows[:8], [1] * 8)


def test_dev_chooses_the_input_set_that_carries_over() -> None:
    """A query type that decides correctness on train and says the opposite on dev: dev's log
    loss prefers the structural inputs; where the type holds on dev too, it keeps the type."""
    rows, y = synthetic(400, seed=5)
    typed = [{**r, "qtype_lookup": float(c)} for r, c in zip(rows, y, strict=True)]
    fit = Examples(typed[:200], list(y[:200]), [])
    flipped = [{**r, "qtype_lookup": 1.0 - r["qtype_lookup"]} for r in typed[200:]]
    chosen, _, losses = choose_inputs(fit, Examples(flipped, list(y[200:]), []))
    assert "query type" not in chosen and losses[chosen] < losses[f"{chosen} + query type"]
    chosen, _, _ = choose_inputs(fit, Examples(typed[200:], list(y[200:]), []))
    assert chosen.endswith(" + query type")
    assert log_loss(np.array([0.5, 0.5]), [1, 0]) == pytest.approx(np.log(2))


def test_dev_reads_the_scores_scale_free_when_the_model_s_scale_moves() -> None:
    """Scores that predict correctness, but from a model whose scale differs on dev (the final
    fusion model against the cross-fitted fold models that scored train): dev's log loss
    prefers the scale-free score inputs."""
    rng = np.random.default_rng(7)
    rows, y = [], []
    for i in range(400):
        m = float(rng.uniform(0, 1))
        scale = 1.0 if i < 200 else 4.0
        row = dict.fromkeys(CONFIDENCE_FEATURES, 0.0)
        row.update(top_score=m * scale, margin=m * scale, top_z=m, margin_z=m)
        rows.append(row)
        y.append(int(rng.uniform(0, 1) < 0.05 + 0.9 * m))
    chosen, _, losses = choose_inputs(Examples(rows[:200], y[:200], []),
                                      Examples(rows[200:], y[200:], []))
    assert chosen == "structural, scale-free scores"
    assert losses[chosen] < losses["structural"]


def test_the_guarantee_holds_over_random_resplits() -> None:
    rows, y = synthetic(600, seed=3)
    p = IsotonicCalibrator().fit(rows[:300], y[:300]).predict(rows[300:])
    check = guarantee_check(p, y[300:], 0.9, 0.1, resplits=100)
    assert check["resplits"] == 100 and check["exceeded"] <= 20
    assert check["mean_check_coverage"] > 0


def test_the_calibrated_decision(engine: Engine) -> None:
    rows, y = synthetic(400)
    cal = IsotonicCalibrator().fit(rows, y)
    cfg = get_configuration("fast")
    question = "What must a lessor disclose before consummation of a consumer lease?"
    frame = engine.pipeline(cfg).transform(
        engine.start_frame(question, date(2016, 1, 1), None, cfg)
    )
    hard = engine.hard_decision(frame)
    assert hard.answer
    row = confidence_features(frame)
    assert row["agreement"] < 0.5  # the top candidate comes from one plane of three
    decision = calibrated_decision(hard, frame, cal, 0.9, "a guarantee")
    assert not decision.answer and decision.reason.endswith("planes disagree")
    assert decision.confidence is not None and decision.threshold == 0.9
    answered = calibrated_decision(hard, frame, cal, -0.5, "a guarantee")
    assert answered.answer and answered.confidence == decision.confidence
    assert answered.guarantee == "a guarantee"
    refused = calibrated_decision(Decision(False, "no Iowa law"), frame, cal, 0.1, "g")
    assert (refused.answer, refused.reason, refused.confidence) == (False, "no Iowa law", 0.0)
