"""Evaluation metrics for the labeled query sets, with bootstrap CIs and a paired test.

    python -m structfirst.eval.metrics --queries data/queries/test.jsonl --run run.trec \
        [--outputs outputs.jsonl] [--store <snapshot>/store.duckdb] [--run-b other.trec ...]

Inputs: a query set (`structfirst.eval.query_set.load_queries`), a TREC run whose docids are
version ids `<node_id>@<from>` (`load_run`), optionally the system's per-query outputs
(`load_outputs`: abstain, confidence, verdicts) and the version facts of the snapshot
(`versions_from_store`: version id -> interval and jurisdiction).

Metrics (each overall and per query type, with a 95% percentile bootstrap CI over queries):

* ranking, computed by ir-measures on node-level runs (a hit is relevant for a label when its
  node id is the label's id; repeated versions of one node keep their best rank): nDCG@10
  with the grades (2, 1, 0) as linear gains, R@10, R@50, R@100 and P@5 (relevant = grade >= 1);
  answerable queries only, a query without hits scoring 0;
* version_correct: the top hit's node is a label of grade >= 1 and its version interval
  contains as_of (answerable queries; the interval comes from the snapshot facts, else from
  the label's `valid_from`; a query whose top-hit label has neither is left out);
* jurisdiction_correct: the top hit's jurisdiction is the query's or under it
  (`us-federal/cfpb` is under `us-federal`); queries with at least one hit;
* evidence_completeness: share of the grade >= 1 labels among the top 10 nodes
  (answerable exception_application and multi_clause_synthesis queries);
* verdict_accuracy: per query, the share of its expected verdicts the system output matches
  (a missing verdict is wrong); queries with expected verdicts;
* abstention_precision / abstention_recall: abstaining is the positive class, an
  unanswerable query the true one;
* calibration of the confidence against correctness, correct meaning the top hit is a grade-2
  label (in force at as_of when the interval is known) of an answerable query: ECE (equal-width
  bins, `bins` = 10 by default, reported), Brier, AURC, selective accuracy at 90% coverage and
  coverage at 95% selective accuracy (definitions in their docstrings).

`compare` runs a paired randomization (permutation) test, two-sided, between two
configurations on the same queries (swapping each query's per-query outcomes between the two
at random), and reports a paired bootstrap CI of the difference.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import ir_measures
import numpy as np
from ir_measures import Qrel, ScoredDoc
from structfirst.eval.query_set import (
    QUERY_TYPES,
    VERDICTS,
    Query,
    QuerySetError,
    Run,
    jurisdiction_of,
    jurisdiction_within,
    load_queries,
    load_run,
    read_jsonl,
)

IR_MEASURES = ("nDCG@10", "R@10", "R@50", "R@100", "P@5")
EVIDENCE_TYPES = ("exception_application", "multi_clause_synthesis")
DEFAULT_BINS = 10
DEFAULT_BOOTSTRAP = 1000
DEFAULT_PERMUTATIONS = 2000


# --------------------------------------------------------------------------------------------
# Inputs beyond the run
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Output:
    """What a system said about one query besides its ranking."""

    abstain: bool = False
    confidence: float | None = None  # calibrated probability that the answer is correct
    verdicts: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class VersionInfo:
    start: date | None
    end: date | None  # exclusive; None = open
    jurisdiction: str | None = None

    def contains(self, day: date) -> bool:
        return (self.start is None or self.start <= day) and (self.end is None or day < self.end)


def load_outputs(path: str | Path) -> dict[str, Output]:
    """JSONL of {"qid", "abstain": bool, "confidence": 0..1 or null, "verdicts": {...}}."""
    path = Path(path)
    out: dict[str, Output] = {}
    for lineno, rec in read_jsonl(path, "outputs"):
        qid = rec.get("qid") if isinstance(rec, dict) else None
        if not isinstance(qid, str):
            raise QuerySetError(path, lineno, "an output needs a string qid")
        if qid in out:
            raise QuerySetError(path, lineno, f"duplicate qid {qid!r}")
        abstain = rec.get("abstain", False)
        if not isinstance(abstain, bool):
            raise QuerySetError(path, lineno, f"{qid}: abstain must be true or false")
        conf = rec.get("confidence")
        if conf is not None and (isinstance(conf, bool) or not isinstance(conf, (int, float))
                                 or not 0.0 <= conf <= 1.0):
            raise QuerySetError(path, lineno, f"{qid}: confidence must be in [0, 1]: {conf!r}")
        verdicts = rec.get("verdicts") or {}
        if not isinstance(verdicts, dict) or any(v not in VERDICTS for v in verdicts.values()):
            raise QuerySetError(
                path, lineno, f"{qid}: verdicts must map rules to true/false/\"undetermined\""
            )
        out[qid] = Output(abstain, None if conf is None else float(conf), verdicts)
    if not out:
        raise QuerySetError(path, None, "empty outputs file")
    return out


def versions_from_store(con: Any, docids: Iterable[str]) -> dict[str, VersionInfo]:
    """Interval and jurisdiction of the given version ids, from a snapshot's `artifacts`."""
    ids = sorted(set(docids))
    rows = con.execute(
        "SELECT version_id, effective_from, effective_to, jurisdiction FROM artifacts "
        "WHERE list_contains(?, version_id)",
        [ids],
    ).fetchall()
    return {vid: VersionInfo(start, end, jur) for vid, start, end, jur in rows}


