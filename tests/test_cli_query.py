"""`structfirst ask`, `search` and `demo` on a small real index: JSON bundles, TREC runs, and a
clean error exit (code 1, a message naming the problem, no traceback) on bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from click.testing import Result
from structfirst.cli import query_cmd
from structfirst.ingest.snapshot import CURRENT_FILE, META_FILE, SNAPSHOTS_DIR
from typer.testing import CliRunner

pytest_plugins = ["engine_fixtures"]

runner = CliRunner()
WORKED = (
    "A non-consumer debtor paid a $6,000 invoice to an outside vendor 100 days before filing. "
    "Can the trustee avoid this transfer under § 547?"
)


@pytest.fixture(scope="module")
def app() -> typer.Typer:
    app = typer.Typer()
    query_cmd.register(app)
    return app


def squash(text: str) -> str:
    """Without whitespace: rich wraps (and folds long paths in) messages at the console width."""
    return "".join(text.split())


def assert_clean_error(result: Result, *needles: str) -> None:
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit), result.exception  # no uncaught exception
    assert "Traceback" not in result.output
    assert "error:" in result.stderr
    for needle in needles:
        assert squash(needle) in squash(result.stderr), (needle, result.stderr)


# -- ask ------------------------------------------------------------------------------------------


def test_ask_json_is_a_bundle(app: typer.Typer, small_index: Path) -> None:
    result = runner.invoke(
        app, ["ask", WORKED, "--index", str(small_index), "--config", "fast"] + ["--json"]
    )
    assert result.exit_code == 0, result.output
    bundle = json.loads(result.stdout)
    assert bundle["question"] == WORKED and bundle["configuration"] == "fast"
    assert bundle["decision"]["answer"] is True
    top3 = [c["node_id"] for c in bundle["candidates"][:3]]
    assert "/us/usc/t11/s547/b" in top3 and "/us/usc/t11/s547/c/9" in top3
    assert {v["rule"]: v["verdict"] for v in bundle["verdicts"]}["s547.c.9"] == "true"
    assert all("@" in c["version_id"] for c in bundle["candidates"])


def test_ask_as_of_option(app: typer.Typer, small_index: Path) -> None:
    args = ["ask", "What is the §547(c)(9) threshold?", "--index", str(small_index)]
    result = runner.invoke(app, [*args, "--as-of", "2011-06-15", "--config", "fast", "--json"])
    assert result.exit_code == 0, result.output
    bundle = json.loads(result.stdout)
    as_of = bundle["parsed_query"]["as_of"]
    assert as_of["value"] == "2011-06-15" and as_of["how"] == "caller"
    assert bundle["candidates"][0]["version_id"] == "/us/usc/t11/s547/c/9@2010-04-01"


def test_ask_readable_output(app: typer.Typer, small_index: Path) -> None:
    result = runner.invoke(
        app,
        ["ask", WORKED, "--index", str(small_index), "--config", "fast"],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    out = squash(result.stdout)
    assert squash("s547.c.9 = true") in out and squash("ANSWER: rules decided") in out
    # each fact with the words it was read from
    assert squash("transfer_amount = 6000 ('$6,000'); creditor_is_insider = False "
                  "('outside vendor')") in out


@pytest.mark.parametrize(
    ("question", "extra", "needles"),
    [
        ("", [], ["the question is empty"]),
        ("x" * 100_000, [], ["100,000 characters long; the limit is 10,000"]),
        (
            "As of February 30, 2016, what is the §547(c)(9) threshold?",
            [],
            ["impossible date 'February 30, 2016'"],
        ),
        (
            "What does 'insider' mean?",
            ["--jurisdiction", "us-mars"],
            ["unknown jurisdiction 'us-mars'"],
        ),
        (
            "What does 'insider' mean?",
            ["--as-of", "2016-02-30"],
            ["--as-of '2016-02-30'", "ISO date"],
        ),
        ("What does 'insider' mean?", ["--config", "H9"], ["unknown configuration 'H9'"]),
    ],
    ids=["empty", "100kB", "impossible-date", "unknown-jurisdiction", "bad-as-of", "bad-config"],
)
def test_ask_bad_input_exits_cleanly(
    app: typer.Typer, small_index: Path, question: str, extra: list[str], needles: list[str]
) -> None:
    result = runner.invoke(
        app, ["ask", question, "--index", str(small_index), "--config", "fast", *extra]
    )
    assert_clean_error(result, *needles)


def test_ask_bad_index_names_the_path(app: typer.Typer, small_index: Path, tmp_path: Path) -> None:
    question = "What does 'insider' mean?"
    missing = tmp_path / "missing"
    result = runner.invoke(app, ["ask", question, "--index", str(missing)])
    assert_clean_error(result, f"{missing}: no such index directory")

    index = tmp_path / "half"
    snap_id = (small_index / CURRENT_FILE).read_text().strip()
    (index / SNAPSHOTS_DIR / snap_id).mkdir(parents=True)  # staged, never finished
    (index / CURRENT_FILE).write_text(snap_id + "\n")
    result = runner.invoke(app, ["ask", question, "--index", str(index)])
    assert_clean_error(result, f"{index / SNAPSHOTS_DIR / snap_id / META_FILE}: missing")

    (index / CURRENT_FILE).write_text("gone\n")
    result = runner.invoke(app, ["ask", question, "--index", str(index)])
    assert_clean_error(result, f"{index / SNAPSHOTS_DIR / 'gone'}: snapshot named by")


@pytest.mark.parametrize(
    ("question", "needle"),
    [("", "the question is empty"), ("y" * 100_000, "the limit is 10,000 characters")],
    ids=["empty", "100kB"],
)
def test_structfirst_command_exits_cleanly(small_index: Path, question: str, needle: str) -> None:
    """The installed `structfirst` entry point, in its own process."""
    exe = Path(sys.executable).with_name("structfirst")  # the venv's script, not PATH's
    assert exe.is_file(), f"the structfirst console script is not installed beside {sys.executable}"
    proc = subprocess.run(
        [str(exe), "ask", question, "--index", str(small_index), "--config", "fast"],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "400"},
        timeout=300,
    )
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    assert "error:" in proc.stderr and needle in proc.stderr
    assert proc.stdout == ""


# -- search -------------------------------------------------------------------------------------


def test_search_writes_a_trec_run(app: typer.Typer, small_index: Path, tmp_path: Path) -> None:
    topics = tmp_path / "topics.tsv"
    topics.write_text(
        "q1\tWhat was the §547(c)(9) threshold for a case filed in June 2011?\n"
        "q2\tWho presides at the meeting of creditors?\t2010-06-01\n"
        "\n"
        f"q3\t{WORKED}\t\n"
        "q4\tWhat is the Iowa statutory minimum bodily injury liability per person?\n",
        encoding="utf-8",
    )
    run = tmp_path / "out" / "run.trec"
    result = runner.invoke(
        app,
        ["search", "--index", str(small_index), "--topics", str(topics), "--run", str(run)]
        + ["--config", "fast", "--k", "10"],
    )
    assert result.exit_code == 0, result.output
    rows = [line.split() for line in run.read_text(encoding="utf-8").splitlines()]
    assert rows and all(len(r) == 6 for r in rows)
    by_qid: dict[str, list[list[str]]] = {}
    for row in rows:
        by_qid.setdefault(row[0], []).append(row)
    assert set(by_qid) == {"q1", "q2", "q3"}  # q4 (Iowa) abstains with no candidates
    for qid, qrows in by_qid.items():
        assert len(qrows) <= 10
        assert [int(r[3]) for r in qrows] == list(range(1, len(qrows) + 1)), qid
        scores = [float(r[4]) for r in qrows]
        assert scores == sorted(scores, reverse=True), qid
        for _, q0, docid, _, _, tag in qrows:
            assert q0 == "Q0" and tag == "fast"
            node, _, start = docid.partition("@")
            assert node.startswith("/us/") and len(start) == 10, docid
    assert by_qid["q1"][0][2] == "/us/usc/t11/s547/c/9@2010-04-01"
    assert all(r[2].split("@")[1] <= "2010-06-01" for r in by_qid["q2"])


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (
            "q1\tWhat is an insider?\nq2 no tabs here\n",
            "topics.tsv:2: expected qid<TAB>question[<TAB>as_of], got 1 fields",
        ),
        ("q1\tWhat is an insider?\tsoon\n", "topics.tsv:1: as_of 'soon' is not an ISO date"),
        ("q1\ta\tb\tc\td\n", "topics.tsv:1: expected qid<TAB>question[<TAB>as_of], got 5 fields"),
        ("\n\n", "topics.tsv: no topics"),
        ("q1\tWhat is an insider?\nq2\t \n", "topics.tsv: query q2: the question is empty"),
    ],
)
def test_search_bad_topics_name_file_and_line(
    app: typer.Typer, small_index: Path, tmp_path: Path, text: str, needle: str
) -> None:
    topics = tmp_path / "topics.tsv"
    topics.write_text(text, encoding="utf-8")
    result = runner.invoke(
        app,
        ["search", "--index", str(small_index), "--topics", str(topics)]
        + ["--run", str(tmp_path / "run.trec"), "--config", "fast"],
    )
    assert_clean_error(result, str(tmp_path / needle))


def test_search_missing_topics_file(app: typer.Typer, small_index: Path, tmp_path: Path) -> None:
    topics = tmp_path / "nope.tsv"
    result = runner.invoke(
        app,
        ["search", "--index", str(small_index), "--topics", str(topics)]
        + ["--run", str(tmp_path / "run.trec")],
    )
    assert_clean_error(result, f"{topics}: no such topics file")


# -- demo ---------------------------------------------------------------------------------------


def test_demo_answers_and_abstains(app: typer.Typer, small_index: Path) -> None:
    result = runner.invoke(app, ["demo", "--index", str(small_index), "--config", "fast"])
    assert result.exit_code == 0, result.output
    out = squash(result.stdout)
    assert out.count("ANSWER:") == 3 and out.count("ABSTAIN:") == 1
    assert squash("ABSTAIN: no Iowa law in the corpus") in out
