"""Property-based fuzzing of the four parsers (issue 12): random and mutated inputs never raise
anything but the project's own error types (QueryError, rule-file Issues, IngestError).

Example counts stay modest so the suite stays fast; FUZZ_EXAMPLES scales them for a longer run.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from structfirst.engine.query_parser import QueryError, parse_query
from structfirst.ingest.jsonl_source import parse_jsonl
from structfirst.ingest.model import IngestError
from structfirst.ingest.uscode import parse_uscode
from structfirst.rules.library_loader import LIBRARY_ROOT
from structfirst.rules.rule_syntax import RuleFile, parse_rules

SCALE = int(os.environ.get("FUZZ_EXAMPLES", "1"))
FUZZ = settings(
    max_examples=150 * SCALE,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
LEGAL_WORDS = [
    "§547(c)(9)", "11 U.S.C. § 101", "$6,825", "$1,", "90 days before filing", "insider",
    "Regulation M", "12 CFR 1013.2", "June 2019", "2019-06-01", "(", ")", '"', "'", ";", "--",
    "chapter 7", "three creditors", "was the debtor insolvent?", "Iowa", "§§", "\n", "\u2028",
    "twenty thousand dollars", "about", "of that is covered by a lien", "40 days ago",
    "in the last month", "wages earned", "the mayor's son", "luxury", "cash advances",
]  # fmt: skip
RULES_TEXT = (LIBRARY_ROOT / "us" / "usc" / "t11" / "s547.rules").read_text(encoding="utf-8")


def mutate(text: str, data: st.DataObject) -> str:
    """Cut, duplicate, delete or insert at a few random places of `text`."""
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(text)))
        j = data.draw(st.integers(i, min(len(text), i + 200)))
        op = data.draw(st.sampled_from(["cut", "dup", "del", "ins"]))
        if op == "cut":
            text = text[:i]
        elif op == "dup":
            text = text[:j] + text[i:j] + text[j:]
        elif op == "del":
            text = text[:i] + text[j:]
        else:
            text = text[:i] + data.draw(st.text(max_size=20)) + text[i:]
    return text


@FUZZ
@given(st.one_of(st.text(max_size=400), st.lists(st.sampled_from(LEGAL_WORDS)).map(" ".join)))
def test_query_parser(question: str) -> None:
    try:
        parsed = parse_query(question)
    except QueryError:
        return
    json.dumps(parsed.to_dict())  # the parse is always JSON-ready


@FUZZ
@given(st.data())
def test_rule_file_parser(data: st.DataObject) -> None:
    text = data.draw(st.one_of(st.text(max_size=300), st.just(RULES_TEXT).map(lambda t: t)))
    if text == RULES_TEXT:
        text = mutate(text, data)
    parsed = parse_rules(text, "fuzz.rules")  # problems are Issues, never exceptions
    assert isinstance(parsed, RuleFile)


JSONL_LINE = json.dumps(
    {"id": "/us/ia/code/s1", "text": "Motor vehicle means a vehicle.", "jurisdiction": "us-ia",
     "authority": "statute", "effective_from": "2019-07-01", "parent": None,
     "defines": [{"term": "motor vehicle", "scope": "/us/ia"}], "cross_refs": ["/us/ia/code/s2"]}
)  # fmt: skip


@FUZZ
@given(st.data())
def test_jsonl_reader(tmp_path: Path, data: st.DataObject) -> None:
    if data.draw(st.booleans()):
        raw = data.draw(st.binary(max_size=300))
    else:
        raw = mutate(JSONL_LINE + "\n" + JSONL_LINE.replace("s1", "s2") + "\n", data).encode()
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes(raw)
    try:
        parse_jsonl(path)
    except IngestError:
        pass


@pytest.fixture(scope="module")
def uscode_head(corpus: Path) -> str:
    """The first ~60 kB of a real title file (its title, a chapter and some sections)."""
    text = (corpus / "us-code" / "title-11" / "2018" / "usc11.htm").read_bytes().decode()
    return text[: text.index("<!-- itempath:/110/CHAPTER 1/Sec. 103 -->")]


@settings(FUZZ, max_examples=40 * SCALE)
@given(st.data())
def test_us_code_parser(uscode_head: str, tmp_path: Path, data: st.DataObject) -> None:
    path = tmp_path / "usc11.htm"
    path.write_bytes(mutate(uscode_head, data).encode("utf-8", "surrogatepass"))
    try:
        parse_uscode(path, source_id="fuzz/usc11.htm")
    except IngestError:
        pass