# --------------------------------------------------------------------------------------------
# Per-query outcomes
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class Record:
    """One query's outcomes; None where a metric does not apply to the query."""

    qid: str
    type: str
    answerable: bool
    ir: dict[str, float] = field(default_factory=dict)
    version_correct: float | None = None
    jurisdiction_correct: float | None = None
    evidence_completeness: float | None = None
    verdict_accuracy: float | None = None
    abstained: bool | None = None
    confidence: float | None = None
    correct: float | None = None  # top hit is a grade-2 label (the calibration target)


def _hit_version(hit, versions: Mapping[str, VersionInfo] | None, q: Query) -> bool | None:
    """Whether the hit's version is in force at the query's as_of (None: cannot tell)."""
    if versions is not None and hit.docid in versions:
        return versions[hit.docid].contains(q.as_of)
    label = next((lab for lab in q.labels if lab.id == hit.node_id), None)
    if label is not None and label.valid_from is not None and hit.start is not None:
        return hit.start == label.valid_from
    return None


def _node_ranking(hits) -> list:
    """Hits with repeated nodes dropped (the best-ranked version of a node is kept)."""
    seen, out = set(), []
    for h in hits:
        if h.node_id not in seen:
            seen.add(h.node_id)
            out.append(h)
    return out


def per_query(
    queries: Sequence[Query],
    run: Run,
    outputs: Mapping[str, Output] | None = None,
    versions: Mapping[str, VersionInfo] | None = None,
    version_strict: bool = False,
) -> list[Record]:
    """Every query's outcomes. With `version_strict`, a hit whose version is known not to be
    in force at as_of counts as non-relevant in the ranking measures too."""
    records: list[Record] = []
    qrels, scored = [], []
    for q in queries:
        hits = run.get(q.qid, [])
        ranking = _node_ranking(hits)
        rec = Record(q.qid, q.type, q.answerable)
        top = ranking[0] if ranking else None
        if top is not None:
            jur = (versions[top.docid].jurisdiction
                   if versions is not None and top.docid in versions else None)
            jur = jur or jurisdiction_of(top.node_id)
            rec.jurisdiction_correct = float(jurisdiction_within(jur, q.jurisdiction))
        if q.answerable:
            relevant = q.relevant_ids(1)
            in_force = None if top is None else _hit_version(top, versions, q)
            if top is None:
                rec.version_correct = 0.0
            elif top.node_id not in relevant:
                rec.version_correct = 0.0
            elif in_force is not None:
                rec.version_correct = float(in_force)
            if q.type in EVIDENCE_TYPES and relevant:
                top10 = {h.node_id for h in ranking[:10]}
                rec.evidence_completeness = len(relevant & top10) / len(relevant)
            rec.correct = float(
                top is not None and top.node_id in q.primary_ids() and in_force is not False
            )
            for lab in q.labels:
                qrels.append(Qrel(q.qid, lab.id, lab.grade))
            n = len(ranking)
            for i, h in enumerate(ranking):
                docid = h.node_id
                if version_strict and _hit_version(h, versions, q) is False:
                    docid = h.docid + "#not-in-force"
                scored.append(ScoredDoc(q.qid, docid, float(n - i)))
        else:
            rec.correct = 0.0
        out = outputs.get(q.qid) if outputs is not None else None
        if outputs is not None:
            rec.abstained = out.abstain if out is not None else False
            rec.confidence = out.confidence if out is not None else None
            if q.expected_verdicts:
                got = out.verdicts if out is not None else {}
                rec.verdict_accuracy = sum(
                    rule in got and got[rule] == v for rule, v in q.expected_verdicts.items()
                ) / len(q.expected_verdicts)
        records.append(rec)
    measures = [ir_measures.parse_measure(m) for m in IR_MEASURES]
    by_qid = {r.qid: r for r in records}
    for r in records:
        if r.answerable:
            r.ir = {m: 0.0 for m in IR_MEASURES}
    if qrels and scored:
        for m in ir_measures.iter_calc(measures, qrels, scored):
            by_qid[m.query_id].ir[str(m.measure)] = float(m.value)
    return records


