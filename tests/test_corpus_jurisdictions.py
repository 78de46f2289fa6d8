"""Jurisdictions come from the corpus: a code of another country ingested through JSONL (its
jurisdiction declared at ingest) is asked in its own jurisdiction, by name or by default when
it is the index's only one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from structfirst.cli import query_cmd
from structfirst.engine.engine import Engine
from structfirst.engine.query_citations import normalize_jurisdiction
from structfirst.engine.query_dates import QueryError
from structfirst.ingest.pipeline import ingest
from typer.testing import CliRunner

ARTICLES = [
    ("/jp/civil-code", "Document", None, "Civil Code of Japan"),
    ("/jp/civil-code/a90", "Section", "/jp/civil-code",
     "A juristic act that is contrary to public policy is void."),
    ("/jp/civil-code/a709", "Section", "/jp/civil-code",
     "A person who has intentionally or negligently infringed any right of others, or legally "
     "protected interest of others, is liable to compensate any damage resulting in "
     "consequence."),
    ("/jp/civil-code/a166", "Section", "/jp/civil-code",
     "A claim is extinguished by prescription if the obligee does not exercise the right within "
     "five years from the time the obligee came to know that it was exercisable."),
]


@pytest.fixture(scope="module")
def jp_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("jp")
    lines = [
        {"id": i, "type": t, "text": text, "jurisdiction": "jp", "authority": "statute",
         "effective_from": "2020-04-01", **({"parent": parent} if parent else {})}
        for i, t, parent, text in ARTICLES
    ]
    source = root / "jp-civil-code.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
    ingest([source], root / "index", dense=False, progress=False,
           parser_options={"jsonl": {"jurisdictions": ("jp",)}})
    return root / "index"


def test_a_declared_jurisdiction_is_accepted_and_us_forms_still_are() -> None:
    assert normalize_jurisdiction("JP", ["jp"]) == "jp"
    assert normalize_jurisdiction("Iowa", ["jp"]) == "us-ia"
    with pytest.raises(QueryError, match="the corpus declares: jp"):
        normalize_jurisdiction("fr", ["jp"])


def test_a_single_jurisdiction_index_answers_in_it_by_default(jp_index: Path) -> None:
    engine = Engine.open(jp_index)
    question = "Who must compensate damage to others caused negligently?"
    by_default = engine.ask(question, config="H0")
    named = engine.ask(question, jurisdiction="jp", config="H0")
    assert by_default.parsed_query["jurisdiction"] == {
        **by_default.parsed_query["jurisdiction"], "value": "jp", "how": "default"}
    assert by_default.decision.answer and by_default.candidates
    assert by_default.candidates[0].node_id == "/jp/civil-code/a709"
    assert [c.version_id for c in named.candidates] == [
        c.version_id for c in by_default.candidates]
    # words that signal US bankruptcy law do not pull a Japanese corpus's question to it
    creditor = engine.ask("When is a creditor's claim extinguished?", config="H0")
    assert creditor.parsed_query["jurisdiction"]["value"] == "jp"
    assert creditor.candidates[0].node_id == "/jp/civil-code/a166"
    iowa = engine.ask("What does Iowa law say about public policy?", config="H0")
    assert not iowa.decision.answer and "Iowa" in iowa.decision.reason


def test_search_takes_jurisdiction_and_as_of_defaults(jp_index: Path, tmp_path: Path) -> None:
    app = typer.Typer()
    query_cmd.register(app)
    topics = tmp_path / "topics.tsv"
    topics.write_text("q1\tIs a contract against public policy valid?\n", "utf-8")
    run = tmp_path / "run.trec"
    result = CliRunner().invoke(app, [
        "search", "--index", str(jp_index), "--topics", str(topics), "--run", str(run),
        "--config", "H0", "--jurisdiction", "jp", "--as-of", "2021-01-01"])
    assert result.exit_code == 0, result.output
    assert run.read_text("utf-8").split()[2] == "/jp/civil-code/a90@2020-04-01"
    early = CliRunner().invoke(app, [
        "search", "--index", str(jp_index), "--topics", str(topics), "--run", str(run),
        "--config", "H0", "--as-of", "2019-01-01"])
    assert early.exit_code == 0 and run.read_text("utf-8") == ""  # nothing in force yet
