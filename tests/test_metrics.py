"""Metrics on a tiny hand-checked run: ranking measures, calibration, bootstrap, paired test."""

from __future__ import annotations

import math
from datetime import date

import duckdb
import pytest
from structfirst.eval import metrics as M
from structfirst.eval.query_set import parse_query, run_from_lists
from structfirst.ingest.duckdb_store import create_schema, insert_rows


def query(qid, labels, qtype="lookup", answerable=True, jurisdiction="us-federal", **extra):
    rec = {
        "qid": qid, "question": f"question {qid}?", "type": qtype, "as_of": "2016-06-01",
        "jurisdiction": jurisdiction, "answerable": answerable,
        "abstain_reason": None if answerable else "other_jurisdiction",
        "labels": [{"id": i, "grade": g, "valid_from": vf} for i, g, vf in labels],
    }
    rec.update(extra)
    return parse_query(rec)


A, B, C, D, G = (f"/us/usc/t11/s{n}" for n in ("547/b", "547/c", "547/a", "547/f", "101/31"))
X, E, F = "/us/usc/t11/s362/a", "/us/usc/t11/s365/a", "/us/usc/t11/s366/a"
QUERIES = [
    # graded labels: A primary, B and D supporting, C background
    query("q1", [(A, 2, "2010-01-01"), (B, 1, None), (C, 0, None), (D, 1, None)],
          qtype="multi_clause_synthesis",
          expected_verdicts={"s547.b": True, "s547.c.9": False}),
    query("q2", [(G, 2, "2015-01-01")]),
    query("q3", [], answerable=False, jurisdiction="us-ia"),
]
RUN = run_from_lists({
    "q1": [X + "@2010-01-01", A + "@2010-01-01", B + "@2005-10-17", C + "@2005-10-17",
           E + "@2005-10-17", F + "@2005-10-17"],
    "q2": [G + "@2015-01-01", X + "@2010-01-01"],
    "q3": ["/us/cfr/t12/s1013.9/a@2011-12-30"],
})
OUTPUTS = {
    "q1": M.Output(False, 0.8, {"s547.b": True, "s547.c.9": True}),
    "q2": M.Output(True, 0.9),
    "q3": M.Output(True, 0.2),
}


def records():
    return {r.qid: r for r in M.per_query(QUERIES, RUN, OUTPUTS)}


def test_graded_ndcg_recall_precision_by_hand():
    r = records()
    # q1 ranking gains (grades): X 0, A 2, B 1, C 0, E 0, F 0
    dcg = 2 / math.log2(3) + 1 / math.log2(4)  # sum over ranks i of gain_i / log2(i + 1)
    idcg = 2 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)  # gains sorted 2, 1, 1
    assert r["q1"].ir["nDCG@10"] == pytest.approx(dcg / idcg)
    assert r["q1"].ir["R@10"] == pytest.approx(2 / 3)  # A, B of the relevant A, B, D
    assert r["q1"].ir["P@5"] == pytest.approx(2 / 5)
    assert r["q2"].ir == {"nDCG@10": 1.0, "R@10": 1.0, "R@50": 1.0, "R@100": 1.0, "P@5": 0.2}
    assert r["q3"].ir == {}  # unanswerable queries are not ranked against labels
    report = M.summarize(list(r.values()), n_boot=200)
    assert report["overall"]["nDCG@10"]["value"] == pytest.approx((dcg / idcg + 1) / 2, abs=1e-6)
    assert report["overall"]["nDCG@10"]["n"] == 2


