"""The confidence calibrator: p_hat(top-1 answer is correct | confidence features).

`confidence_features` reads the reference's features of the top candidate from a final frame:
its score, the margin to the second, modality agreement, graph support, rule support,
contradictions, whether the top two are versions of one provision, and the query type.
`IsotonicCalibrator` (scikit-learn style: parameters in `__init__`, `fit` returns self) fits a
logistic model of those features and calibrates it isotonically with cross-fitting
(`CalibratedClassifierCV(method="isotonic")`: each fold's isotonic map is fitted on
predictions of a model that did not see the fold); p_hat is the mean over the folds. Saved as
plain JSON (coefficients and the isotonic breakpoints), never pickled.

With `inputs=("top_score",)` the same fitting calibrates a configuration's top fused score
alone, so that configurations without structural features get a confidence of the same kind.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from structfirst.engine.pipeline import QueryFrame
from structfirst.engine.query_parser import QUERY_TYPES
from structfirst.fusion.models import ModelError, check_schema, library_versions, read_record

META_FILE = "calibrator.json"
CONFIDENCE_DOCS: dict[str, str] = {
    "top_score": "the top candidate's final score (reranker, fusion or RRF)",
    "margin": "the top score minus the second candidate's (0 with one candidate)",
    "top_z": "the top score's distance above the mean of the top 10 scores, in their standard "
    "deviations (free of the scale of the model that scored them; 0 with one candidate)",
    "margin_z": "the margin in standard deviations of the top 10 scores (0 with one candidate)",
    "agreement": "fraction of the planes that placed the top candidate in their top 10",
    "graph_support": "1 / (1 + graph path length) of the top candidate; 0 unreached",
    "rule_support": "1 if a decided rule (true, false or a parameter value) rests on it",
    "rules_decided": "1 if any rule the question implicates was decided",
    "contradictions": "amounts or periods the top candidate states against the dated parameter",
    "same_provision": "1 if the top two candidates are versions of one provision",
    "neural": "f_theta of the top candidate, normalized over the head; -1 if not scored",
    **{f"qtype_{t}": f"1 if the question is of type {t}" for t in QUERY_TYPES},
}
CONFIDENCE_FEATURES: tuple[str, ...] = tuple(CONFIDENCE_DOCS)
SCORE_ONLY = ("top_score",)
QUERY_TYPE_INPUTS = tuple(f"qtype_{t}" for t in QUERY_TYPES)
# the input sets `structfirst fit` chooses between on dev (`fitting.choose_inputs`): the query
# type is a strong signal on the split it was fitted on and may not carry to another mix of types
# a learned model's raw scores have another scale in each fitting (the cross-fitted fold models
# that score train against the final model), so some sets read the scores only scale-free
RAW_SCORES = ("top_score", "margin")
SCALE_FREE = ("top_z", "margin_z")
STRUCTURAL = tuple(n for n in CONFIDENCE_FEATURES if n not in QUERY_TYPE_INPUTS)
INPUT_SETS: dict[str, tuple[str, ...]] = {
    "structural": tuple(n for n in STRUCTURAL if n not in SCALE_FREE),
    "structural + query type": tuple(n for n in CONFIDENCE_FEATURES if n not in SCALE_FREE),
    "structural, scale-free scores": tuple(n for n in STRUCTURAL if n not in RAW_SCORES),
    "structural, scale-free scores + query type": tuple(
        n for n in CONFIDENCE_FEATURES if n not in RAW_SCORES),
}
# the words an abstention gives when a feature pulls the confidence down the most
WEAK_REASON = {
    "top_score": "the top candidate scores low",
    "margin": "the top two candidates score alike",
    "top_z": "the top candidate does not stand out from the rest",
    "margin_z": "the top two candidates score alike",
    "agreement": "planes disagree",
    "graph_support": "no citation path from the question's provisions reaches the top candidate",
    "rule_support": "no decided rule rests on the top candidate",
    "rules_decided": "no rule decided",
    "contradictions": "the top candidate states an amount that differs from the one in force",
    "same_provision": "the top two candidates are different versions",
    "neural": "the neural reranker scores the top candidate low",
}
DECIDED = ("true", "false", "value")


def confidence_features(frame: QueryFrame) -> dict[str, float]:
    """The confidence features of the frame's top candidate (all 0 without a candidate)."""
    out = dict.fromkeys(CONFIDENCE_FEATURES, 0.0)
    out[f"qtype_{frame.query.query_type}"] = 1.0
    out["rules_decided"] = float(any(v.get("verdict") in DECIDED for v in frame.verdicts))
    if not frame.candidates:
        return out
    top = frame.candidates[0]
    second = frame.candidates[1] if len(frame.candidates) > 1 else None
    f = top.features
    out["top_score"] = top.score
    out["margin"] = top.score - second.score if second else 0.0
    head = np.array([c.score for c in frame.candidates[:10]], dtype=float)
    spread = float(head.std()) if len(head) > 1 else 0.0
    if spread > 0:
        out["top_z"] = (top.score - float(head.mean())) / spread
        out["margin_z"] = out["margin"] / spread
    ranks = [r for r in top.plane_ranks.values() if r <= 10]
    out["agreement"] = f.get("planes_top10", len(ranks) / max(1, len(frame.ranked)))
    path = f.get("graph_path_length", -1.0)
    out["graph_support"] = 1.0 / (1.0 + path) if path >= 0 else 0.0
    out["rule_support"] = float(any(s.get("verdict") in DECIDED for s in top.rule_support))
    out["contradictions"] = f.get("contradictions", 0.0)
    out["same_provision"] = float(
        second is not None
        and second.version_id.split("@", 1)[0] == top.version_id.split("@", 1)[0]
    )
    out["neural"] = f.get("neural_score", -1.0)
    return out


