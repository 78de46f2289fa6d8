"""Bad input at the door and questions without legal content (issue 12, findings 2, 4-6, 8, 9)."""

from __future__ import annotations

import json
import os
import re
import sys
from datetime import date
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from structfirst.cli.main import app
from structfirst.cli.query_cmd import stdout_to_stderr
from structfirst.engine import query_facts, query_parser
from structfirst.engine.configuration import load_configurations
from structfirst.engine.engine import Engine
from structfirst.ingest.index_builder import IndexableDoc
from structfirst.ingest.jsonl_source import MAX_TEXT_CHARS, parse_jsonl
from structfirst.ingest.lucene_index import LuceneIndexBuilder, read_docids
from structfirst.ingest.model import IngestError
from structfirst.ingest.pipeline import ingest
from structfirst.ingest.snapshot import current_id
from structfirst.ingest.uscode import parse_uscode
from typer.testing import CliRunner

pytest_plugins = ["engine_fixtures"]

BASE = {"jurisdiction": "us-ia", "authority": "statute", "effective_from": "2019-07-01"}


def write_jsonl(path: Path, *objs: dict) -> Path:
    path.write_text("".join(json.dumps(o) + "\n" for o in objs), encoding="utf-8")
    return path


@pytest.mark.parametrize("bad_id", ["/a\nb", "/a\u2028b", "/a\fb", "/a b", "/a\x00", "/" * 600])
def test_ids_with_separators_are_refused_and_current_stays(tmp_path: Path, bad_id: str) -> None:
    """Finding 2: an id holding a line separator switched CURRENT to a snapshot no ask read."""
    index = tmp_path / "index"
    good = write_jsonl(tmp_path / "good.jsonl", {"id": "/x", "text": "text", **BASE})
    first = ingest([good], index, dense=False, progress=False).snapshot_id
    bad = write_jsonl(
        tmp_path / "bad.jsonl",
        {"id": "/x", "text": "text", **BASE},
        {"id": bad_id, "text": "more text", **BASE},
    )
    with pytest.raises(IngestError, match=r"bad\.jsonl: line 2, field 'id': not a usable id"):
        ingest([bad], index, dense=False, progress=False)
    assert current_id(index) == first


def test_docids_round_trip_any_id(tmp_path: Path) -> None:
    """Finding 2, storage side: docids are JSON, not lines split by str.splitlines()."""
    ids = ["/a\u2028b@2020-01-01", "/c\nd@2020-01-01", "/e\x0cf@2020-01-01"]
    docs = [IndexableDoc(v, v.split("@")[0], "trustee avoids transfer", "us-federal", "statute",
                         date(2020, 1, 1), None) for v in ids]  # fmt: skip
    LuceneIndexBuilder().build(docs, tmp_path / "lucene")
    assert read_docids(tmp_path / "lucene") == sorted(ids)