def test_version_jurisdiction_evidence_verdicts_abstention():
    r = records()
    assert r["q1"].version_correct == 0.0  # top hit X is no label
    assert r["q2"].version_correct == 1.0  # G@2015-01-01 is the labelled version
    assert r["q1"].evidence_completeness == pytest.approx(2 / 3)
    assert r["q2"].evidence_completeness is None  # only exception and multi-clause queries
    assert r["q1"].verdict_accuracy == 0.5
    assert r["q1"].jurisdiction_correct == 1.0
    assert r["q3"].jurisdiction_correct == 0.0  # a federal hit for an Iowa question
    report = M.summarize(list(r.values()), n_boot=200)
    assert report["overall"]["abstention_precision"]["value"] == 0.5  # q2 wrongly, q3 rightly
    assert report["overall"]["abstention_recall"]["value"] == 1.0
    assert report["overall"]["top1_correct"]["n"] == 2  # the answerable queries
    assert r["q1"].correct == 0.0 and report["overall"]["top1_correct"]["value"] == (
        r["q2"].correct / 2)
    # a version interval from the snapshot that excludes as_of makes the top hit wrong
    versions = {G + "@2015-01-01": M.VersionInfo(date(2015, 1, 1), date(2016, 4, 1), "us-federal")}
    strict = {x.qid: x for x in M.per_query(QUERIES, RUN, OUTPUTS, versions)}
    assert strict["q2"].version_correct == 0.0
    assert strict["q2"].correct == 0.0
    cfpb_query = query("q4", [(G, 2, None)], jurisdiction="us-federal/cfpb")
    (rec,) = M.per_query([cfpb_query], run_from_lists({"q4": [G + "@2015-01-01"]}))
    assert rec.jurisdiction_correct == 0.0  # statute hit for a regulation-only query


P6 = [0.1, 0.2, 0.45, 0.55, 0.8, 0.95]
Y6 = [0, 1, 0, 1, 1, 1]


def test_ece_brier_on_six_points():
    # ten bins: every point alone, ECE = mean |y - p|
    assert M.ece(P6, Y6, bins=10) == pytest.approx((0.1 + 0.8 + 0.45 + 0.45 + 0.2 + 0.05) / 6)
    # five bins: {0.1} {0.2} {0.45, 0.55} {} {0.8, 0.95}
    by_hand = (1 * abs(0 - 0.1) + 1 * abs(1 - 0.2) + 2 * abs(0.5 - 0.5) + 2 * abs(1 - 0.875)) / 6
    assert M.ece(P6, Y6, bins=5) == pytest.approx(by_hand)
    brier = (0.1**2 + 0.8**2 + 0.45**2 + 0.45**2 + 0.2**2 + 0.05**2) / 6
    assert M.brier(P6, Y6) == pytest.approx(brier)



def test_ece_floor_is_what_calibrated_confidences_show_and_shrinks_with_n():
    import numpy as np

    rng = np.random.default_rng(3)
    p = rng.uniform(0, 1, 100)
    floor = M.ece_floor(p, np.zeros(100))
    observed = np.mean([M.ece(p, (rng.uniform(size=100) < p).astype(float)) for _ in range(300)])
    assert floor == pytest.approx(observed, abs=0.01) and floor > 0.05
    assert M.ece_floor(np.tile(p, 10), np.zeros(1000)) < floor / 2  # ~ 1 / sqrt(n)
    assert M.ece_floor(p, np.zeros(100)) == floor  # seeded

def test_aurc_and_selective_prediction():
    # by confidence: 0.95 ok, 0.8 ok, 0.55 ok, 0.45 wrong, 0.2 ok, 0.1 wrong
    risks = [0 / 1, 0 / 2, 0 / 3, 1 / 4, 1 / 5, 2 / 6]
    assert M.aurc(P6, Y6) == pytest.approx(sum(risks) / 6)
    assert M.selective_accuracy(P6, Y6, 0.9) == pytest.approx(4 / 6)  # ceil(5.4) = 6 answered
    assert M.selective_accuracy(P6, Y6, 0.5) == 1.0
    assert M.coverage_at_accuracy(P6, Y6, 0.95) == pytest.approx(3 / 6)
    # equal confidences: averaged over their orders, and a threshold takes both or neither
    assert M.aurc([0.9, 0.9], [1, 0]) == pytest.approx((0.5 / 1 + 1 / 2) / 2)
    assert M.coverage_at_accuracy([0.9, 0.9], [1, 0], 0.95) == 0.0
    with pytest.raises(ValueError):
        M.ece([], [])
    with pytest.raises(ValueError):
        M.brier([1.2], [1])


