"""`Engine.ask` end to end on a small real index (Lucene, DuckDB, pyDatalog): the § 547 worked
example, the dated § 547(c)(9) threshold, bad input and abstentions, concurrent calls."""

from __future__ import annotations

import json
import shutil
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from structfirst.engine.engine import Engine
from structfirst.engine.evidence import EvidenceBundle, EvidenceCandidate
from structfirst.engine.query_parser import QueryError
from structfirst.ingest.java_env import detach_thread
from structfirst.ingest.snapshot import CURRENT_FILE, META_FILE, SNAPSHOTS_DIR, SnapshotError

pytest_plugins = ["engine_fixtures"]

FAST = "fast"
S547 = "/us/usc/t11/s547"
WORKED = (
    "A non-consumer debtor paid a $6,000 invoice to an outside vendor 100 days before filing. "
    "Can the trustee avoid this transfer under § 547?"
)
WORKED_2012 = (
    "A non-consumer debtor paid a $6,000 invoice to an outside vendor 100 days before filing, "
    "in a case filed on March 1, 2012. Can the trustee avoid this transfer under § 547?"
)
ADJUSTMENT_NOTE = "/us/usc/t11/s104/note/adjustment-of-dollar-amounts"
THRESHOLD_2011 = "What was the §547(c)(9) threshold for a case filed in June 2011?"
IOWA = (
    "As of policy issuance on June 1, 2026, what is the Iowa statutory minimum bodily injury "
    "liability per person for a private passenger auto?"
)


def verdict(bundle: EvidenceBundle, rule: str) -> dict[str, Any]:
    found = [v for v in bundle.verdicts if v["rule"] == rule]
    assert found, f"no verdict for {rule}: {[v['rule'] for v in bundle.verdicts]}"
    return found[0]


def premise(v: dict[str, Any], text: str) -> dict[str, Any]:
    found = [p for p in v["premises"] if p["text"] == text]
    assert found, f"{v['rule']} has no premise {text!r}: {[p['text'] for p in v['premises']]}"
    return found[0]


def assert_valid_at(cand: EvidenceCandidate, day: date) -> None:
    start = date.fromisoformat(cand.effective_from) if cand.effective_from else date.min
    end = date.fromisoformat(cand.effective_to) if cand.effective_to else date.max
    assert start <= day < end, f"{cand.version_id} [{start}, {end}) is not in force on {day}"


# -- the § 547 worked example -----------------------------------------------------------------


def test_worked_example_547_today(engine: Engine) -> None:
    bundle = engine.ask(WORKED, config=FAST)
    today = date.today()
    assert bundle.parsed_query["as_of"]["value"] == today.isoformat()
    top3 = [c.node_id for c in bundle.candidates[:3]]
    assert f"{S547}/b" in top3 and f"{S547}/c/9" in top3, top3
    for cand in bundle.candidates + bundle.definitions:
        assert_valid_at(cand, today)

    # § 101(31) ("insider") is reached by a typed walk of the graph plane, down to its definition
    insider = [
        c for c in bundle.candidates + bundle.definitions if c.node_id == "/us/usc/t11/s101/31"
    ]
    assert insider, "the § 101(31) definition of 'insider' was not reached"
    assert "graph" in insider[0].plane_ranks
    assert any(p.endswith("<-defines- s101/31") for p in insider[0].graph_paths), insider[
        0
    ].graph_paths

    b = verdict(bundle, "s547.b")
    c9 = verdict(bundle, "s547.c.9")
    assert b["verdict"] == "false" and c9["verdict"] == "true"
    reach_back = premise(b, "WithinReachBack")
    assert reach_back["value"] == "false" and reach_back["citation"] == f"{S547}/b/4"
    assert premise(b, "antecedent_debt")["value"] == "true"
    amount = premise(c9, "transfer_amount < param(s547_c_9)")
    threshold = amount["parameters"]["s547_c_9"]["value"]
    assert amount["value"] == "true" and amount["detail"] == f"6000 < {threshold}"
    assert premise(c9, "~debtor_consumer_debts")["value"] == "true"

    # the candidates say which verdict they support
    c9_cand = next(c for c in bundle.candidates if c.node_id == f"{S547}/c/9")
    assert any(s["rule"] == "s547.c.9" and s["verdict"] == "true" for s in c9_cand.rule_support)
    assert bundle.decision.answer is True
    assert "s547.b=false" in bundle.decision.reason and "s547.c.9=true" in bundle.decision.reason
    json.loads(bundle.to_json())


