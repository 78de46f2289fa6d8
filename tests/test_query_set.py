"""Query-set schema and loading, run files, version intervals, and the built data set."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import date

import duckdb
import pytest
from structfirst.eval.build_query_set import (
    QUERIES_DIR,
    assign_splits,
    reference_verdicts,
    split_unit,
)
from structfirst.eval.query_set import (
    QUERY_TYPES,
    SPLITS,
    QuerySetError,
    fill_version_intervals,
    load_queries,
    load_run,
    load_verdict_questions,
    parse_query,
    verdict_disagreements,
)
from structfirst.ingest.duckdb_store import create_schema, insert_rows
from structfirst.rules.library_loader import default_library

GOOD = {
    "qid": "t-1", "question": "Can the trustee claw back a small payment?",
    "type": "threshold_check", "as_of": "2016-06-01", "jurisdiction": "us-federal",
    "answerable": True, "abstain_reason": None,
    "labels": [{"id": "/us/usc/t11/s547/c/9", "grade": 2, "why": "the floor",
                "valid_from": None, "valid_to": None}],
    "facts": {"transfer_amount": 5000, "debtor_consumer_debts": False},
    "expected_verdicts": {"s547.c.9": True}, "origin": "handwritten",
    "provision": "/us/usc/t11/s547", "split": None,
}


def write(tmp_path, records, name="q.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def variant(**changes):
    rec = json.loads(json.dumps(GOOD))
    rec.update(changes)
    return rec


def test_loads_a_valid_query(tmp_path):
    (q,) = load_queries(write(tmp_path, [GOOD]))
    assert q.as_of == date(2016, 6, 1) and q.primary_ids() == {"/us/usc/t11/s547/c/9"}
    assert q.to_record() == GOOD


@pytest.mark.parametrize(
    ("records", "message"),
    [
        ([GOOD, variant(question="another")], r"line 2: duplicate qid 't-1' \(first seen in"),
        ([variant(labels=[])], r"line 1: .*no label of grade 1 or 2 \(missing labels\)"),
        ([variant(labels=[{"id": "/us/usc/t11/s547", "grade": 0}])], "missing labels"),
        ([variant(type="trivia")], "line 1: query t-1: unknown type 'trivia'"),
        ([variant(as_of="2016-13-01")], "as_of is not an ISO date"),
        ([variant(labels=[{"id": "/us/usc/t11/s547", "grade": 3}])], "unknown grade 3"),
        ([variant(answerable=False)], "needs abstain_reason"),
        ([variant(facts={"height": 3})], "height: not a declared fact"),
        ([variant(expected_verdicts={"s547.c.9": "maybe"})], "true, false or"),
        ([variant(expected_verdicts={"Except547c9": True})], "unknown rule 'Except547c9'"),
        ([variant(labels=[{"id": "/us/usc/t11/s547@2016-01-01", "grade": 2}])], "version"),
    ],
)
def test_bad_query_sets_name_file_and_line(tmp_path, records, message):
    path = write(tmp_path, records)
    with pytest.raises(QuerySetError, match=message) as err:
        load_queries(path)
    assert str(path) in str(err.value)


def test_duplicate_qids_across_files(tmp_path):
    a, b = write(tmp_path, [GOOD], "a.jsonl"), write(tmp_path, [GOOD], "b.jsonl")
    with pytest.raises(QuerySetError, match=r"b\.jsonl: line 1: duplicate qid"):
        load_queries([a, b])


def test_run_files(tmp_path):
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 /us/usc/t11/s547/b@2005-10-17 2 4.0 x\n"
                   "q1 Q0 /us/usc/t11/s547/c/9@2016-04-01 1 9.5 x\n")
    hits = load_run(run)["q1"]
    assert [h.node_id for h in hits] == ["/us/usc/t11/s547/c/9", "/us/usc/t11/s547/b"]
    assert hits[0].start == date(2016, 4, 1) and hits[0].rank == 1
    known = {"/us/usc/t11/s547/b@2005-10-17"}
    with pytest.raises(QuerySetError, match=r"run\.trec: line 2: unknown docid"):
        load_run(run, known_docids=known)
    empty = tmp_path / "empty.trec"
    empty.write_text("\n")
    with pytest.raises(QuerySetError, match="empty.trec: file: empty run"):
        load_run(empty)
    bad = tmp_path / "bad.trec"
    bad.write_text("q1 Q0 /us/usc/t11/s547/b@2005-10-17 1\n")
    with pytest.raises(QuerySetError, match="bad.trec: line 1: expected 6 columns"):
        load_run(bad)


def test_fill_version_intervals_from_a_store():
    con = duckdb.connect()
    create_schema(con)
    rows = []
    for vid, node, start, end in [
        ("/us/usc/t11/s547/c/9@2013-04-01", "/us/usc/t11/s547/c/9", date(2013, 4, 1),
         date(2016, 4, 1)),
        ("/us/usc/t11/s547/c/9@2016-04-01", "/us/usc/t11/s547/c/9", date(2016, 4, 1), None),
    ]:
        row = [None] * 20
        row[0], row[1], row[2], row[10], row[11] = vid, node, "Clause", start, end
        rows.append(row)
    insert_rows(con, "artifacts", rows)
    q = parse_query(GOOD)
    early = parse_query(variant(qid="t-2", as_of="2001-01-01"))
    report = fill_version_intervals([q, early], con)
    assert report == {"filled": 1, "missing": [("t-2", "/us/usc/t11/s547/c/9")]}
    assert (q.labels[0].valid_from, q.labels[0].valid_to) == (date(2016, 4, 1), None)
    assert q.labels[0].version_id == "/us/usc/t11/s547/c/9@2016-04-01"


def test_reference_verdicts_are_the_librarys_and_follow_the_dated_thresholds():
    facts = {"transfer_amount": 6000, "days_before_filing": 45, "debtor_consumer_debts": False,
             "antecedent_debt": True, "creditor_is_insider": False}
    rules = ["s547.c.9", "s547.b"]
    # floor $5,850 until March 31, 2013: not excepted, and (b)(5) and the other exceptions
    # are not stated, so avoidability is undetermined
    assert reference_verdicts(facts, date(2013, 3, 31), rules) == {
        "s547.c.9": False, "s547.b": "undetermined"}
    # $6,225 from April 1, 2013: (c)(9) protects it, so the trustee cannot avoid it
    assert reference_verdicts(facts, date(2013, 4, 1), rules) == {
        "s547.c.9": True, "s547.b": False}
    assert reference_verdicts(facts, date(2004, 6, 1), rules)["s547.c.9"] is False  # none
    wages = {"wage_claim_amount": 4800, "days_wages_earned_before_filing": 60}
    assert reference_verdicts(wages, date(2003, 7, 21), ["s507.a.4.cap"]) == {
        "s507.a.4.cap": False}  # $4,650 cap
    insider = {"relationship": "close_personal", "debtor_kind": "individual",
               "days_before_filing": 200, "antecedent_debt": True, "debtor_insolvent": True}
    assert reference_verdicts(insider, date(2012, 1, 1), ["s101.31", "s547.b"]) == {
        "s101.31": "undetermined", "s547.b": "undetermined"}


QUERY_FILES = [QUERIES_DIR / f"{s}.jsonl" for s in SPLITS]


def test_every_expected_verdict_is_the_librarys_on_the_gold_facts() -> None:
    """The build check: the rule library on each labeled query's gold facts gives its label."""
    queries = load_queries(QUERY_FILES)
    assert sum(1 for q in queries if q.expected_verdicts) == 88
    assert verdict_disagreements(queries, default_library()) == []


