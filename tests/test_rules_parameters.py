"""Dated parameter tables: library files, ingested THRESHOLD facts, merging, explicit no-value."""

from __future__ import annotations

import json
import shutil
from datetime import date
from pathlib import Path

import duckdb
import networkx as nx
import pytest
from structfirst.ingest.citation_graph import GRAPH_FILE, save_graph
from structfirst.ingest.duckdb_store import SCHEMA, STORE_FILE, create_schema, insert_rows
from structfirst.ingest.model import Fact, FactKind, Provenance
from structfirst.ingest.snapshot import staging
from structfirst.rules import parameters as P
from structfirst.rules.library_loader import TITLE11_FACTS, load_library
from structfirst.rules.lint import lint_library

PARAMS = """\
# test parameters
[s547_c_9]
title = "floor"
unit = "USD"
provision = "/us/usc/t11/s547/c/9"
ingest = { node_id = "/us/usc/t11/s547/c/9" }

  [[s547_c_9.values]]
  from = 2005-10-17
  value = 5000
  source = "Pub. L. 109-8"

  [[s547_c_9.values]]
  from = 2022-04-01
  value = 7575
  source = "87 FR 6625"

  [[s547_c_9.values]]
  from = 2025-04-01
  to = 2028-04-01
  value = 8575
  source = "90 FR 8941"

[s109_e_low]
provision = "/us/usc/t11/s109/e"
ingest = { node_id = "/us/usc/t11/s109/e", pick = "min" }

[s109_e_high]
provision = "/us/usc/t11/s109/e"
ingest = { node_id = "/us/usc/t11/s109/e", pick = "max" }

[s507_a_3]
provision = "/us/usc/t11/s507/a/3"
ingest = { node_id = "/us/usc/t11/s507/a/3" }
until = 2005-10-17
  [[s507_a_3.values]]
  from = 1994-10-22
  value = 4000
  source = "Pub. L. 103-394"
"""


def threshold(node_id: str, value: float, start: date, old: float | None = None,
              notice: str = "72 F.R. 7082") -> Fact:
    prov = Provenance("us-code/title-11/2007/usc11.htm", (0, 10), "test")
    attrs = {"series": f"{node_id}#1", "notice_citation": notice, "notice_date": "2007-02-07"}
    if old is not None:
        attrs["old_value"] = old
    return Fact(node_id, FactKind.THRESHOLD, value, f"${value:,.0f}", prov, "USD", start, None,
                attrs)


INGESTED = [
    threshold("/us/usc/t11/s547/c/9", 5475.0, date(2007, 4, 1), 5000),
    threshold("/us/usc/t11/s547/c/9", 5850.0, date(2010, 4, 1), 5475, "75 F.R. 8747"),
    threshold("/us/usc/t11/s547/c/9", 5850.0, date(2010, 4, 1), 5475, "75 F.R. 8747"),  # twice
    threshold("/us/usc/t11/s109/e", 336900.0, date(2007, 4, 1)),
    threshold("/us/usc/t11/s109/e", 1010650.0, date(2007, 4, 1)),
    threshold("/us/usc/t11/s507/a/3", 4925.0, date(2004, 4, 1), 4650),
    threshold("/us/usc/t11/s999", 1.0, date(2004, 4, 1)),  # feeds no parameter
    Fact("/us/usc/t11/s547/c/9", FactKind.AMOUNT, 5000.0, "$5,000",
         Provenance("x", (0, 1), "test")),  # not a threshold: ignored
]


def table(tmp_path: Path, text: str = PARAMS, facts=INGESTED) -> P.ParameterTable:
    path = tmp_path / "t.params.toml"
    path.write_text(text)
    specs, issues = P.read_parameter_file(path)
    return P.build_table(specs, P.records_from_facts(facts), issues)


def test_merged_series_and_lookups(tmp_path: Path) -> None:
    t = table(tmp_path)
    assert not [i for i in t.issues if i.severity == "error"], t.issues
    series = [(v.start, v.end, v.value, v.origin) for v in t.series["s547_c_9"].values]
    assert series == [
        (date(2005, 10, 17), date(2007, 4, 1), 5000, "library"),
        (date(2007, 4, 1), date(2010, 4, 1), 5475, "ingested"),
        (date(2010, 4, 1), date(2022, 4, 1), 5850, "ingested"),
        (date(2022, 4, 1), date(2025, 4, 1), 7575, "library"),
        (date(2025, 4, 1), date(2028, 4, 1), 8575, "library"),
    ]
    got = t.lookup("s547_c_9", date(2012, 6, 1))
    assert isinstance(got, P.ParamValue) and got.value == 5850
    assert got.source.startswith("75 F.R. 8747 (2007-02-07)") and "2007/usc11.htm" in got.source
    assert t.lookup("s547_c_9", date(2026, 11, 22)).value == 8575
    assert t.lookup("s547_c_9", date(2025, 3, 31)).value == 7575
    assert t.lookup("s109_e_low", date(2008, 1, 1)).value == 336900
    assert t.lookup("s109_e_high", date(2008, 1, 1)).value == 1010650
    assert json.loads(json.dumps(got.to_dict()))["value"] == 5850