def test_oversized_text_names_file_line_field(tmp_path: Path) -> None:
    """Finding 4: a 20 M character text gave a Java and a Python traceback."""
    path = write_jsonl(
        tmp_path / "big.jsonl",
        {"id": "/x", "text": "short", **BASE},
        {"id": "/y", "text": "w " * (MAX_TEXT_CHARS // 2 + 1), **BASE},
    )
    with pytest.raises(IngestError, match=r"big\.jsonl: line 2, field 'text': 1,000,002 char"):
        parse_jsonl(path)


def test_jurisdiction_must_be_one_queries_accept_or_declared(tmp_path: Path) -> None:
    """Finding 9: any jurisdiction string was ingested, then refused by ask."""
    for value, problem in (("Iowa", "write 'us-ia'"), ("mars", "unknown jurisdiction 'mars'")):
        path = write_jsonl(tmp_path / "j.jsonl", {"id": "/x", "text": "t", **BASE,
                                                   "jurisdiction": value})  # fmt: skip
        with pytest.raises(IngestError, match=f"line 1, field 'jurisdiction': .*{problem}"):
            parse_jsonl(path)
    doc = parse_jsonl(path, jurisdictions=["mars"])
    assert doc.nodes[0].jurisdiction == "mars"


def test_us_code_cut_at_a_section_boundary_warns_or_fails(corpus: Path, tmp_path: Path) -> None:
    """Finding 9: a title cut at a section boundary with its closing tags restored ingested
    without a warning, though its table of contents lists every section."""
    text = (corpus / "us-code" / "title-11" / "2018" / "usc11.htm").read_bytes().decode()
    cut = text.index("<!-- itempath:/110/CHAPTER 13/SUBCHAPTER I/Sec. 1301 -->")
    path = tmp_path / "usc11.htm"
    path.write_bytes((text[:cut] + "</div></body></html>\n").encode())
    doc = parse_uscode(path, source_id="usc11-cut")
    (warning,) = [w for w in doc.warnings if "table of contents" in w]
    assert re.search(r"lists \d+ sections the file lacks: 1301, 1501, 1302, ", warning)
    with pytest.raises(IngestError, match="table of contents: its table of contents lists"):
        parse_uscode(path, source_id="usc11-cut", strict=True)
    whole = parse_uscode(corpus / "us-code" / "title-11" / "2018" / "usc11.htm")
    assert not [w for w in whole.warnings if "table of contents" in w]


@pytest.mark.parametrize("question", ["'; DROP TABLE artifacts; --", "title:foo AND (bar OR"])
def test_questions_without_legal_content_abstain(engine: Engine, question: str) -> None:
    """Finding 5: nonsense was answered with a § 101 or § 330 note as top evidence."""
    decision = engine.ask(question, config="fast").decision
    assert not decision.answer and "no legal content" in decision.reason


def test_far_future_as_of_warns(engine: Engine) -> None:
    """Finding 5: --as-of 2999-01-01 answered `s547_c_9 = no value` without a warning."""
    question = "What is the §547(c)(9) threshold?"
    warnings = engine.ask(question, as_of=date(2999, 1, 1), config="fast").decision.warnings
    assert any("in the future" in w for w in warnings)
    assert any("after the latest federal version" in w for w in warnings)
    assert not engine.ask(question, as_of=date(2016, 6, 1), config="fast").decision.warnings


def _sentence_bounds_by_scan(q: str, pos: int) -> tuple[int, int]:
    """The segment between two sentence breaks that holds `pos`, by a scan of every break."""
    ends = [m.end() for m in query_facts._SENTENCE_BREAK.finditer(q)]
    start = max((e for e in ends if e <= pos), default=0)
    return start, min((e for e in ends if e > pos), default=len(q))


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab .?!;\nC", max_size=60), st.integers(min_value=0, max_value=60))
def test_sentence_bounds_by_bisection_match_a_scan(q: str, pos: int) -> None:
    """Finding 6: the bisection that replaced a scan per match finds the same sentences."""
    pos = min(pos, len(q))
    assert query_facts._Sentences(q).bounds(pos) == _sentence_bounds_by_scan(q, pos)


def test_long_amount_runs_keep_their_facts() -> None:
    """Finding 6: the 10,000-character "$1,$1,..." input; the linear-time code still reads
    the facts the windows bound (eval/bench_parse.py prints the time)."""
    parsed = query_parser.parse_query(("$1," * 3334)[: query_parser.MAX_QUESTION_CHARS])
    assert parsed.facts == ()
    # one amount said 200 times (an amount the statute does not aggregate: the same value)
    many = "The debtor owes $6,000 in unsecured debts. " * 200
    facts = query_parser.parse_query(many).fact_values()
    assert facts["noncontingent_unsecured_debts"] == 6000


def test_third_party_stdout_goes_to_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    """Finding 8: colbert-ai's loading lines (Python prints) and Java's (fd 1) went to stdout."""
    with stdout_to_stderr():
        print("[Nov 23, 03:12:18] #> Loading codec...")
        os.write(1, b"java says hi\n")
    sys.stdout.write("{}\n")
    out, err = capfd.readouterr()
    assert out == "{}\n"
    assert "Loading codec" in err and "java says hi" in err


@pytest.mark.parametrize("config", sorted(load_configurations()))
def test_ask_json_stdout_is_json_under_every_configuration(small_index: Path, config: str) -> None:
    """Finding 8: `ask --json` stdout must parse as JSON, or be empty when the command fails."""
    runner = CliRunner()
    result = runner.invoke(
        app, ["ask", "What is the §547(c)(9) threshold?", "--index", str(small_index),
              "--config", config, "--json"],
    )  # fmt: skip
    if result.exit_code == 0:
        assert json.loads(result.stdout)["configuration"] == config
    else:
        assert result.exit_code == 1 and result.stdout == "" and "error" in result.stderr


def test_threaded_answers_match_serial(engine: Engine) -> None:
    """8 threads answer as one thread does (eval/check_threads.py runs 8 x 1,000)."""
    from structfirst.eval.check_threads import mismatches, questions

    bad, _, _ = mismatches(engine, questions(48), threads=8, config="fast")
    assert bad == 0