@pytest.mark.parametrize(
    ("name", "count"),
    [("verdict_dev", 69), ("verdict_dev2", 87), ("verdict_check", 60), ("verdict_dev3", 48),
     ("verdict_check2", 64), ("verdict_check3", 72), ("verdict_check4", 72),
     ("verdict_check5", 72), ("verdict_check6", 72), ("verdict_check7", 72),
     ("verdict_check8", 72), ("verdict_check9", 72), ("verdict_check10", 72),
     ("verdict_check11", 72), ("verdict_check12", 72), ("verdict_check13", 72),
     ("verdict_check14", 72), ("verdict_check15", 72), ("verdict_check16", 72),
     ("verdict_check17", 72), ("verdict_check18", 72), ("verdict_check19", 72),
     ("verdict_check20", 72), ("verdict_check21", 72), ("verdict_check22", 72),
     ("verdict_check23", 72), ("verdict_check24", 72), ("verdict_check25", 72),
     ("verdict_check26", 72), ("verdict_check27", 72), ("verdict_check28", 72),
     ("verdict_check29", 72), ("verdict_check30", 72), ("verdict_check31", 72),
     ("verdict_check32", 72), ("verdict_check33", 72), ("verdict_check34", 72),
     ("verdict_check35", 72), ("verdict_check36", 72), ("verdict_check37", 72),
     ("verdict_check38", 72), ("verdict_check39", 72), ("verdict_check40", 72),
     ("verdict_check41", 72), ("verdict_check42", 72), ("verdict_check43", 72),
     ("verdict_check44", 72), ("verdict_check45", 72), ("verdict_check46", 72),
     ("verdict_check47", 72), ("verdict_check48", 72), ("verdict_check49", 72)],
)
def test_every_verdict_question_of_the_rules_sets_is_the_librarys_on_its_facts(
    name: str, count: int,
) -> None:
    """The same build check for the blind verdict question sets of the rules alone
    (`eval.verdict_accuracy --questions`)."""
    questions = load_verdict_questions(QUERIES_DIR / f"{name}.toml")
    assert len(questions) == count
    assert verdict_disagreements(questions, default_library()) == []