def test_worked_example_547_filed_march_2012(engine: Engine) -> None:
    bundle = engine.ask(WORKED_2012, config=FAST, k=100)
    as_of = date(2012, 3, 1)
    assert bundle.parsed_query["as_of"]["value"] == as_of.isoformat()
    c9 = verdict(bundle, "s547.c.9")
    assert c9["verdict"] == "false"
    amount = premise(c9, "transfer_amount < param(s547_c_9)")
    assert amount["value"] == "false" and amount["detail"] == "6000 < 5850"
    assert amount["parameters"]["s547_c_9"]["value"] == 5850
    assert verdict(bundle, "s547.b")["verdict"] == "false"  # 100 days: outside the 90
    for cand in bundle.candidates + bundle.definitions:
        assert_valid_at(cand, as_of)
    c9_cand = next(c for c in bundle.candidates if c.node_id == f"{S547}/c/9")
    assert "$5,850" in c9_cand.text
    # the exception's amount in force comes with the § 104 table that set it (2010's)
    (table,) = [c for c in bundle.candidates if c.node_id == ADJUSTMENT_NOTE]
    assert any(
        p.endswith("s547/c/9 <-annotates- s104/note/adjustment-of-dollar-amounts")
        for p in table.graph_paths
    ), table.graph_paths
    assert_valid_at(table, as_of)


def test_seed_section_itself_below_the_top_k(engine: Engine) -> None:
    """Here § 547 itself seeds the walk (its rules stay undetermined on the reach-back), so a
    one-node path "s547" ranks below the top k; the definitions filter once crashed on it."""
    question = WORKED_2012.replace(
        "100 days before filing, in a case filed", "100 days before a case filed"
    )
    bundle = engine.ask(question, config=FAST, k=5)
    assert verdict(bundle, "s547.c.9")["verdict"] == "false"
    assert bundle.parsed_query["seeds"] == [S547]
    assert bundle.definitions
    for cand in bundle.definitions:
        assert cand.rank > 5
        assert any(p.rsplit(" ", 2)[-2:-1] == ["<-defines-"] for p in cand.graph_paths)


def test_threshold_in_june_2011(engine: Engine) -> None:
    bundle = engine.ask(THRESHOLD_2011, config=FAST)
    as_of = date(2011, 6, 15)
    assert bundle.parsed_query["as_of"]["value"] == as_of.isoformat()
    top = bundle.candidates[0]
    assert top.node_id == f"{S547}/c/9"
    assert "$5,850" in top.text and "$6,225" not in top.text
    assert_valid_at(top, as_of)
    lookup = verdict(bundle, "parameter s547_c_9")
    assert lookup["verdict"] == "value" and lookup["value"]["value"] == 5850
    assert lookup["value"]["from"] <= as_of.isoformat() < lookup["value"]["to"]
    for cand in bundle.candidates + bundle.definitions:
        assert cand.effective_from is None or cand.effective_from < "2013-01-01", cand.version_id
        assert_valid_at(cand, as_of)
    # the § 104 table that set the amount in force is reached from the clause it adjusts
    (table,) = [c for c in bundle.candidates if c.node_id == ADJUSTMENT_NOTE]
    assert "s547/c/9 <-annotates- s104/note/adjustment-of-dollar-amounts" in table.graph_paths
    assert bundle.decision.answer is True


