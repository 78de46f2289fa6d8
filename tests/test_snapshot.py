"""Snapshots (staging, atomic switch, validation), the DuckDB store and the citation graph."""

from __future__ import annotations

import os
from datetime import UTC, date, datetime

import pytest
from structfirst.ingest.citation_graph import build_graph, load_graph, save_graph
from structfirst.ingest.duckdb_store import (
    connect_readonly,
    get_artifacts,
    hierarchy_path,
    threshold_series,
    valid_version_ids,
    write_store,
)
from structfirst.ingest.model import Authority, Edge, EdgeType, Node, NodeType
from structfirst.ingest.snapshot import (
    CURRENT_FILE,
    SnapshotError,
    list_snapshots,
    open_snapshot,
    prune,
    snapshot_id_for,
    staging,
)
from structfirst.ingest.versioning import build_versions
from test_versioning import D, T, adjustments, edition, prov

C9 = f"{T}/s547/c/9"


def small_corpus():
    docs = [
        edition(2008, D[0], facts=adjustments("a", D[0])),
        edition(2013, D[3], facts=adjustments("b", date(2014, 1, 1))),
    ]
    corpus = build_versions(docs)
    cfpb = Node(
        "/us/cfr/t12/s1013.2",
        NodeType.SECTION,
        "Definitions.",
        prov("regm"),
        "us-federal/cfpb",
        Authority.REGULATION,
        effective_from=date(2012, 1, 1),
    )
    corpus.nodes.append(cfpb)
    corpus.edges.append(
        Edge(cfpb.version_id, "/us/usc/t15/s1667", EdgeType.DERIVED_FROM, prov("regm"))
    )
    return corpus


def write_snapshot(index_dir, corpus=None, tag="x"):
    corpus = corpus or small_corpus()
    sid = snapshot_id_for([{"source_id": tag, "sha256": tag}], {"p": "1"})
    with staging(index_dir, sid) as stage:
        write_store(stage.path / "store.duckdb", corpus, [{"source_id": tag, "sha256": tag}])
        save_graph(build_graph(corpus), stage.path / "graph.json.gz")
        return stage.commit({"sources": [{"source_id": tag}]})


def test_snapshot_id_hashes_inputs_and_stamps_time():
    a = snapshot_id_for(
        [{"source_id": "f", "sha256": "1"}],
        {"uscode": "1"},
        datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
    )
    b = snapshot_id_for(
        [{"source_id": "f", "sha256": "1"}],
        {"uscode": "1"},
        datetime(2026, 1, 2, 3, 4, 6, tzinfo=UTC),
    )
    c = snapshot_id_for(
        [{"source_id": "f", "sha256": "2"}],
        {"uscode": "1"},
        datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
    )
    d = snapshot_id_for(
        [{"source_id": "f", "sha256": "1"}],
        {"uscode": "2"},
        datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
    )
    assert a.split("-")[0] == b.split("-")[0] != c.split("-")[0] != d.split("-")[0]
    assert a.endswith("-20260102T030405000Z") and a != b


def test_commit_switches_current_and_open_validates(tmp_path):
    snap = write_snapshot(tmp_path)
    assert (tmp_path / CURRENT_FILE).read_text().strip() == snap.snapshot_id
    opened = open_snapshot(tmp_path)
    assert opened.path == snap.path and opened.sources == [{"source_id": "x"}]
    assert not list((tmp_path / "snapshots").glob(".tmp-*"))


def test_failure_in_staging_keeps_previous_snapshot(tmp_path):
    first = write_snapshot(tmp_path)
    with pytest.raises(RuntimeError, match="boom"):
        with staging(tmp_path, "abc-20260101T000000000Z") as stage:
            (stage.path / "partial").write_text("half")
            raise RuntimeError("boom")
    assert open_snapshot(tmp_path).snapshot_id == first.snapshot_id
    assert [p.name for p in (tmp_path / "snapshots").iterdir()] == [first.snapshot_id]


def test_uncommitted_staging_is_an_error_and_removed(tmp_path):
    with pytest.raises(RuntimeError, match="never committed"):
        with staging(tmp_path, "abc-20260101T000000000Z"):
            pass
    assert not any((tmp_path / "snapshots").iterdir())


def test_stale_temp_dirs_are_cleared_and_lock_is_exclusive(tmp_path):
    stale = tmp_path / "snapshots" / ".tmp-old-1"
    stale.mkdir(parents=True)
    write_snapshot(tmp_path)
    assert not stale.exists()
    with staging(tmp_path, "a-20260101T000000000Z") as stage:
        with pytest.raises(SnapshotError, match="another ingest"):
            with staging(tmp_path, "b-20260101T000000000Z"):
                pass
        stage.commit({})