# --------------------------------------------------------------------------------------------
# Calibration and selective prediction
# --------------------------------------------------------------------------------------------


def _check(p: Sequence[float], y: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    p, y = np.asarray(p, dtype=float), np.asarray(y, dtype=float)
    if p.shape != y.shape or p.ndim != 1:
        raise ValueError("confidences and outcomes must be 1-D and of equal length")
    if p.size == 0:
        raise ValueError("no predictions to score")
    if np.any((p < 0) | (p > 1)) or not np.all(np.isin(y, (0.0, 1.0))):
        raise ValueError("confidences must lie in [0, 1] and outcomes be 0 or 1")
    return p, y


def ece(p: Sequence[float], y: Sequence[float], bins: int = DEFAULT_BINS) -> float:
    """Expected calibration error with `bins` equal-width bins over [0, 1].

    Bin b (0-based) holds the predictions with b/bins <= p < (b+1)/bins (the last bin also
    holds p = 1); ECE = sum over non-empty bins of |B_b|/N * |mean(y in B_b) - mean(p in B_b)|.
    """
    p, y = _check(p, y)
    return float(_ece_rows(p, y[None, :], bins)[0])


def _ece_rows(p: np.ndarray, outcomes: np.ndarray, bins: int) -> np.ndarray:
    """The ECE of confidences `p` against each row of `outcomes` (rows x len(p))."""
    idx = np.minimum((p * bins).astype(int), bins - 1)
    total = np.zeros(len(outcomes))
    for b in range(bins):
        m = idx == b
        if m.any():
            total += m.sum() / p.size * np.abs(outcomes[:, m].mean(axis=1) - p[m].mean())
    return total


def ece_floor(p: Sequence[float], y: Sequence[float], bins: int = DEFAULT_BINS,
              draws: int = 200, seed: int = 0) -> float:
    """The ECE that perfectly calibrated confidences `p` would show on this many questions:
    the mean ECE over `draws` outcome sets drawn as Bernoulli(p) (`y` is only checked). An
    observed ECE near it is as low as the sample can show; a target below it is unmeasurable."""
    p, _ = _check(p, y)
    outcomes = (np.random.default_rng(seed).uniform(size=(draws, p.size)) < p).astype(float)
    return float(_ece_rows(p, outcomes, bins).mean())


def brier(p: Sequence[float], y: Sequence[float]) -> float:
    """Brier score: mean of (p_i - y_i)^2."""
    p, y = _check(p, y)
    return float(np.mean((p - y) ** 2))


def _expected_errors(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    """E[number of errors among the k most confident], k = 1..N, sorting by confidence
    (descending) and averaging over every order of equal confidences."""
    order = np.argsort(-p, kind="stable")
    ps, err = p[order], 1.0 - y[order]
    starts = np.flatnonzero(np.r_[True, ps[1:] != ps[:-1]])
    sizes = np.diff(np.r_[starts, ps.size])
    group_errors = np.add.reduceat(err, starts)
    before = np.r_[0.0, np.cumsum(group_errors)[:-1]]
    gid = np.repeat(np.arange(starts.size), sizes)
    position = np.arange(ps.size) - starts[gid] + 1
    return before[gid] + group_errors[gid] * position / sizes[gid]


def aurc(p: Sequence[float], y: Sequence[float]) -> float:
    """Area under the risk-coverage curve, lower is better.

    Queries are answered in order of decreasing confidence; answering the k most confident
    (coverage k/N) has risk r_k = (errors among them)/k, ties in confidence being averaged
    over their orders. AURC = (1/N) * sum_{k=1..N} r_k, the right Riemann sum of risk(c) over
    c in (0, 1] at the N coverage levels k/N.
    """
    p, y = _check(p, y)
    errors = _expected_errors(p, y)
    return float(np.mean(errors / np.arange(1, p.size + 1)))


def selective_accuracy(p: Sequence[float], y: Sequence[float], coverage: float = 0.9) -> float:
    """Accuracy on the ceil(coverage * N) most confident predictions (ties averaged)."""
    p, y = _check(p, y)
    if not 0 < coverage <= 1:
        raise ValueError("coverage must be in (0, 1]")
    k = math.ceil(coverage * p.size - 1e-9)
    return float(1.0 - _expected_errors(p, y)[k - 1] / k)


def coverage_at_accuracy(p: Sequence[float], y: Sequence[float], target: float = 0.95) -> float:
    """The largest coverage k/N reachable by a confidence threshold (answer every prediction
    with confidence >= t, so ties are all in or all out) whose accuracy is >= target; 0.0
    when no threshold reaches it."""
    p, y = _check(p, y)
    order = np.argsort(-p, kind="stable")
    ps, ys = p[order], y[order]
    k = np.arange(1, p.size + 1)
    boundary = np.r_[ps[1:] != ps[:-1], True]  # a threshold can stop after position k
    ok = boundary & (np.cumsum(ys) / k >= target - 1e-12)
    return float(k[ok].max() / p.size) if ok.any() else 0.0


# --------------------------------------------------------------------------------------------
# Metric table, bootstrap, paired test
# --------------------------------------------------------------------------------------------

# a metric: (records -> arrays) and (arrays -> value); arrays are indexed by query so that
# resampling or swapping queries is indexing
Extract = Callable[[Sequence[Record]], tuple[np.ndarray, ...]]
Reduce = Callable[..., float]


def _mean_of(getter: Callable[[Record], float | None]) -> tuple[Extract, Reduce]:
    def extract(recs: Sequence[Record]) -> tuple[np.ndarray, ...]:
        vals = [getter(r) for r in recs]
        return (np.array([np.nan if v is None else v for v in vals], dtype=float),)

    def reduce(v: np.ndarray) -> float:
        v = v[~np.isnan(v)]
        return float(v.mean()) if v.size else float("nan")

    reduce.rows = _nanmean_rows  # type: ignore[attr-defined]  # the same, one value per row
    return extract, reduce


def _nanmean_rows(m: np.ndarray) -> np.ndarray:
    """Row means ignoring NaN (NaN for an all-NaN row), for resamples stacked as rows."""
    ok = ~np.isnan(m)
    n = ok.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, np.where(ok, m, 0.0).sum(axis=1) / n, np.nan)


def _abstention(kind: str) -> tuple[Extract, Reduce]:
    def extract(recs: Sequence[Record]) -> tuple[np.ndarray, ...]:
        have = np.array([r.abstained is not None for r in recs], dtype=bool)
        abst = np.array([bool(r.abstained) for r in recs], dtype=bool)
        unans = np.array([not r.answerable for r in recs], dtype=bool)
        return have, abst, unans

    def reduce(have: np.ndarray, abst: np.ndarray, unans: np.ndarray) -> float:
        abst, unans = abst[have], unans[have]
        tp = float(np.sum(abst & unans))
        denom = np.sum(abst) if kind == "precision" else np.sum(unans)
        return tp / denom if denom else float("nan")

    return extract, reduce


def _calibration(fn: Callable[..., float], point_only: bool = False,
                 **kw: Any) -> tuple[Extract, Reduce]:
    """A metric of the confidences and outcomes; `point_only`: a reference value (no bootstrap
    CI, no paired test)."""

    def extract(recs: Sequence[Record]) -> tuple[np.ndarray, ...]:
        p = np.array([np.nan if r.confidence is None else r.confidence for r in recs])
        y = np.array([np.nan if r.correct is None else r.correct for r in recs])
        return p, y

    def reduce(p: np.ndarray, y: np.ndarray) -> float:
        m = ~(np.isnan(p) | np.isnan(y))
        return fn(p[m], y[m], **kw) if m.any() else float("nan")

    reduce.point_only = point_only  # type: ignore[attr-defined]
    return extract, reduce


def metric_table(bins: int = DEFAULT_BINS) -> dict[str, tuple[Extract, Reduce]]:
    table: dict[str, tuple[Extract, Reduce]] = {
        m: _mean_of(lambda r, m=m: r.ir.get(m) if r.answerable else None) for m in IR_MEASURES
    }
    table.update({
        "version_correct": _mean_of(lambda r: r.version_correct),
        "top1_correct": _mean_of(lambda r: r.correct if r.answerable else None),
        "jurisdiction_correct": _mean_of(lambda r: r.jurisdiction_correct),
        "evidence_completeness": _mean_of(lambda r: r.evidence_completeness),
        "verdict_accuracy": _mean_of(lambda r: r.verdict_accuracy),
        "abstention_precision": _abstention("precision"),
        "abstention_recall": _abstention("recall"),
        "ece": _calibration(ece, bins=bins),
        "ece_floor": _calibration(ece_floor, point_only=True, bins=bins),
        "brier": _calibration(brier),
        "aurc": _calibration(aurc),
        "selective_accuracy@90": _calibration(selective_accuracy, coverage=0.9),
        "coverage@95": _calibration(coverage_at_accuracy, target=0.95),
    })
    return table


def _n_applicable(name: str, arrays: tuple[np.ndarray, ...]) -> int:
    if name.startswith("abstention"):
        return int(arrays[0].sum())
    return int(np.sum(~np.isnan(arrays[0]) & (~np.isnan(arrays[1]) if len(arrays) > 1 else True)))


def bootstrap_ci(
    arrays: tuple[np.ndarray, ...], reduce: Reduce, n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int = 0, alpha: float = 0.05,
) -> tuple[float, float, float]:
    """(point, low, high): the statistic and its percentile bootstrap (1 - alpha) interval
    over `n_boot` resamples of the queries with replacement (seeded; resamples where the
    statistic is undefined are dropped)."""
    point = reduce(*arrays)
    n = arrays[0].shape[0]
    if n == 0 or math.isnan(point) or getattr(reduce, "point_only", False):
        return point, float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, (n_boot, n))
    if hasattr(reduce, "rows"):
        stats = [s for s in reduce.rows(arrays[0][idx]) if not math.isnan(s)]
    else:
        stats = [s for row in idx if not math.isnan(s := reduce(*(a[row] for a in arrays)))]
    if not stats:
        return point, float("nan"), float("nan")
    lo, hi = np.quantile(stats, [alpha / 2, 1 - alpha / 2])
    return point, float(lo), float(hi)