# -- bad input and abstentions ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "message"),
    [
        ("", "the question is empty"),
        ("   \n\t ", "the question is empty"),
        ("x" * 100_000, "100,000 characters long; the limit is 10,000"),
        ("What is an insider? " * 5_000, "100,000 characters long; the limit is 10,000"),
        (
            "As of February 30, 2016, what is the §547(c)(9) threshold?",
            "impossible date 'February 30, 2016'",
        ),
    ],
    ids=["empty", "blank", "100kB", "100kB-words", "impossible-date"],
)
def test_bad_question_is_a_query_error(engine: Engine, question: str, message: str) -> None:
    with pytest.raises(QueryError, match=message):
        engine.ask(question, config=FAST)


def test_unknown_jurisdiction_and_configuration(engine: Engine) -> None:
    with pytest.raises(QueryError, match="unknown jurisdiction 'us-mars'"):
        engine.ask("What does 'insider' mean?", jurisdiction="us-mars", config=FAST)
    with pytest.raises(ValueError, match="unknown configuration 'H9'"):
        engine.ask("What does 'insider' mean?", config="H9")


def test_unknown_citation_abstains_naming_it(engine: Engine) -> None:
    bundle = engine.ask(
        "Can the trustee avoid a transfer under § 547(c)(12)?", as_of=date(2016, 6, 1), config=FAST
    )
    assert bundle.decision.answer is False
    assert f"{S547}/c/12" in bundle.decision.reason
    assert "does not exist" in bundle.decision.reason


def test_iowa_abstains(engine: Engine) -> None:
    bundle = engine.ask(IOWA, config=FAST)
    assert bundle.parsed_query["jurisdiction"]["value"] == "us-ia"
    assert bundle.decision.answer is False
    assert bundle.decision.reason == "no Iowa law in the corpus"
    assert bundle.candidates == []


def test_state_beside_federal_law_answers_under_federal_law_with_a_warning(
    engine: Engine,
) -> None:
    bundle = engine.ask(
        "An Iowa company filed chapter 7 in 2016. Can the trustee avoid a preferential "
        "transfer it made?",
        config=FAST,
    )
    assert bundle.parsed_query["jurisdiction"]["value"] == "us-federal"
    assert bundle.candidates
    assert {c.jurisdiction for c in bundle.candidates} <= {"us-federal", "us-federal/cfpb"}
    assert (
        "the question names Iowa, whose law is not in the corpus: the answer is federal law only"
        in bundle.decision.warnings
    )


@pytest.mark.parametrize(
    "question",
    [
        "What was the §547(c)(9) threshold as of 1990?",
        "What does 'insider' mean as of 1990?",
        "Who runs the creditors' meeting in a chapter 7 case, as of 1990?",
    ],
)
def test_date_before_any_version_abstains(engine: Engine, question: str) -> None:
    bundle = engine.ask(question, config=FAST)
    assert bundle.parsed_query["as_of"]["value"].startswith("1990-")
    assert bundle.decision.answer is False
    assert bundle.candidates == []
    day = bundle.parsed_query["as_of"]["value"]
    earliest = engine.catalog.earliest_start("us-federal")
    assert earliest is not None and earliest.isoformat() > day
    assert bundle.decision.reason == (
        f"no federal text is valid on {day}; its earliest version starts {earliest.isoformat()}"
    )


def test_missing_index_dir_names_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "no-index"
    with pytest.raises(SnapshotError, match=f"{missing}: no such index directory"):
        Engine.open(missing)
    missing.mkdir()
    with pytest.raises(SnapshotError, match=f"{missing / CURRENT_FILE}: missing"):
        Engine.open(missing)