@pytest.mark.parametrize("damage", ["no_dir", "no_current", "dangling", "half_written", "no_store"])
def test_open_snapshot_errors_name_the_path(tmp_path, damage):
    if damage == "no_dir":
        target = tmp_path / "nowhere"
        expected = str(target)
    else:
        snap = write_snapshot(tmp_path)
        target = tmp_path
        if damage == "no_current":
            os.remove(tmp_path / CURRENT_FILE)
            expected = str(tmp_path / CURRENT_FILE)
        elif damage == "dangling":
            (tmp_path / CURRENT_FILE).write_text("nope-20260101T000000000Z\n")
            expected = "nope-20260101T000000000Z"
        elif damage == "half_written":
            os.remove(snap.path / "meta.json")
            expected = str(snap.path / "meta.json")
        else:
            os.remove(snap.store_path)
            expected = str(snap.store_path)
    with pytest.raises(SnapshotError) as err:
        open_snapshot(target)
    assert expected in str(err.value)


def test_prune_keeps_newest_and_current(tmp_path):
    snaps = [write_snapshot(tmp_path, tag=f"t{i}") for i in range(5)]
    # staging prunes to 3 on each commit
    assert [p.name for p in list_snapshots(tmp_path)] == [s.snapshot_id for s in snaps[-3:]]
    (tmp_path / CURRENT_FILE).write_text(snaps[-3].snapshot_id)
    prune(tmp_path, keep=1)
    names = {p.name for p in list_snapshots(tmp_path)}
    assert names == {snaps[-3].snapshot_id, snaps[-1].snapshot_id}


def test_store_tables_and_read_helpers(tmp_path):
    corpus = small_corpus()
    path = tmp_path / "store.duckdb"
    counts = write_store(
        path, corpus, [{"source_id": "s", "sha256": "0", "effective_from": "2008-01-08"}]
    )
    with connect_readonly(path) as con:
        for table, count in counts.items():
            assert con.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == count
        assert counts["artifacts"] == len(corpus.nodes)
        at_2011 = valid_version_ids(con, date(2011, 6, 1), "us-federal", {"statute"})
        c9 = [v for v in at_2011 if v.startswith(C9 + "@")]
        assert c9 == [f"{C9}@2010-04-01"]
        assert "/us/cfr/t12/s1013.2@2012-01-01" not in at_2011  # authority filter
        both = valid_version_ids(con, date(2013, 6, 1), "us-federal")
        assert "/us/cfr/t12/s1013.2@2012-01-01" in both  # jurisdiction prefix
        assert not valid_version_ids(con, date(2013, 6, 1), "us-ia")
        (rec,) = get_artifacts(con, c9)
        assert "$5,850" in rec["text"] and rec["effective_to"] == date(2013, 4, 1)
        assert rec["attrs"]["printed_text"].endswith("$5,000.")
        series = threshold_series(con, C9)
        assert [(r["value_num"], r["effective_to"]) for r in series][:2] == [
            (5475, date(2010, 4, 1)),
            (5850, date(2013, 4, 1)),
        ]
        chain = hierarchy_path(con, c9[0])
        assert [r["node_id"] for r in chain] == [T, f"{T}/s547", f"{T}/s547/c", C9]
    with pytest.raises(FileNotFoundError, match="no DuckDB store"):
        with connect_readonly(tmp_path / "missing.duckdb"):
            pass


def test_store_bulk_inserts_many_rows(tmp_path):
    corpus = small_corpus()
    base = corpus.nodes[0]
    n = 20_000
    corpus.nodes = [
        Node(
            f"/x/{i}",
            NodeType.CLAUSE,
            "text",
            base.provenance,
            "us-federal",
            Authority.STATUTE,
            effective_from=date(2000, 1, 1),
        )
        for i in range(n)
    ]
    corpus.edges = [
        Edge(f"/x/{i}@2000-01-01", f"/x/{i + 1}@2000-01-01", EdgeType.CROSS_REFS, base.provenance)
        for i in range(n)
    ]
    counts = write_store(tmp_path / "big.duckdb", corpus, [])
    assert counts["artifacts"] == n and counts["edges"] == n
    with connect_readonly(tmp_path / "big.duckdb") as con:
        assert len(valid_version_ids(con, date(2001, 1, 1))) == n
        assert con.execute(
            "SELECT dst FROM edges WHERE src = ?", ["/x/7@2000-01-01"]
        ).fetchall() == [("/x/8@2000-01-01",)]


def test_graph_round_trip(tmp_path):
    corpus = small_corpus()
    graph = build_graph(corpus)
    save_graph(graph, tmp_path / "graph.json.gz")
    loaded = load_graph(tmp_path / "graph.json.gz")
    assert loaded.number_of_nodes() == graph.number_of_nodes()
    assert loaded.number_of_edges() == graph.number_of_edges()
    c9 = f"{C9}@2010-04-01"
    assert loaded.nodes[c9]["node_id"] == C9 and loaded.nodes[c9]["effective_to"] == "2013-04-01"
    keys = {k for _, _, k in loaded.in_edges(c9, keys=True)}
    assert {"contains", "annotates", "supersedes"} <= keys
    dangling = loaded.nodes["/us/usc/t15/s1667"]
    assert dangling["type"] is None
    data = loaded.get_edge_data(f"{T}/s547/c@2008-01-08", c9)
    assert data["contains"]["source_id"].startswith("us-code/title-11/")