def test_no_value_outside_every_period_is_explicit(tmp_path: Path) -> None:
    t = table(tmp_path)
    before = t.lookup("s547_c_9", date(2005, 10, 16))
    after = t.lookup("s547_c_9", date(2028, 4, 1))
    unknown = t.lookup("s547_c_10", date(2020, 1, 1))
    for nv in (before, after, unknown):
        assert isinstance(nv, P.NoValue) and not nv
    assert "before the first value" in before.reason
    assert "after the last value" in after.reason
    assert unknown.reason == "no parameter of that name"
    assert t.lookup("s507_a_3", date(2005, 10, 16)).value == 4925
    assert "after the last value" in t.lookup("s507_a_3", date(2005, 10, 17)).reason
    assert t.coverage_gaps("s547_c_9", date(2000, 1, 1), date(2030, 1, 1)) == [
        (date(2000, 1, 1), date(2005, 10, 17)), (date(2028, 4, 1), date(2030, 1, 1))]


def test_explicit_to_leaves_a_gap(tmp_path: Path) -> None:
    text = PARAMS.replace("  from = 2022-04-01\n  value = 7575\n",
                          "  from = 2022-04-01\n  to = 2023-01-01\n  value = 7575\n")
    t = table(tmp_path, text)
    gap = t.lookup("s547_c_9", date(2024, 1, 1))
    assert isinstance(gap, P.NoValue) and "gap" in gap.reason


def test_conflict_between_library_and_ingested_is_reported_and_ingested_wins(
        tmp_path: Path) -> None:
    text = PARAMS.replace(
        '  [[s547_c_9.values]]\n  from = 2022-04-01',
        '  [[s547_c_9.values]]\n  from = 2010-04-01\n  value = 5900\n  source = "typo"\n\n'
        '  [[s547_c_9.values]]\n  from = 2022-04-01')
    t = table(tmp_path, text)
    (issue,) = [i for i in t.issues if i.code == "param-conflict"]
    assert issue.severity == "error" and issue.line == 13
    assert "5900" in issue.message and "5850" in issue.message
    assert t.lookup("s547_c_9", date(2011, 1, 1)).value == 5850


def test_same_value_in_both_is_fine_and_old_values_are_checked(tmp_path: Path) -> None:
    text = PARAMS.replace(
        '  [[s547_c_9.values]]\n  from = 2022-04-01',
        '  [[s547_c_9.values]]\n  from = 2010-04-01\n  value = 5850\n  source = "same"\n\n'
        '  [[s547_c_9.values]]\n  from = 2022-04-01')
    assert not [i for i in table(tmp_path, text).issues if i.severity == "error"]
    wrong_old = INGESTED + [threshold("/us/usc/t11/s547/c/9", 6225.0, date(2013, 4, 1), 5800)]
    t = table(tmp_path, PARAMS, wrong_old)
    (issue,) = [i for i in t.issues if i.code == "param-old-value" and "s547_c_9" in i.message]
    assert "replaced 5800" in issue.message and "5850" in issue.message


def test_two_ingested_values_without_pick_is_an_error(tmp_path: Path) -> None:
    text = PARAMS.replace('ingest = { node_id = "/us/usc/t11/s109/e", pick = "min" }',
                          'ingest = { node_id = "/us/usc/t11/s109/e" }')
    issues = [i for i in table(tmp_path, text).issues if i.code == "param-conflict"]
    assert issues and "set ingest.pick" in issues[0].message


def test_bad_parameter_entries_name_file_and_line(tmp_path: Path) -> None:
    text = PARAMS + '\n[broken]\nprovision = "/x"\n  [[broken.values]]\n  from = 2001-01-01\n' \
                    '  value = "lots"\n  source = "x"\n'
    t = table(tmp_path, text)
    (issue,) = [i for i in t.issues if i.code == "param-syntax"]
    assert issue.file.endswith("t.params.toml") and "value must be a number" in issue.message
    assert issue.line == text.splitlines().index("  [[broken.values]]") + 1
    assert "s547_c_9" in t.series  # the others still load
    path = tmp_path / "bad.params.toml"
    path.write_text("[x\n")
    _, issues = P.read_parameter_file(path)
    assert issues[0].code == "param-syntax" and issues[0].line == 1