class IsotonicCalibrator:
    """Logistic model of the confidence features, isotonically calibrated with cross-fitting."""

    def __init__(
        self, inputs: Sequence[str] = CONFIDENCE_FEATURES, folds: int = 5, c: float = 1.0
    ) -> None:
        self.inputs = tuple(inputs)
        self.folds = folds
        self.c = c
        self.mean_: np.ndarray | None = None
        self.scale_: np.ndarray | None = None
        self.folds_: list[dict[str, Any]] = []

    def _matrix(self, rows: Sequence[dict[str, float]]) -> np.ndarray:
        return np.array([[r[n] for n in self.inputs] for r in rows], dtype=float).reshape(
            len(rows), len(self.inputs)
        )

    def fit(self, rows: Sequence[dict[str, float]], correct: Sequence[int]) -> IsotonicCalibrator:
        from sklearn.calibration import CalibratedClassifierCV
        from sklearn.linear_model import LogisticRegression
        from sklearn.model_selection import StratifiedKFold

        y = np.asarray(correct, dtype=int)
        if len(y) < 2 * self.folds or min(np.bincount(y, minlength=2)) < self.folds:
            raise ValueError(
                f"{len(y)} calibration examples ({int(y.sum())} correct): at least "
                f"{self.folds} correct and {self.folds} wrong ones are needed for {self.folds} "
                "folds"
            )
        x = self._matrix(rows)
        self.mean_ = x.mean(axis=0)
        self.scale_ = np.where(x.std(axis=0) > 0, x.std(axis=0), 1.0)
        model = CalibratedClassifierCV(
            LogisticRegression(C=self.c, max_iter=2000),
            method="isotonic",
            cv=StratifiedKFold(self.folds, shuffle=True, random_state=0),
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            model.fit((x - self.mean_) / self.scale_, y)
        self.folds_ = []
        for fold in model.calibrated_classifiers_:
            iso = fold.calibrators[0]
            self.folds_.append(
                {
                    "coef": fold.estimator.coef_[0].tolist(),
                    "intercept": float(fold.estimator.intercept_[0]),
                    "x": iso.X_thresholds_.tolist(),
                    "y": iso.y_thresholds_.tolist(),
                }
            )
        return self

    def _check(self) -> None:
        if not self.folds_:
            raise ModelError("the calibrator is not fitted")

    def predict(self, rows: Sequence[dict[str, float]]) -> np.ndarray:
        """p_hat for each row: the mean over the folds of isotonic(logistic decision)."""
        self._check()
        z = (self._matrix(rows) - self.mean_) / self.scale_
        p = [
            np.interp(z @ np.array(f["coef"]) + f["intercept"], f["x"], f["y"])
            for f in self.folds_
        ]
        return np.clip(np.mean(p, axis=0), 0.0, 1.0)

    def weakest(self, row: dict[str, float]) -> str:
        """The input that pulls this row's logistic decision down the most (mean over folds
        of coefficient times standardized value)."""
        self._check()
        z = (self._matrix([row])[0] - self.mean_) / self.scale_
        coef = np.mean([f["coef"] for f in self.folds_], axis=0)
        named = [(c * v, n) for c, v, n in zip(coef, z, self.inputs, strict=True)
                 if n in WEAK_REASON]
        return min(named)[1] if named else self.inputs[0]

    def to_dict(self) -> dict[str, Any]:
        self._check()
        return {
            "inputs": list(self.inputs),
            "folds": self.folds,
            "c": self.c,
            "mean": self.mean_.tolist(),
            "scale": self.scale_.tolist(),
            "fitted_folds": self.folds_,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> IsotonicCalibrator:
        cal = cls(data["inputs"], data["folds"], data["c"])
        cal.mean_, cal.scale_ = np.array(data["mean"]), np.array(data["scale"])
        cal.folds_ = data["fitted_folds"]
        return cal


def save_calibrator(folder: Path, calibrator: IsotonicCalibrator, meta: dict[str, Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    record = {
        "kind": "isotonic",
        "feature_names": list(CONFIDENCE_FEATURES),
        "library_versions": library_versions(),
        **meta,
        "calibrator": calibrator.to_dict(),
    }
    (folder / META_FILE).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")


def load_calibrator(folder: Path) -> tuple[IsotonicCalibrator, dict[str, Any]]:
    """(the calibrator, its record: threshold, guarantee, snapshot id, ...)."""
    path = Path(folder) / META_FILE
    record = read_record(path, "calibrator")
    check_schema(path, record.get("feature_names"), CONFIDENCE_FEATURES)
    return IsotonicCalibrator.from_dict(record["calibrator"]), record


SCORE_CALIBRATOR_PREFIX = "score-calibrator-"


def score_calibrator_folder(models_dir: Path, config: str) -> Path:
    """Where `fit` saves the top-score calibrator of an uncalibrated configuration."""
    return Path(models_dir) / f"{SCORE_CALIBRATOR_PREFIX}{config}"


def score_confidence(
    calibrator: IsotonicCalibrator, answered: bool, top_score: float | None
) -> float:
    """An uncalibrated configuration's confidence: its calibrated top fused score, 0 when it
    abstained or returned nothing (the decision itself is left as it is)."""
    if not answered or top_score is None:
        return 0.0
    return float(calibrator.predict([{"top_score": top_score}])[0])
