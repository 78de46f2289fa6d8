"""The answer threshold theta with a stated risk guarantee (Learn-Then-Test, Clopper-Pearson).

Answer when p_hat > theta. Candidate thresholds are tested from the most conservative down
(fixed-sequence testing, which needs no multiplicity correction): at each, the answered
calibration examples' selective risk gets a one-sided Clopper-Pearson upper bound at level
1 - delta; the sequence stops at the first threshold whose bound exceeds the target risk
(1 - target selective accuracy). The sequence starts at the first threshold answering enough
examples that a bound could pass at all (n >= log(delta) / log(1 - target risk), 45 for the
defaults): it is ordered and cut using the confidences only, never the correctness labels, so
the test stays valid given the confidences. theta is the last threshold that passed: with
probability at least 1 - delta over the calibration draw, the selective risk at theta is at
most the target (for exchangeable data). When none passes, theta = 1: always abstain.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

DEFAULT_TARGET_ACCURACY = 0.95
DEFAULT_DELTA = 0.1
NEVER = 1.0  # a threshold no confidence exceeds


def clopper_pearson_upper(errors: int, n: int, delta: float) -> float:
    """One-sided (1 - delta) upper confidence bound on a binomial error rate."""
    from scipy.stats import beta

    if n == 0:
        return 1.0
    if errors >= n:
        return 1.0
    return float(beta.ppf(1.0 - delta, errors + 1, n - errors))


@dataclass(frozen=True, slots=True)
class Threshold:
    theta: float
    target_accuracy: float
    delta: float
    n_calibration: int
    n_answered: int  # calibration examples with p_hat > theta
    errors: int  # among them
    risk_bound: float  # the Clopper-Pearson bound at theta

    @property
    def guarantee(self) -> str:
        return (
            f"selective accuracy >= {self.target_accuracy:.2f} with probability >= "
            f"{1 - self.delta:.2f} (Learn-Then-Test, Clopper-Pearson bound "
            f"{self.risk_bound:.3f} on {self.n_answered} of {self.n_calibration} calibration "
            "questions answered)"
        )

    def to_dict(self) -> dict[str, float | int | str]:
        return {
            "theta": self.theta,
            "target_accuracy": self.target_accuracy,
            "delta": self.delta,
            "n_calibration": self.n_calibration,
            "n_answered": self.n_answered,
            "errors": self.errors,
            "risk_bound": self.risk_bound,
            "guarantee": self.guarantee,
        }


def choose_threshold(
    confidence: Sequence[float],
    correct: Sequence[int],
    target_accuracy: float = DEFAULT_TARGET_ACCURACY,
    delta: float = DEFAULT_DELTA,
) -> Threshold:
    """The least conservative theta that the fixed-sequence test accepts (see the module)."""
    p = np.asarray(confidence, dtype=float)
    y = np.asarray(correct, dtype=int)
    if p.shape != y.shape or p.size == 0:
        raise ValueError("confidence and correct must be equally long and non-empty")
    target_risk = 1.0 - target_accuracy
    least = math.ceil(math.log(delta) / math.log(1.0 - target_risk)) if target_risk > 0 else 1
    chosen = Threshold(NEVER, target_accuracy, delta, int(p.size), 0, 0, 1.0)
    # answer p > theta: thresholds just below each distinct confidence, highest first
    for theta in sorted({float(v) for v in p}, reverse=True)[1:] + [float(p.min()) - 1e-9]:
        answered = p > theta
        n, errors = int(answered.sum()), int((1 - y[answered]).sum())
        if n < least:
            continue
        bound = clopper_pearson_upper(errors, n, delta)
        if bound > target_risk:
            break
        chosen = Threshold(theta, target_accuracy, delta, int(p.size), n, errors, bound)
    return chosen