def test_a_planted_disagreement_fails_the_check() -> None:
    queries = [q for q in load_queries(QUERY_FILES) if q.qid == "hw-049"]
    assert queries[0].expected_verdicts["s547.c.9"] is False  # $6,000 over the $5,850 floor
    queries[0].expected_verdicts["s547.c.9"] = True
    problems = verdict_disagreements(queries, default_library())
    assert problems == ["hw-049: s547.c.9 is labeled true, the library on the gold facts gives "
                        "false"]


def test_gold_facts_and_rule_ids_must_be_the_librarys(tmp_path) -> None:
    for change, message in (
        ({"facts": {"relationship": "customer"}}, "relationship: expected one of none"),
        ({"facts": {"transfer_amout": 5}}, "did you mean transfer_amount?"),
        ({"expected_verdicts": {"Avoidable547b": True}}, "unknown rule 'Avoidable547b'"),
    ):
        with pytest.raises(QuerySetError, match=re.escape(message)):
            load_queries(write(tmp_path, [variant(**change)]))


def test_splits_keep_units_together_and_are_seeded():
    qs = []
    for i in range(60):
        qs.append(parse_query(variant(
            qid=f"s-{i}", type=QUERY_TYPES[i % 6], provision=f"/us/usc/t11/s{500 + i // 3}")))
    assign_splits(qs, seed=5)
    first = [q.split for q in qs]
    assign_splits(qs, seed=5)
    assert [q.split for q in qs] == first
    sides = {}
    for q in qs:
        sides.setdefault(split_unit(q), set()).add(q.split)
    assert all(len(s) == 1 for s in sides.values())
    counts = Counter(first)
    assert counts["train"] > counts["test"] > counts["dev"] > 0


def test_the_built_query_set():
    all_q = load_queries(QUERIES_DIR / "all.jsonl")
    parts = load_queries([QUERIES_DIR / f"{s}.jsonl" for s in ("train", "dev", "test")])
    assert sorted(q.qid for q in parts) == sorted(q.qid for q in all_q)
    assert len(all_q) >= 400
    by_type = Counter(q.type for q in all_q)
    assert set(by_type) == set(QUERY_TYPES) and max(by_type.values()) < 1.3 * min(by_type.values())
    assert sum(not q.answerable for q in all_q) >= 0.1 * len(all_q)
    assert sum(q.origin == "handwritten" for q in all_q) >= 120
    assert all(1995 <= q.as_of.year <= 2026 for q in all_q if q.answerable)
    units = {}
    hand = load_queries(QUERIES_DIR / "handwritten.jsonl")
    assert all(q.provision for q in hand) and {q.qid for q in hand} <= {q.qid for q in all_q}
    for q in all_q:
        assert q.provision.startswith(("/us/", "state:"))
        units.setdefault(split_unit(q), set()).add(q.split)
        for lab in q.labels:
            assert lab.why and lab.valid_from is not None and lab.valid_from <= q.as_of
            assert lab.valid_to is None or q.as_of < lab.valid_to
    assert all(len(s) == 1 for s in units.values())
    review = json.loads((QUERIES_DIR / "review.json").read_text())
    assert review["sample_size"] == 100 and -1 <= review["kappa_node"]["kappa"] <= 1
