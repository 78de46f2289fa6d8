"""`structfirst ingest` and `structfirst stats` through typer's CliRunner."""

from __future__ import annotations

import json

import pytest
import typer
from structfirst.cli import ingest_cmd
from typer.testing import CliRunner

runner = CliRunner()


@pytest.fixture(scope="module")
def app():
    app = typer.Typer()
    ingest_cmd.register(app)
    return app


@pytest.fixture(scope="module")
def index(app, corpus, tmp_path_factory):
    root = tmp_path_factory.mktemp("cli")
    src = root / "src"
    for year in (2009, 2010):
        (src / str(year)).mkdir(parents=True)
        (src / str(year) / "usc11.htm").symlink_to(
            corpus / "us-code" / "title-11" / str(year) / "usc11.htm"
        )
    index = root / "index"
    # builders: the lexical one when it is installed; no dense/ColBERT here
    result = runner.invoke(
        app, ["ingest", str(src), "--index", str(index), "--no-dense", "--no-progress"]
    )
    assert result.exit_code == 0, result.output
    assert "snapshot" in result.output and "artifacts" in result.output
    return index


def test_stats_tables(app, index):
    result = runner.invoke(app, ["stats", "--index", str(index)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for title in (
        "artifacts by node type",
        "edges by type",
        "versions per provision",
        "versions of /us/usc/t11/s547/c/9",
        "threshold series",
        "cross-references",
    ):
        assert title in result.output
    assert "/us/usc/t11/s547/c/9@" in result.output


def test_stats_json(app, index):
    result = runner.invoke(app, ["stats", "--index", str(index), "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    types = {row[0] for row in figures["node_types"]}
    assert {"Section", "Clause", "Note", "Jurisdiction", "Authority"} <= types
    assert figures["provisions"] > 3000
    assert figures["example"]["versions"]


def test_stats_on_missing_index_is_a_clean_error(app, tmp_path):
    result = runner.invoke(app, ["stats", "--index", str(tmp_path / "none")])
    assert result.exit_code == 1
    assert "error:" in result.output and "Traceback" not in result.output
    assert str(tmp_path / "none") in result.output.replace("\n", "")


def test_failed_ingest_is_a_clean_error_and_keeps_snapshot(app, index, tmp_path):
    before = (index / "CURRENT").read_text()
    bad = tmp_path / "usc11.htm"
    bad.write_text("<html><!-- AUTHORITIES-PUBLICATION-NAME:x -->")
    result = runner.invoke(
        app, ["ingest", str(bad), "--index", str(index), "--no-dense", "--no-progress"]
    )
    assert result.exit_code == 1
    assert "error:" in result.output and "Traceback" not in result.output
    assert "previous snapshot" in result.output
    assert (index / "CURRENT").read_text() == before


def test_ingest_of_missing_path(app, tmp_path):
    result = runner.invoke(
        app,
        [
            "ingest",
            str(tmp_path / "nope"),
            "--index",
            str(tmp_path / "i"),
            "--no-dense",
            "--no-progress",
        ],
    )
    assert result.exit_code == 1 and "no such file" in result.output


def test_workers_without_ray_is_an_error(app, tmp_path):
    result = runner.invoke(
        app, ["ingest", str(tmp_path), "--index", str(tmp_path / "i"), "--workers", "2"]
    )
    assert result.exit_code == 1 and "--workers 2" in result.output and "--ray" in result.output
    assert not (tmp_path / "i").exists()
