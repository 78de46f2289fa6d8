"""`structfirst eval`: the ablation runner on a real two-edition Title 11 index (lexical only)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import typer
from structfirst.cli import eval_cmd
from structfirst.eval import metrics as M
from structfirst.eval.ablation import (
    CALIBRATION_METRICS,
    AblationError,
    bundle_verdicts,
    comparison_pairs,
    select_configurations,
)
from structfirst.eval.query_set import QUERY_TYPES, load_queries, load_run
from structfirst.eval.report import HEADLINE
from structfirst.ingest.duckdb_store import connect_readonly
from structfirst.ingest.pipeline import ingest
from structfirst.ingest.snapshot import open_snapshot
from typer.testing import CliRunner

runner = CliRunner()
CONFIGS = "H0,fast"  # no dense index needed


def _q(qid: str, question: str, qtype: str, as_of: str, labels=(), jurisdiction="us-federal",
       reason=None, **extra) -> dict:
    return {
        "qid": qid, "question": question, "type": qtype, "as_of": as_of,
        "jurisdiction": jurisdiction, "answerable": reason is None, "abstain_reason": reason,
        "labels": [{"id": i, "grade": g} for i, g in labels], "split": "test", **extra,
    }


QUERIES = [
    _q("t-th-1", "What was the §547(c)(9) threshold for a case filed in June 2011?",
       "threshold_check", "2011-06-15", [("/us/usc/t11/s547/c/9", 2), ("/us/usc/t11/s104", 1)]),
    _q("t-ex-1", "A business debtor paid $5,000 to a supplier on an antecedent debt 30 days "
                 "before filing in 2012. Is the payment excepted under § 547(c)(9)?",
       "exception_application", "2012-06-01",
       [("/us/usc/t11/s547/c/9", 2), ("/us/usc/t11/s547/c", 1)],
       facts={"transfer_amount": 5000, "days_before_filing": 30, "debtor_consumer_debts": False},
       expected_verdicts={"s547.c.9": True}),
    _q("t-df-1", "What does 'insider' mean under the Bankruptcy Code if the debtor is a "
                 "corporation?", "definition", "2011-03-01",
       [("/us/usc/t11/s101/31", 2), ("/us/usc/t11/s101/31/B", 1)]),
    _q("t-mc-1", "Which debts obtained by fraud are excepted from discharge under § 523(a)(2)?",
       "multi_clause_synthesis", "2014-03-01",
       [("/us/usc/t11/s523/a/2", 2), ("/us/usc/t11/s523/a/2/A", 1),
        ("/us/usc/t11/s523/a/2/B", 1)]),
    _q("t-jc-1", "What is the Iowa minimum auto liability coverage per person?",
       "jurisdiction_comparison", "2012-03-01", jurisdiction="us-ia",
       reason="other_jurisdiction"),
    _q("t-lk-1", "What did § 547 of the Bankruptcy Code say about preferences?", "lookup",
       "1990-03-01", reason="before_any_version"),
]


@pytest.fixture(scope="module")
def app():
    app = typer.Typer()
    eval_cmd.register(app)
    app.command("noop")(lambda: None)  # keep `eval` a named sub-command
    return app


@pytest.fixture(scope="module")
def index(corpus, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("ablation")
    for year in (2010, 2013):
        target = root / "src" / "title-11" / str(year)
        target.mkdir(parents=True)
        (target / "usc11.htm").symlink_to(corpus / "us-code" / "title-11" / str(year) / "usc11.htm")
    ingest([root / "src" / "title-11"], root / "index", dense=False, progress=False)
    return root / "index"


@pytest.fixture(scope="module")
def query_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("queries") / "tiny.jsonl"
    path.write_text("".join(json.dumps(q) + "\n" for q in QUERIES), "utf-8")
    load_queries(path)  # the hand-made file follows the schema
    return path


@pytest.fixture(scope="module")
def evaluated(app, index, query_file, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ablation-out")
    result = runner.invoke(app, [
        "eval", "--index", str(index), "--queries", str(query_file), "--configs", CONFIGS,
        "--out", str(out), "--bootstrap", "200", "--no-progress",
    ], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "nDCG@10" in result.output and "report.md" in result.output
    return out


def test_run_files_are_trec_runs_of_snapshot_versions(evaluated, index):
    snap = open_snapshot(index)
    with connect_readonly(snap.store_path) as con:
        known = {v for (v,) in con.execute("SELECT version_id FROM artifacts").fetchall()}
    for name in CONFIGS.split(","):
        path = evaluated / "runs" / f"{name}.trec"
        lines = [line.split() for line in path.read_text("utf-8").splitlines()]
        assert lines and all(len(cols) == 6 and cols[1] == "Q0" and cols[5] == name
                             for cols in lines)
        run = load_run(path, known_docids=known)  # every docid is a version id of the snapshot
        assert {"t-th-1", "t-ex-1", "t-df-1", "t-mc-1"} <= set(run)
        for qid, hits in run.items():
            ranks = [int(c[3]) for c in lines if c[0] == qid]
            assert ranks == list(range(1, len(ranks) + 1)) and len(ranks) <= 100
            assert [h.docid for h in hits] == [c[2] for c in lines if c[0] == qid]


def test_outputs_hold_decision_verdicts_and_no_confidence(evaluated):
    outs = {name: M.load_outputs(evaluated / "runs" / f"{name}.outputs.jsonl")
            for name in CONFIGS.split(",")}
    for out in outs.values():
        assert set(out) == {q["qid"] for q in QUERIES}
        assert out["t-jc-1"].abstain and out["t-lk-1"].abstain  # Iowa; before any version
        assert all(o.confidence is None for o in out.values())
    assert outs["H0"]["t-ex-1"].verdicts == {}  # no symbolic plane, no verdicts
    assert outs["fast"]["t-ex-1"].verdicts.get("s547.c.9") in M.VERDICTS


def test_metrics_json_has_every_metric_group_and_comparison(evaluated, query_file, index):
    data = json.loads((evaluated / "metrics.json").read_text("utf-8"))
    assert set(data) == {"header", "configurations", "metrics", "comparisons"}
    h = data["header"]
    assert h["snapshot_id"] == open_snapshot(index).snapshot_id
    assert h["query_set_sha256"] == hashlib.sha256(query_file.read_bytes()).hexdigest()
    assert h["n_queries"] == len(QUERIES) and h["splits"] == ["test"]
    assert list(data["configurations"]) == CONFIGS.split(",")
    names = set(M.metric_table())
    for name in CONFIGS.split(","):
        summary = data["metrics"][name]
        for group in ("overall", *QUERY_TYPES):
            assert set(summary[group]) == names
            for metric in CALIBRATION_METRICS:  # no calibrator yet: not applicable, not faked
                assert summary[group][metric]["value"] is None
                assert "not_applicable" in summary[group][metric]
        assert summary["overall"]["abstention_recall"]["value"] == 1.0
    comp = data["comparisons"]["fast vs H0"]
    assert comp["a"] == "H0" and comp["b"] == "fast"
    assert 0.0 < comp["overall"]["nDCG@10"]["p_value"] <= 1.0
    assert data["metrics"]["H0"]["overall"]["verdict_accuracy"]["value"] == 0.0


def test_metrics_match_an_independent_evaluation_of_the_run_files(evaluated, query_file, index):
    data = json.loads((evaluated / "metrics.json").read_text("utf-8"))
    queries = load_queries(query_file)
    run = load_run(evaluated / "runs" / "fast.trec")
    with connect_readonly(open_snapshot(index).store_path) as con:
        versions = M.versions_from_store(con, {h.docid for hs in run.values() for h in hs})
    outputs = M.load_outputs(evaluated / "runs" / "fast.outputs.jsonl")
    again = M.evaluate(queries, run, outputs, versions, n_boot=200, seed=0)
    for group in ("overall", *QUERY_TYPES):
        for metric in (*HEADLINE, "P@5", "verdict_accuracy", "abstention_precision"):
            assert data["metrics"]["fast"][group][metric] == again[group][metric], (group, metric)


def test_report_names_snapshot_hash_split_and_configurations(evaluated, query_file, index):
    report = (evaluated / "report.md").read_text("utf-8")
    assert open_snapshot(index).snapshot_id in report
    assert hashlib.sha256(query_file.read_bytes()).hexdigest() in report
    assert "**Protocol: user.**" in report and "question and the case date" in report
    assert "- no setting of these configurations was tuned" not in report  # fast has records
    assert "`hierarchy_penalty` chosen on the train split" in report
    for cfg in select_configurations(CONFIGS.split(",")):
        assert cfg.description in report
    assert "### fast vs H0" in report and "p=" in report
    assert f"{len(QUERIES)} (4 answerable" in report


@pytest.mark.parametrize("args, message", [
    (["--configs", "H0,H9"], "unknown configuration(s) H9"),
    (["--configs", "H0,H0"], "named twice"),
    (["--configs", "H1"], "needs the dense index"),
    (["--index", "{tmp}/no-such-index"], "no such index directory"),
    (["--queries", "{tmp}/bad.jsonl"], "bad.jsonl: line 2: not valid JSON"),
])
def test_bad_input_is_a_clear_error_without_traceback(app, index, query_file, tmp_path, args,
                                                      message):
    (tmp_path / "bad.jsonl").write_text(json.dumps(QUERIES[0]) + "\n{oops\n", "utf-8")
    opts = {"--index": str(index), "--queries": str(query_file), "--configs": "H0"}
    for flag, value in zip(args[::2], args[1::2], strict=True):
        opts[flag] = value.format(tmp=tmp_path)
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["eval", *(x for kv in opts.items() for x in kv), "--out", str(out),
              "--no-progress"], env={"COLUMNS": "300"},
    )
    assert result.exit_code == 1
    assert message in " ".join(result.output.split())
    assert "Traceback" not in result.output
    assert not out.exists()  # refused before anything ran


def test_default_protocol_hands_in_no_gold_jurisdiction(app, index, tmp_path):
    """A Title 11 question labeled with a jurisdiction it does not name: the user protocol
    retrieves Title 11 for it; only the oracle protocol would filter it to nothing."""
    question = _q("t-or-1", "Which debts obtained by fraud are excepted from discharge?",
                  "lookup", "2014-03-01", [("/us/usc/t11/s523/a/2", 2)],
                  jurisdiction="us-federal/cfpb")
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps(question) + "\n", "utf-8")
    runs = {}
    for flags in ([], ["--oracle-filters"]):
        out = tmp_path / ("oracle" if flags else "user")
        result = runner.invoke(app, [
            "eval", "--index", str(index), "--queries", str(queries), "--configs", "H0",
            "--out", str(out), "--bootstrap", "50", "--no-progress", *flags,
        ], env={"COLUMNS": "200"})
        assert result.exit_code == 0, result.output
        header = json.loads((out / "metrics.json").read_text("utf-8"))["header"]
        assert header["protocol"]["name"] == ("oracle-filters" if flags else "user")
        runs[header["protocol"]["name"]] = (out / "runs" / "H0.trec").read_text("utf-8")
    assert "/us/usc/t11/" in runs["user"]
    assert runs["oracle-filters"] == ""  # no CFPB text in this index


def test_unknown_configuration_names_the_known_ones():
    known = r"known in .*configurations.toml: BM25-today, BM25-all, H0, H1"
    with pytest.raises(AblationError, match=known):
        select_configurations(["H0", "nope"])


def test_comparisons_are_against_the_previous_configuration_and_h0():
    assert comparison_pairs(["H0", "H1", "H2", "H3"]) == [
        ("H0", "H1"), ("H1", "H2"), ("H2", "H3"), ("H0", "H2"), ("H0", "H3")]
    assert comparison_pairs(["fast", "H1"]) == [("fast", "H1")]


def test_bundle_verdicts_use_the_library_rule_ids():
    verdicts = [
        {"rule": "s547.b", "verdict": "false",
         "supporting": {"s101.31": {"rule": "s101.31", "verdict": "undetermined"}}},
        {"rule": "s547.c.9", "verdict": "true"},
        {"rule": "parameter s547_c_9", "kind": "parameter", "verdict": "value"},
    ]
    assert bundle_verdicts(verdicts) == {
        "s547.b": False, "s547.c.9": True, "s101.31": "undetermined"}