def _groups(records: Sequence[Record]) -> dict[str, list[Record]]:
    out = {"overall": list(records)}
    for t in QUERY_TYPES:
        out[t] = [r for r in records if r.type == t]
    return out


def summarize(records: Sequence[Record], bins: int = DEFAULT_BINS,
              n_boot: int = DEFAULT_BOOTSTRAP, seed: int = 0) -> dict:
    """Every metric, overall and per query type: value, 95% bootstrap CI and n."""
    table = metric_table(bins)
    result: dict[str, Any] = {
        "settings": {"ci": "95% percentile bootstrap over queries", "bootstrap_resamples": n_boot,
                     "seed": seed, "ece_bins": bins, "ece_binning": "equal-width"},
    }
    for group, recs in _groups(records).items():
        block = {}
        for name, (extract, reduce) in table.items():
            arrays = extract(recs)
            value, lo, hi = bootstrap_ci(arrays, reduce, n_boot, seed)
            block[name] = {"value": _num(value), "ci_low": _num(lo), "ci_high": _num(hi),
                           "n": _n_applicable(name, arrays)}
        result[group] = block
    return result


def _num(x: float) -> float | None:
    return None if x is None or math.isnan(x) else round(float(x), 6)


def paired_test(
    a: Sequence[Record], b: Sequence[Record], extract: Extract, reduce: Reduce,
    n_perm: int = DEFAULT_PERMUTATIONS, n_boot: int = DEFAULT_BOOTSTRAP, seed: int = 0,
) -> dict:
    """Difference b - a of one metric on the same queries.

    p_value: two-sided paired randomization test — each query's outcomes are swapped
    between a and b with probability 1/2, `n_perm` times; p = (1 + #{|d*| >= |d|}) /
    (n_perm + 1). ci: paired percentile bootstrap (95%) of the difference, the same resampled
    queries for both.
    """
    ids_a, ids_b = [r.qid for r in a], [r.qid for r in b]
    if ids_a != ids_b:
        raise ValueError("paired comparison needs the same queries in the same order")
    xa, xb = extract(a), extract(b)
    diff = reduce(*xb) - reduce(*xa)
    rng = np.random.default_rng(seed)
    n = len(ids_a)
    swaps = rng.random((n_perm, n)) < 0.5
    idx = rng.integers(0, n, (n_boot, n))
    if hasattr(reduce, "rows"):
        (ua,), (ub,) = xa, xb
        perm = reduce.rows(np.where(swaps, ua, ub)) - reduce.rows(np.where(swaps, ub, ua))
        boot = reduce.rows(ub[idx]) - reduce.rows(ua[idx])
    else:
        perm = np.array([
            reduce(*(np.where(sw, u, v) for u, v in zip(xa, xb, strict=True)))
            - reduce(*(np.where(sw, v, u) for u, v in zip(xa, xb, strict=True)))
            for sw in swaps
        ])
        boot = np.array([reduce(*(x[row] for x in xb)) - reduce(*(x[row] for x in xa))
                         for row in idx])
    perm, boots = perm[~np.isnan(perm)], boot[~np.isnan(boot)]
    extreme, valid = int(np.sum(np.abs(perm) >= abs(diff) - 1e-12)), perm.size
    lo, hi = np.quantile(boots, [0.025, 0.975]) if boots.size else (float("nan"),) * 2
    p = (1 + extreme) / (valid + 1) if not math.isnan(diff) else float("nan")
    return {"a": _num(reduce(*xa)), "b": _num(reduce(*xb)), "diff": _num(diff),
            "ci_low": _num(lo), "ci_high": _num(hi), "p_value": _num(p)}