def test_half_written_index_names_the_path(small_index: Path, tmp_path: Path) -> None:
    index = tmp_path / "index"
    snap_id = (small_index / CURRENT_FILE).read_text().strip()
    shutil.copytree(small_index / SNAPSHOTS_DIR / snap_id, index / SNAPSHOTS_DIR / snap_id)
    (index / CURRENT_FILE).write_text(snap_id + "\n")
    assert Engine.open(index).snapshot.snapshot_id == snap_id  # the copy is a working index

    meta = index / SNAPSHOTS_DIR / snap_id / META_FILE
    meta.unlink()  # an ingest that died before writing meta.json
    with pytest.raises(SnapshotError, match=f"{meta}: missing; snapshot {snap_id} is half-written"):
        Engine.open(index)

    (index / CURRENT_FILE).write_text("20990101-gone\n")  # CURRENT names a missing snapshot
    gone = index / SNAPSHOTS_DIR / "20990101-gone"
    with pytest.raises(SnapshotError, match=f"{gone}: snapshot named by .*{CURRENT_FILE}"):
        Engine.open(index)


# -- concurrency ---------------------------------------------------------------------------------

CONCURRENT_QUESTIONS = [
    (WORKED, None),
    (WORKED_2012, None),
    (THRESHOLD_2011, None),
    ("What does 'insider' mean under the Bankruptcy Code if the debtor is a corporation?", None),
    ("Who presides at the meeting of creditors?", date(2010, 6, 1)),
    ("What must a lessor disclose before consummation of a consumer lease?", date(2016, 1, 1)),
    ("What are all the requirements to avoid a preference under § 547(b)?", date(2014, 5, 1)),
    ("Can the trustee avoid a transfer under § 547(c)(12)?", None),
]


def outcome(bundle: EvidenceBundle) -> tuple:
    return (
        [(c.version_id, round(c.fused_score, 12), c.graph_paths) for c in bundle.candidates],
        [c.version_id for c in bundle.definitions],
        [(v["rule"], v["verdict"]) for v in bundle.verdicts],
        (bundle.decision.answer, bundle.decision.reason),
    )


def test_concurrent_asks_match_sequential(engine: Engine) -> None:
    expected = [outcome(engine.ask(q, as_of=d, config=FAST)) for q, d in CONCURRENT_QUESTIONS]
    assert sum(bool(e[0]) for e in expected) >= 6  # most of them have candidates

    def one(i: int) -> tuple:
        q, d = CONCURRENT_QUESTIONS[i % len(CONCURRENT_QUESTIONS)]
        try:
            return outcome(engine.ask(q, as_of=d, config=FAST))
        finally:
            detach_thread()

    with ThreadPoolExecutor(max_workers=8) as pool:
        got = list(pool.map(one, range(3 * len(CONCURRENT_QUESTIONS))))
    for i, result in enumerate(got):
        assert result == expected[i % len(expected)], CONCURRENT_QUESTIONS[i % len(expected)][0]


def test_configuration_needing_a_missing_index_is_refused(engine: Engine) -> None:
    """The small index has no dense/ColBERT index: H1 must not silently run as H0."""
    with pytest.raises(ValueError, match="needs the dense index"):
        engine.ask("What does 'insider' mean?", config="H1")


def test_demote_enclosed_moves_a_clause_below_the_next_provision(engine: Engine) -> None:
    from structfirst.engine.stages import demote_enclosed
    from structfirst.fusion.rrf import FusedCandidate

    today = date(2018, 6, 1)
    ids = ["/us/usc/t11/s547/b", "/us/usc/t11/s547/b/4", "/us/usc/t11/s547/c/9"]
    versions = [engine.catalog.version_at(node, today).version_id for node in ids]
    fused = [FusedCandidate(v) for v in versions]
    order = [c.version_id for c in demote_enclosed(fused, engine.catalog, penalty=1)]
    assert order == [versions[0], versions[2], versions[1]]
    assert [c.version_id for c in demote_enclosed(fused[1:], engine.catalog, 1)] == versions[1:]