def test_bootstrap_ci_contains_point_and_is_seeded():
    extract, reduce = M.metric_table()["ece"]
    recs = [M.Record(f"q{i}", "lookup", True, confidence=p, correct=float(y))
            for i, (p, y) in enumerate(zip(P6 * 5, Y6 * 5, strict=True))]
    arrays = extract(recs)
    point, lo, hi = M.bootstrap_ci(arrays, reduce, n_boot=300, seed=7)
    assert point == pytest.approx(M.ece(P6, Y6))
    assert lo <= point <= hi
    assert M.bootstrap_ci(arrays, reduce, n_boot=300, seed=7) == (point, lo, hi)
    assert M.bootstrap_ci(arrays, reduce, n_boot=300, seed=8) != (point, lo, hi)
    extract, reduce = M.metric_table()["nDCG@10"]
    ndcg = extract([M.Record(f"q{i}", "lookup", True, ir={"nDCG@10": v})
                    for i, v in enumerate([0.0, 0.5, 1.0, 0.25])])
    point, lo, hi = M.bootstrap_ci(ndcg, reduce, n_boot=500, seed=1)
    assert point == pytest.approx(0.4375) and lo <= point <= hi


def test_paired_randomization_test():
    good = [M.Record(f"q{i}", "lookup", True, ir={"nDCG@10": 0.9}) for i in range(30)]
    bad = [M.Record(f"q{i}", "lookup", True, ir={"nDCG@10": 0.1}) for i in range(30)]
    extract, reduce = M.metric_table()["nDCG@10"]
    same = M.paired_test(good, good, extract, reduce, n_perm=200, n_boot=100)
    assert same["diff"] == 0.0 and same["p_value"] == 1.0
    diff = M.paired_test(bad, good, extract, reduce, n_perm=500, n_boot=200, seed=3)
    assert diff["diff"] == pytest.approx(0.8)
    assert diff["p_value"] == pytest.approx(1 / 501, abs=1e-6)  # no swap reaches 0.8
    assert diff["ci_low"] == diff["ci_high"] == pytest.approx(0.8)
    assert M.paired_test(bad, good, extract, reduce, n_perm=500, n_boot=200, seed=3) == diff
    with pytest.raises(ValueError, match="same queries"):
        M.paired_test(bad, good[::-1], extract, reduce)


def test_evaluate_report_shape_and_bad_inputs(tmp_path):
    report = M.evaluate(QUERIES, RUN, OUTPUTS, n_boot=100)
    assert report["settings"]["ece_bins"] == 10
    assert set(report) >= {"overall", "lookup", "multi_clause_synthesis"}
    assert report["lookup"]["evidence_completeness"]["value"] is None
    with pytest.raises(ValueError, match="names none of the queries"):
        M.evaluate(QUERIES, run_from_lists({"zz": [A + "@2010-01-01"]}), n_boot=10)
    bad = tmp_path / "out.jsonl"
    bad.write_text('{"qid": "q1", "abstain": false, "confidence": 0.5}\n'
                   '{"qid": "q2", "confidence": 1.5}\n')
    with pytest.raises(M.QuerySetError, match="out.jsonl: line 2: .*confidence"):
        M.load_outputs(bad)


def test_versions_from_a_store_drive_version_correctness():
    con = duckdb.connect()
    create_schema(con)
    row = [None] * 20
    row[:3] = [G + "@2015-01-01", G, "Clause"]
    row[8], row[10], row[11] = "us-federal", date(2015, 1, 1), date(2016, 4, 1)
    insert_rows(con, "artifacts", [row])
    versions = M.versions_from_store(con, [G + "@2015-01-01", X + "@2010-01-01"])
    assert versions == {G + "@2015-01-01": M.VersionInfo(date(2015, 1, 1), date(2016, 4, 1),
                                                         "us-federal")}
    (rec,) = M.per_query([QUERIES[1]], run_from_lists({"q2": [G + "@2015-01-01"]}), None,
                         versions, version_strict=True)
    assert rec.version_correct == 0.0  # as_of 2016-06-01 is after the version's end
    assert rec.ir["nDCG@10"] == 0.0  # strict: a version not in force is not relevant
