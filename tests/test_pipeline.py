"""The ingest pipeline on real sources: formats, versions, indexes, atomic switch."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from structfirst.eval.bench_query import snapshot_figures
from structfirst.ingest.duckdb_store import connect_readonly, get_artifacts, valid_version_ids
from structfirst.ingest.lucene_index import LuceneIndexBuilder, read_docids
from structfirst.ingest.model import IngestError
from structfirst.ingest.pipeline import detect_format, find_sources, indexable_docs, ingest
from structfirst.ingest.snapshot import CURRENT_FILE, open_snapshot
from structfirst.ingest.uscode import parse_uscode
from structfirst.ingest.versioning import build_versions

YEARS = (2009, 2010)


def title11_tree(corpus: Path, root: Path, years=YEARS) -> Path:
    for year in years:
        target = root / "title-11" / str(year)
        target.mkdir(parents=True)
        (target / "usc11.htm").symlink_to(corpus / "us-code" / "title-11" / str(year) / "usc11.htm")
    return root / "title-11"


@pytest.fixture(scope="module")
def ingested(corpus, tmp_path_factory):
    root = tmp_path_factory.mktemp("pipeline")
    info = ingest(
        [title11_tree(corpus, root / "src")],
        root / "index",
        builders=[LuceneIndexBuilder()],
        progress=False,
    )
    return info, root


def test_ingest_writes_a_current_snapshot(ingested):
    info, root = ingested
    snap = open_snapshot(root / "index")
    assert snap.snapshot_id == info.snapshot_id
    assert [s["effective_from"] for s in snap.sources] == ["2010-02-01", "2011-01-07"]
    assert info.counts["artifacts"] > 5000 and info.counts["edges"] > 5000
    with connect_readonly(snap.store_path) as con:
        ids = valid_version_ids(con, date(2010, 6, 1), "us-federal")
        s547 = [i for i in ids if i.startswith("/us/usc/t11/s547@")]
        assert len(s547) == 1
        (rec,) = get_artifacts(con, s547)
        assert rec["hierarchy_path"].endswith("§ 547") and rec["heading"] == "Preferences"
        families = con.execute("SELECT DISTINCT family FROM sources").fetchall()
        assert families == [("/us/usc/t11",)]


def test_lexical_index_is_built_inside_the_snapshot(ingested):
    info, _ = ingested
    docids = read_docids(info.path / "lucene")
    assert info.indexes["lucene"]["docs"] == len(docids) > 4000
    assert info.counts["indexable_docs"] >= len(docids)
    assert any(d.startswith("/us/usc/t11/s547/c/9@") for d in docids)


def test_bench_query_reports_what_the_ingest_took_and_left(ingested):
    info, _ = ingested
    figures = snapshot_figures(info.path)
    assert figures["passages"] == info.counts["indexable_docs"]
    assert figures["colbert_vectors"] == 0  # no ColBERT index in this snapshot
    assert figures["ingest_index:lucene_s"] == round(info.seconds["index:lucene"], 1)
    lucene_bytes = sum(f.stat().st_size for f in (info.path / "lucene").rglob("*") if f.is_file())
    assert figures["lucene_mib"] == round(lucene_bytes / 2**20, 1) > 0
    assert figures["store.duckdb_mib"] > 0 and "meta.json_mib" in figures


def test_indexable_docs_carry_citation_heading_and_chapeaus(corpus):
    docs = [parse_uscode(corpus / "us-code" / "title-11" / str(y) / "usc11.htm") for y in YEARS]
    index_docs = indexable_docs(build_versions(docs))
    assert len({d.version_id for d in index_docs}) == len(index_docs)
    assert any("/note/" in d.node_id for d in index_docs)  # notes are indexed
    assert not any(d.node_id == "/us/usc/t11" for d in index_docs)  # documents are not
    c9 = next(d for d in index_docs if d.node_id == "/us/usc/t11/s547/c/9")
    lines = c9.contents.split("\n")
    assert lines[0] == "11 U.S.C. § 547(c)(9)"
    assert "Preferences" in lines
    assert "The trustee may not avoid under this section a transfer—" in lines
    assert lines[-1].startswith("if, in a case filed by a debtor")
    assert all(d.effective_from and d.jurisdiction == "us-federal" for d in index_docs)


def test_reingest_is_deterministic(ingested, tmp_path):
    info, root = ingested
    second = ingest([root / "src" / "title-11"], tmp_path / "index", builders=[], progress=False)
    assert second.snapshot_id.split("-")[0] == info.snapshot_id.split("-")[0]
    assert second.snapshot_id != info.snapshot_id
    query = "SELECT version_id, text, effective_to FROM artifacts ORDER BY version_id"
    with (
        connect_readonly(info.path / "store.duckdb") as a,
        connect_readonly(second.path / "store.duckdb") as b,
    ):
        assert a.execute(query).fetchall() == b.execute(query).fetchall()
        edges = "SELECT src, dst, type, prov_id FROM edges ORDER BY ALL"
        assert a.execute(edges).fetchall() == b.execute(edges).fetchall()


def test_truncated_source_fails_and_keeps_previous_snapshot(ingested, tmp_path):
    info, root = ingested
    index = tmp_path / "index"
    first = ingest([root / "src" / "title-11" / "2009"], index, builders=[], progress=False)
    bad_dir = tmp_path / "bad" / "2011"
    bad_dir.mkdir(parents=True)
    whole = (root / "src" / "title-11" / "2010" / "usc11.htm").read_bytes()
    (bad_dir / "usc11.htm").write_bytes(whole[: len(whole) // 2])
    with pytest.raises(IngestError) as err:
        ingest(
            [root / "src" / "title-11" / "2009", tmp_path / "bad"],
            index,
            builders=[],
            progress=False,
        )
    assert "usc11.htm" in str(err.value) and "truncated" in str(err.value)
    assert (index / CURRENT_FILE).read_text().strip() == first.snapshot_id
    snap = open_snapshot(index)
    with connect_readonly(snap.store_path) as con:
        assert (
            con.execute("SELECT count(*) FROM artifacts").fetchone()[0] == first.counts["artifacts"]
        )
    assert [p.name for p in (index / "snapshots").iterdir()] == [first.snapshot_id]


def test_format_detection_and_skips(corpus, tmp_path):
    usc = corpus / "us-code" / "2018"
    assert detect_format(usc / "usc11.htm") == ("uscode", "")
    assert detect_format(usc / "USC51.htm") == ("uscode", "")
    assert detect_format(usc / "uscTable5.htm")[0] is None
    assert detect_format(usc / "tbl112cd_2nd.htm")[0] is None
    regs = corpus / "cfr-12"
    assert detect_format(next((regs / "regulation" / "1013").glob("*.xml")))[0] == "regml"
    notice = next((regs / "notice" / "1013").glob("*.xml"))
    fmt, reason = detect_format(notice)
    assert fmt is None and "notice" in reason
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    for src in (usc / "uscTable5.htm", notice, usc / "usc01.htm"):
        (mixed / src.name).symlink_to(src)
    (mixed / "readme.txt").write_text("hello")
    files, skipped = find_sources([mixed, usc / "usc01.htm"])
    assert [f.path.name for f in files] == ["usc01.htm"]  # the second copy is the same file
    reasons = {Path(p).name: r for p, r in skipped}
    assert set(reasons) == {"uscTable5.htm", notice.name, "readme.txt", "usc01.htm"}
    with pytest.raises(IngestError, match="cannot ingest"):
        find_sources([notice])
    with pytest.raises(IngestError, match="no such file"):
        find_sources([tmp_path / "absent.htm"])


def test_regulation_versions_collapse(corpus, tmp_path):
    regs = sorted((corpus / "cfr-12" / "regulation" / "1013").glob("*.xml"))[:3]
    src = tmp_path / "regm"
    src.mkdir()
    for path in regs:
        (src / path.name).symlink_to(path)
    info = ingest([src], tmp_path / "index", builders=[], progress=False)
    with connect_readonly(open_snapshot(tmp_path / "index").store_path) as con:
        n_nodes, n_versions = con.execute(
            "SELECT count(DISTINCT node_id), count(*) FROM artifacts WHERE type = 'Clause'"
        ).fetchone()
        assert n_versions < 1.5 * n_nodes  # most paragraphs are unchanged between versions
        fam = con.execute("SELECT DISTINCT family FROM sources").fetchall()
        assert fam == [("/us/cfr/t12/p1013",)]
        juris = con.execute(
            "SELECT DISTINCT jurisdiction FROM artifacts WHERE type = 'Clause'"
        ).fetchall()
        assert juris == [("us-federal/cfpb",)]
    assert info.counts["sources"] == 3