def compare(a: Sequence[Record], b: Sequence[Record], bins: int = DEFAULT_BINS,
            n_perm: int = DEFAULT_PERMUTATIONS, n_boot: int = DEFAULT_BOOTSTRAP,
            seed: int = 0) -> dict:
    """`paired_test` of every metric but the reference values (`point_only`), overall and per
    query type (b minus a)."""
    table = metric_table(bins)
    result: dict[str, Any] = {
        "settings": {"test": "two-sided paired randomization (permutation) test",
                     "permutations": n_perm, "ci": "95% paired percentile bootstrap of b - a",
                     "bootstrap_resamples": n_boot, "seed": seed, "ece_bins": bins},
    }
    ga, gb = _groups(a), _groups(b)
    for group in ga:
        result[group] = {name: paired_test(ga[group], gb[group], ex, red, n_perm, n_boot, seed)
                         for name, (ex, red) in table.items()
                         if not getattr(red, "point_only", False)}
    return result


def evaluate(queries: Sequence[Query], run: Run, outputs: Mapping[str, Output] | None = None,
             versions: Mapping[str, VersionInfo] | None = None, version_strict: bool = False,
             bins: int = DEFAULT_BINS, n_boot: int = DEFAULT_BOOTSTRAP, seed: int = 0) -> dict:
    """`summarize` of `per_query` (run queries outside the set are ignored, but a run that
    names none of the set's queries is an error)."""
    if run and not set(run) & {q.qid for q in queries}:
        raise ValueError(f"the run names none of the queries (e.g. {sorted(run)[0]!r})")
    return summarize(per_query(queries, run, outputs, versions, version_strict), bins, n_boot, seed)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Evaluate a run (and optionally compare two).")
    ap.add_argument("--queries", type=Path, required=True, nargs="+")
    ap.add_argument("--run", type=Path, required=True)
    ap.add_argument("--outputs", type=Path)
    ap.add_argument("--run-b", type=Path, help="a second configuration to compare against")
    ap.add_argument("--outputs-b", type=Path)
    ap.add_argument("--store", type=Path, help="the snapshot's store.duckdb")
    ap.add_argument("--strict-versions", action="store_true")
    ap.add_argument("--bins", type=int, default=DEFAULT_BINS)
    ap.add_argument("--bootstrap", type=int, default=DEFAULT_BOOTSTRAP)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    queries = load_queries(args.queries)
    runs = [load_run(args.run)] + ([load_run(args.run_b)] if args.run_b else [])
    outs = [load_outputs(args.outputs) if args.outputs else None,
            load_outputs(args.outputs_b) if args.outputs_b else None]
    versions = None
    if args.store:
        from structfirst.ingest.duckdb_store import connect_readonly

        docids = {h.docid for run in runs for hits in run.values() for h in hits}
        with connect_readonly(args.store) as con:
            versions = versions_from_store(con, docids)
    records = [per_query(queries, run, outs[i], versions, args.strict_versions)
               for i, run in enumerate(runs)]
    report = summarize(records[0], args.bins, args.bootstrap, args.seed)
    if len(records) == 2:
        report = {"a": report, "b": summarize(records[1], args.bins, args.bootstrap, args.seed),
                  "b_minus_a": compare(records[0], records[1], args.bins, seed=args.seed,
                                       n_boot=args.bootstrap)}
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