def _snapshot(index: Path, facts: list[Fact], node_ids: list[str]) -> None:
    names = [n for n, _ in SCHEMA["facts"]]
    anames = [n for n, _ in SCHEMA["artifacts"]]
    with staging(index, "test-snapshot") as st:
        con = duckdb.connect(str(st.path / STORE_FILE))
        create_schema(con)
        rows = []
        for f in facts:
            rec = {"fact_id": f.fact_id, "node_id": f.node_id, "kind": str(f.kind),
                   "value_num": f.value, "text": f.text, "unit": f.unit,
                   "effective_from": f.effective_from, "effective_to": f.effective_to,
                   "series": f.attrs.get("series"), "source_id": f.provenance.source_id,
                   "attrs": json.dumps({k: v for k, v in f.attrs.items() if k != "series"})}
            rows.append(tuple(rec.get(n) for n in names))
        insert_rows(con, "facts", rows)
        insert_rows(con, "artifacts", [
            tuple({"version_id": f"{n}@2018-01-01", "node_id": n, "type": "Clause",
                   "text": "", "jurisdiction": "us-federal", "authority": "statute",
                   "source_id": "x", "span_start": 0, "span_end": 0}.get(c) for c in anames)
            for n in node_ids])
        con.close()
        save_graph(nx.MultiDiGraph(), st.path / GRAPH_FILE)
        st.commit({})


def test_thresholds_from_a_snapshot_facts_table(tmp_path: Path) -> None:
    _snapshot(tmp_path / "index", [f for f in INGESTED if f.kind is FactKind.THRESHOLD], [])
    records = P.records_from_index(tmp_path / "index")
    assert len(records) == 7
    rec = next(r for r in records if r.value == 5475)
    assert (rec.node_id, rec.effective_from, rec.series, rec.notice_citation, rec.old_value) == (
        "/us/usc/t11/s547/c/9", date(2007, 4, 1), "/us/usc/t11/s547/c/9#1", "72 F.R. 7082", 5000)
    path = tmp_path / "t.params.toml"
    path.write_text(PARAMS)
    specs, _ = P.read_parameter_file(path)
    t = P.build_table(specs, records)
    assert t.lookup("s547_c_9", date(2012, 1, 1)).value == 5850


def test_lint_checks_citations_against_a_snapshot(tmp_path: Path) -> None:
    _snapshot(tmp_path / "index", [], ["/us/usc/t11/s547/c/9"])
    root = tmp_path / "lib"
    root.mkdir()
    (root / "t.params.toml").write_text(PARAMS)
    shutil.copy(TITLE11_FACTS, root / "facts.toml")
    (root / "t.rules").write_text(
        "base /us/usc/t11/s547\n\nrule s547.c.9\n  version 1\n  cites c/9, c/99\n"
        "  effective from 2005-10-17\n"
        "  Small <= ~debtor_consumer_debts @ c/9 & transfer_amount < param(s547_c_9) @ c/99\n")
    lib = load_library(root, index=tmp_path / "index")
    assert lib.parameters.ingested_source == f"index {tmp_path / 'index'}"
    issues = lint_library(lib, index=tmp_path / "index", through=date(2020, 1, 1))
    missing = [i for i in issues if i.code == "cite-missing"]
    assert [i.message for i in missing] == [
        "/us/usc/t11/s547/c/99 is not a provision of the ingested snapshot"]
    assert missing[0].rule_id == "s547.c.9" and missing[0].file.endswith("t.rules")
    broken = lint_library(lib, index=tmp_path / "nowhere", tests=False)
    assert any(i.code == "index" for i in broken)


def test_no_editions_and_no_index_is_an_error_not_the_base_amounts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "lib"
    root.mkdir()
    (root / "t.params.toml").write_text(PARAMS)
    monkeypatch.setenv("STRUCTFIRST_CORPUS", str(tmp_path / "no-corpus"))
    with pytest.raises(P.ThresholdSourceError, match="no ingested §104 adjustments: corpus not "
                       "found at .*no-corpus"):
        load_library(root)
    assert load_library(root, thresholds=[]).parameters.ingested_source == "given"
