"""The JSONL parser: the documented example, spans, and every kind of bad line."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

import pytest
from structfirst.ingest.jsonl_source import parse_jsonl
from structfirst.ingest.model import Authority, EdgeType, IngestError, NodeType, to_record

FORMAT_DOC = Path(__file__).resolve().parents[1] / "ingest" / "jsonl_format.md"

BASE = {"jurisdiction": "us-ia", "authority": "statute"}


def _write(tmp_path: Path, rows: list, name: str = "src.jsonl", newline: str = "\n") -> Path:
    lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows]
    path = tmp_path / name
    path.write_bytes((newline.join(lines) + newline).encode("utf-8"))
    return path


def test_documented_example(tmp_path: Path) -> None:
    block = re.search(r"```jsonl\n(.*?)```", FORMAT_DOC.read_text(encoding="utf-8"), re.S)
    assert block, "jsonl_format.md has an example"
    path = tmp_path / "iowa-321a.jsonl"
    path.write_text(block.group(1), encoding="utf-8")
    doc = parse_jsonl(path)
    nodes = {n.id: n for n in doc.nodes}
    assert list(nodes) == [
        "/us/ia/code/ch321A",
        "/us/ia/code/s321A.1",
        "/us/ia/code/s321A.1/5",
        "/us/ia/code/s321A.5",
        "/us/ia/code/ch321A/term/motor-vehicle",
    ]
    assert nodes["/us/ia/code/ch321A"].type == NodeType.DOCUMENT
    assert nodes["/us/ia/code/s321A.1/5"].type == NodeType.CLAUSE  # the default
    assert nodes["/us/ia/code/s321A.1/5"].citation == "Iowa Code § 321A.1(5)"
    sec5 = nodes["/us/ia/code/s321A.5"]
    assert (sec5.effective_from, sec5.effective_to) == (date(2019, 7, 1), date(2021, 7, 1))
    assert sec5.attrs == {"source_url": "https://www.legis.iowa.gov/docs/code/321A.5.pdf"}
    assert sec5.authority == Authority.STATUTE and sec5.jurisdiction == "us-ia"
    term = nodes["/us/ia/code/ch321A/term/motor-vehicle"]
    assert term.type == NodeType.DEFINED_TERM
    assert term.attrs == {"term": "motor vehicle", "scope": "/us/ia/code/ch321A"}
    edges = {(e.src, e.type, e.dst) for e in doc.edges}
    assert edges == {
        ("/us/ia/code/ch321A", EdgeType.CONTAINS, "/us/ia/code/s321A.1"),
        ("/us/ia/code/s321A.1", EdgeType.CONTAINS, "/us/ia/code/s321A.1/5"),
        ("/us/ia/code/ch321A", EdgeType.CONTAINS, "/us/ia/code/s321A.5"),
        ("/us/ia/code/s321A.1/5", EdgeType.CONTAINS, term.id),
        ("/us/ia/code/s321A.1/5", EdgeType.DEFINES, term.id),
        ("/us/ia/code/s321A.5", EdgeType.CROSS_REFS, "/us/ia/code/s321A.1/5"),
    }
    [ref] = doc.unresolved
    assert (ref.src, ref.text) == ("/us/ia/code/s321A.5", "/us/ia/code/s321.1")
    assert doc.edition.name == "iowa-321a"
    assert doc.edition.effective_from == date(2019, 7, 1)
    assert doc.warnings == []


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_spans_are_lines(tmp_path: Path, newline: str) -> None:
    rows = [
        {"id": "/x", "type": "Document", "text": "Top — “quoted”", **BASE},
        "",
        {"id": "/x/s1", "parent": "/x", "text": "One", "defines": ["widget"], **BASE},
    ]
    path = _write(tmp_path, rows, newline=newline)
    text = path.read_bytes().decode("utf-8")
    doc = parse_jsonl(path)
    lines = [ln.rstrip("\r") for ln in text.split("\n")]
    nodes = {n.id: n for n in doc.nodes}
    assert text[slice(*nodes["/x"].provenance.span)] == lines[0]
    assert text[slice(*nodes["/x/s1"].provenance.span)] == lines[2]
    assert nodes["/x/term/widget"].provenance.span == nodes["/x/s1"].provenance.span
    assert nodes["/x/s1"].provenance.parser_version == "jsonl/1"
    again = parse_jsonl(path)
    assert [to_record(n) for n in again.nodes] == [to_record(n) for n in doc.nodes]
    assert any("no line has effective_from" in w for w in doc.warnings)


def test_versions_of_one_id(tmp_path: Path) -> None:
    rows = [
        {"id": "/x", "text": "old", "effective_from": "2016-01-01", **BASE},
        {"id": "/x", "text": "new", "effective_from": "2018-01-01", **BASE},
    ]
    doc = parse_jsonl(_write(tmp_path, rows))
    assert [n.version_id for n in doc.nodes] == ["/x@2016-01-01", "/x@2018-01-01"]
    assert doc.edition.effective_from == date(2016, 1, 1)


def _error(tmp_path: Path, rows: list) -> str:
    with pytest.raises(IngestError) as info:
        parse_jsonl(_write(tmp_path, rows, name="bad.jsonl"))
    return str(info.value)


GOOD = {"id": "/x", "text": "t", **BASE}


@pytest.mark.parametrize(
    ("bad_line", "where", "problem"),
    [
        ('{"id": "/y", "text": ', "line 2", "bad JSON"),
        ("[1, 2]", "line 2", "expected a JSON object"),
        ({"text": "t", **BASE}, "line 2, field 'id'", "missing"),
        ({"id": "/y", **BASE}, "line 2, field 'text'", "missing"),
        (
            {"id": "/y", "text": "t", "authority": "statute"},
            "line 2, field 'jurisdiction'",
            "missing",
        ),
        (
            {"id": "/y", "text": "t", "jurisdiction": "us-federal"},
            "line 2, field 'authority'",
            "missing",
        ),
        ({"id": "", "text": "t", **BASE}, "line 2, field 'id'", "empty"),
        ({"id": 7, "text": "t", **BASE}, "line 2, field 'id'", "expected a string"),
        (
            {"id": "/y", "text": "t", "effective_from": "2016-02-30", **BASE},
            "line 2, field 'effective_from'",
            "impossible date '2016-02-30'",
        ),
        (
            {"id": "/y", "text": "t", "effective_to": "01/02/2016", **BASE},
            "line 2, field 'effective_to'",
            "not an ISO date",
        ),
        (
            {
                "id": "/y",
                "text": "t",
                "effective_from": "2016-02-01",
                "effective_to": "2016-02-01",
                **BASE,
            },
            "line 2, field 'effective_to'",
            "not after effective_from",
        ),
        (
            {
                "id": "/y",
                "text": "t",
                "effective_from": "2016-02-01",
                "effective_to": "2015-01-01",
                **BASE,
            },
            "line 2, field 'effective_to'",
            "not after effective_from",
        ),
        (
            {"id": "/y", "text": "t", "jurisdiction": "us-federal", "authority": "binding"},
            "line 2, field 'authority'",
            "unknown authority 'binding'",
        ),
        (
            {"id": "/y", "text": "t", "type": "Paragraph", **BASE},
            "line 2, field 'type'",
            "unknown type 'Paragraph'",
        ),
        (
            {"id": "/y", "text": "t", "efective_from": "2016-01-01", **BASE},
            "line 2, field 'efective_from'",
            "unknown field",
        ),
        (
            {"id": "/y", "text": "t", "cross_refs": "/x", **BASE},
            "line 2, field 'cross_refs'",
            "list of ids",
        ),
        (
            {"id": "/y", "text": "t", "defines": [3], **BASE},
            "line 2, field 'defines'",
            "list of terms",
        ),
        ({"id": "/y", "text": "t", "attrs": [1], **BASE}, "line 2, field 'attrs'", "JSON object"),
        (
            {"id": "/y", "text": "t", "parent": "/nowhere", **BASE},
            "line 2, field 'parent'",
            "no line defines",
        ),
        (
            {"id": "/x", "text": "again", **BASE},
            "line 2, field 'id'",
            "duplicate id '/x' (no date), first on line 1",
        ),
    ],
)
def test_errors_name_file_line_field(tmp_path: Path, bad_line, where: str, problem: str) -> None:
    message = _error(tmp_path, [GOOD, bad_line])
    assert message.startswith(f"{tmp_path / 'bad.jsonl'}: {where}: ")
    assert problem in message


def test_duplicate_with_same_date(tmp_path: Path) -> None:
    rows = [
        {"id": "/x", "text": "a", "effective_from": "2016-01-01", **BASE},
        {"id": "/z", "text": "b", **BASE},
        {"id": "/x", "text": "c", "effective_from": "2016-01-01", **BASE},
    ]
    message = _error(tmp_path, rows)
    assert "line 3, field 'id'" in message and "(2016-01-01), first on line 1" in message


def test_parent_loop(tmp_path: Path) -> None:
    rows = [
        {"id": "/a", "parent": "/b", "text": "a", **BASE},
        {"id": "/b", "parent": "/a", "text": "b", **BASE},
    ]
    assert "line 1, field 'parent': parent chain loops" in _error(tmp_path, rows)


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n\n", encoding="utf-8")
    with pytest.raises(IngestError, match="empty.jsonl: line 1: no JSON objects"):
        parse_jsonl(path)
