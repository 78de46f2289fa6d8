"""Answer or abstain, always with a reason.

The hard abstentions come first (`decide`): the question has no legal content (no citation,
fact, date, jurisdiction, legal term or predicate, and fewer than `MIN_CORPUS_WORDS` of its
words occur in the corpus's provisions: "'; DROP TABLE artifacts; --"), the query's
jurisdiction has no law in the corpus, the as-of date has no valid version, a cited provision
does not exist, no plane returned a candidate, or the rules the question implicates are all
undetermined for lack of facts. An as-of date after today, or after the start of the
jurisdiction's latest version in the corpus (later amendments are not in it), is a warning on
the decision. A calibrated configuration then answers only when the calibrated confidence
exceeds theta (`calibrated_decision`), and otherwise says which feature was weak.
"""

from __future__ import annotations

import re
from datetime import date
from functools import lru_cache
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


MIN_CORPUS_WORDS = 2
_WORD = re.compile(r"[a-z]{4,}")
_STOPWORDS = frozenset(
    "the and for are was were what which who whom whose when where why how does did can could "
    "would should will shall may might must has have had not nor but with from into onto this "
    "that these those there their they them its any all some such than then about under over "
    "after before between during per via".split()
)
_PROVISION_TYPES = frozenset({"Section", "Clause", "DefinedTerm"})


def jurisdiction_name(jurisdiction: str) -> str:
    return _JURISDICTION_NAME.get(jurisdiction, jurisdiction)


@lru_cache(maxsize=4)
def _corpus_words(catalog: Catalog) -> frozenset[str]:
    """The words (4+ letters, lower case) of the catalog's provisions and headings."""
    words: set[str] = set()
    for v in catalog.versions.values():
        if v.type in _PROVISION_TYPES:
            words.update(_WORD.findall(f"{v.heading or ''} {v.text}".lower()))
    return frozenset(words)


@lru_cache(maxsize=4)
def _latest_starts(catalog: Catalog) -> dict[str, date]:
    """For each jurisdiction of the catalog, the start of its latest version."""
    out: dict[str, date] = {}
    for v in catalog.versions.values():
        if v.effective_from and v.effective_from > out.get(v.jurisdiction, date.min):
            out[v.jurisdiction] = v.effective_from
    return out


def legal_content(parsed: ParsedQuery, catalog: Catalog) -> bool:
    """Whether the question carries anything the corpus can answer about."""
    if (
        parsed.citations
        or parsed.unresolved_citations
        or parsed.facts
        or parsed.predicates
        or parsed.terms
        or parsed.dates
        or parsed.jurisdictions
    ):
        return True
    words = {w for w in _WORD.findall(parsed.question.lower()) if w not in _STOPWORDS}
    return len(words & _corpus_words(catalog)) >= MIN_CORPUS_WORDS


def date_warnings(parsed: ParsedQuery, catalog: Catalog, today: date | None = None) -> list[str]:
    """Warnings for an as-of date after today or after the jurisdiction's latest version."""
    as_of, jurisdiction = parsed.as_of.value, parsed.jurisdiction.value
    out = []
    today = today or date.today()
    if as_of > today:
        out.append(f"the as-of date {as_of.isoformat()} is in the future (today {today})")
    starts = [d for j, d in _latest_starts(catalog).items() if jurisdiction_admits(jurisdiction, j)]
    if starts and as_of > max(starts):
        name = jurisdiction_name(jurisdiction)
        out.append(
            f"the as-of date {as_of.isoformat()} is after the latest {name} version in the "
            f"corpus ({max(starts).isoformat()}): later amendments are not in it"
        )
    return out


def jurisdiction_warnings(parsed: ParsedQuery, catalog: Catalog) -> list[str]:
    """A warning for each jurisdiction the question names beside the one it is answered in
    whose own law is not in the corpus ("a Texas statute ... the federal rule")."""
    asked = parsed.jurisdiction.value
    named = dict.fromkeys(
        j.value
        for j in parsed.jurisdictions
        if not jurisdiction_admits(asked, j.value) and not catalog.jurisdiction_known(j.value)
    )
    return [
        f"the question names {jurisdiction_name(j)}, whose law is not in the corpus: the "
        f"answer is {jurisdiction_name(asked)} law only"
        for j in named
    ]


def decide(
    parsed: ParsedQuery,
    query: PlaneQuery,
    catalog: Catalog,
    candidates: list[EvidenceCandidate],
    verdicts: list[dict[str, Any]],
) -> Decision:
    decision = _decide(parsed, query, catalog, candidates, verdicts)
    decision.warnings.extend(date_warnings(parsed, catalog))
    decision.warnings.extend(jurisdiction_warnings(parsed, catalog))
    return decision


def _decide(
    parsed: ParsedQuery,
    query: PlaneQuery,
    catalog: Catalog,
    candidates: list[EvidenceCandidate],
    verdicts: list[dict[str, Any]],
) -> Decision:
    jurisdiction = parsed.jurisdiction.value
    if not legal_content(parsed, catalog):
        return Decision(
            False,
            "the question has no legal content: no citation, fact, date, jurisdiction or legal "
            f"term, and fewer than {MIN_CORPUS_WORDS} of its words occur in the corpus",
        )
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
        return Decision(False, hard.reason, 0.0, theta, guarantee, hard.warnings)
    row = confidence_features(frame)
    p = float(calibrator.predict([row])[0])
    if p > theta:
        reason = f"{hard.reason}; confidence {p:.2f} > theta {theta:.2f}"
        return Decision(True, reason, p, theta, guarantee, hard.warnings)
    weak = WEAK_REASON[calibrator.weakest(row)]
    reason = f"confidence {p:.2f} is not above theta {theta:.2f}: {weak}"
    return Decision(False, reason, p, theta, guarantee, hard.warnings)
