"""Answer or abstain, always with a reason.

The hard abstentions come first (`decide`): the query's jurisdiction has no law in the corpus,
the as-of date has no valid version, a cited provision does not exist, no plane returned a
candidate, or the rules the question implicates are all undetermined for lack of facts. A
calibrated configuration then answers only when the calibrated confidence exceeds theta
(`calibrated_decision`), and otherwise says which feature was weak.
"""

from __future__ import annotations

from typing import Any

from structfirst.calibration.calibrator import (
    WEAK_REASON,
    IsotonicCalibrator,
    confidence_features,
)
from structfirst.engine.catalog import Catalog, jurisdiction_admits
from structfirst.engine.evidence import Decision, EvidenceCandidate
from structfirst.engine.pipeline import QueryFrame
from structfirst.engine.plane import PlaneQuery
from structfirst.engine.query_citations import STATES
from structfirst.engine.query_parser import ParsedQuery

_STATE_NAME = {f"us-{postal.lower()}": name.title() for name, postal in STATES.items()}
_JURISDICTION_NAME = {"us-federal": "federal", "us-federal/cfpb": "CFPB", **_STATE_NAME}


def jurisdiction_name(jurisdiction: str) -> str:
    return _JURISDICTION_NAME.get(jurisdiction, jurisdiction)


def decide(
    parsed: ParsedQuery,
    query: PlaneQuery,
    catalog: Catalog,
    candidates: list[EvidenceCandidate],
    verdicts: list[dict[str, Any]],
) -> Decision:
    jurisdiction = parsed.jurisdiction.value
    if not catalog.jurisdiction_known(jurisdiction):
        return Decision(False, f"no {jurisdiction_name(jurisdiction)} law in the corpus")
    if not query.allowed:
        start = catalog.earliest_start(jurisdiction)
        since = f"; its earliest version starts {start.isoformat()}" if start else ""
        return Decision(
            False,
            f"no {jurisdiction_name(jurisdiction)} text is valid on "
            f"{query.as_of.isoformat()}{since}",
        )
    for seed in query.seeds:
        if seed not in catalog.by_node:
            return Decision(False, f"the cited provision {seed} does not exist in the corpus")
        seed_jurisdiction = catalog.by_node[seed][0].jurisdiction
        if not jurisdiction_admits(jurisdiction, seed_jurisdiction):
            return Decision(
                False,
                f"the cited provision {seed} is {jurisdiction_name(seed_jurisdiction)} law, "
                f"outside the {jurisdiction_name(jurisdiction)} jurisdiction asked for",
            )
        if catalog.version_at(seed, query.as_of) is None:
            return Decision(
                False,
                f"the cited provision {seed} has no version valid on {query.as_of.isoformat()}",
            )
    if not candidates:
        return Decision(False, "no plane returned a candidate")
    if verdicts and all(v["verdict"] == "undetermined" for v in verdicts):
        missing = sorted({m for v in verdicts for m in v.get("missing_facts", [])})
        return Decision(
            False,
            "the implicated rules are undetermined; missing facts: " + ", ".join(missing),
        )
    decided = [f"{v['rule']}={v['verdict']}" for v in verdicts if v["verdict"] != "undetermined"]
    top = candidates[0]
    reason = f"top evidence {top.citation or top.node_id} (in force {top.effective_from} to "
    reason += f"{top.effective_to or 'now'})"
    if decided:
        reason = "rules decided: " + ", ".join(decided) + "; " + reason
    return Decision(True, reason)


def calibrated_decision(
    hard: Decision,
    frame: QueryFrame,
    calibrator: IsotonicCalibrator,
    theta: float,
    guarantee: str,
) -> Decision:
    """A hard abstention stands (confidence 0); otherwise answer when p_hat > theta, or
    abstain naming the feature that pulled the confidence down the most."""
    if not hard.answer:
        return Decision(False, hard.reason, 0.0, theta, guarantee)
    row = confidence_features(frame)
    p = float(calibrator.predict([row])[0])
    if p > theta:
        reason = f"{hard.reason}; confidence {p:.2f} > theta {theta:.2f}"
        return Decision(True, reason, p, theta, guarantee)
    weak = WEAK_REASON[calibrator.weakest(row)]
    reason = f"confidence {p:.2f} is not above theta {theta:.2f}: {weak}"
    return Decision(False, reason, p, theta, guarantee)
