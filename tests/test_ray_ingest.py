"""Ingest's parse and dense-encode stages on Ray give the snapshot an ingest in one process gives:
the same store rows, graph, Lucene docids and dense vectors; a source that fails names itself."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from structfirst.ingest.citation_graph import GRAPH_FILE
from structfirst.ingest.duckdb_store import SCHEMA, STORE_FILE
from structfirst.ingest.lucene_index import read_docids
from structfirst.ingest.pipeline import ingest
from structfirst.ingest.ray_ingest import encode_chunks
from structfirst.ingest.snapshot import open_snapshot

FORMAT_DOC = Path(__file__).resolve().parents[1] / "ingest" / "jsonl_format.md"
BASE = {"jurisdiction": "us-ia", "authority": "statute", "effective_from": "2019-07-01"}
CHAPTER_TEXT = (
    "A person who operates a {what} shall keep proof of financial responsibility and shall "
    "show it to a peace officer on request; failure to do so is a simple misdemeanor."
)


def _chapter(number: int, what: str) -> list[dict]:
    """A small chapter in the JSONL format: a document, three sections, a clause each."""
    top = f"/us/ia/code/ch{number}"
    rows = [{"id": top, "type": "Document", "text": f"Chapter {number}", **BASE}]
    for s in range(1, 4):
        sec = f"/us/ia/code/s{number}.{s}"
        rows.append({"id": sec, "type": "Section", "parent": top, "heading": f"{what} {s}.",
                     "text": CHAPTER_TEXT.format(what=what) * s,
                     "citation": f"Iowa Code § {number}.{s}", **BASE})
        rows.append({"id": f"{sec}/1", "parent": sec, "text": f"The {what} of subsection {s}.",
                     "citation": f"Iowa Code § {number}.{s}(1)", **BASE})
    return rows


def write_corpus(root: Path) -> Path:
    """Three JSONL sources (the documented example and two chapters) in `root`."""
    root.mkdir(parents=True, exist_ok=True)
    block = re.search(r"```jsonl\n(.*?)```", FORMAT_DOC.read_text(encoding="utf-8"), re.S)
    assert block
    (root / "iowa-321a.jsonl").write_text(block.group(1), encoding="utf-8")
    for number, what in ((322, "motorcycle"), (323, "snowmobile")):
        rows = _chapter(number, what)
        (root / f"iowa-{number}.jsonl").write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
        )
    return root


def snapshot_contents(index: Path) -> dict:
    """Everything the comparison covers, read from the current snapshot of `index`."""
    import faiss

    snap = open_snapshot(index).path
    with duckdb.connect(str(snap / STORE_FILE), read_only=True) as con:
        store = {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in SCHEMA}
    meta = json.loads((snap / "meta.json").read_text())
    vectors = faiss.read_index(str(snap / "dense" / "index.faiss"))
    return {
        "store": store,
        "graph": gzip.decompress((snap / GRAPH_FILE).read_bytes()),  # not the gzip header's time
        "lucene": read_docids(snap / "lucene"),
        "dense_docids": json.loads((snap / "dense" / "docids.json").read_text()),
        "vectors": faiss.serialize_index(vectors).tobytes(),
        "sources": meta["sources"],
        "warnings": meta["warnings"],
    }


RAY_RUN = """
import json, sys
from pathlib import Path
import ray
from typer.testing import CliRunner
import typer
from structfirst.cli import ingest_cmd
from structfirst.ingest.pipeline import ingest
from structfirst.ingest.ray_ingest import RayIngest, connect

src, index, bad = map(Path, sys.argv[1:4])
connect("local", 2)  # ray.init(num_cpus=2), kept for both runs below
try:
    # encode_chunk=4: the passages go to both actors in several calls
    with RayIngest("local", workers=2, encode_chunk=4) as cluster:
        info = ingest([src], index, colbert=False, progress=False, ray=cluster)
    app = typer.Typer()
    ingest_cmd.register(app)
    failed = CliRunner().invoke(app, ["ingest", str(bad), "--index", str(index.parent / "bad"),
                                      "--no-colbert", "--no-progress", "--ray", "local",
                                      "--workers", "2"])
    print(json.dumps({"indexes": sorted(info.indexes), "dense": info.indexes["dense"],
                      "exit": failed.exit_code,
                      "output": failed.output}))
finally:
    ray.shutdown()
"""


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("ray-ingest")
    src = write_corpus(root / "src")
    bad = write_corpus(root / "bad")
    (bad / "iowa-999.jsonl").write_text('{"id": "/us/ia/code/ch999", "type": "Document"}\n')
    here = ingest([src], root / "here", colbert=False, progress=False)
    assert sorted(here.indexes) == ["dense", "lucene"]
    proc = subprocess.run(  # Ray in a process of its own (its threads upset later tests)
        [sys.executable, "-c", RAY_RUN, str(src), str(root / "ray"), str(bad)],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    child = json.loads(proc.stdout.strip().splitlines()[-1])
    return {"here": snapshot_contents(root / "here"), "ray": snapshot_contents(root / "ray"),
            "child": child, "bad": bad}


def test_ray_ingest_gives_the_same_snapshot(runs: dict) -> None:
    here, ray = runs["here"], runs["ray"]
    dense = runs["child"]["dense"]
    assert runs["child"]["indexes"] == ["dense", "lucene"]
    assert dense["encoded"] == dense["unique_texts"] >= 12  # encoded on the actors, no cache
    assert len(here["store"]["artifacts"]) >= 20 and here["store"]["edges"]  # not vacuous
    assert len(here["sources"]) == 3 and len(here["lucene"]) >= 12
    for part in ("store", "graph", "lucene", "dense_docids", "vectors", "sources", "warnings"):
        assert ray[part] == here[part], part


def test_a_source_failing_on_ray_names_its_file(runs: dict) -> None:
    child = runs["child"]
    assert child["exit"] == 1
    message = child["output"].replace("\n", "")
    bad = runs["bad"] / "iowa-999.jsonl"
    assert f"error: {bad}: line 1, field 'text': missing (required)" in message


def test_encode_chunks_keep_whole_batches_in_order() -> None:
    batches = [["a", "b", "c"], ["d"], ["e", "f"], ["g"]]
    assert encode_chunks(batches, 3) == [[["a", "b", "c"]], [["d"], ["e", "f"]], [["g"]]]
    assert encode_chunks(batches, 100) == [batches]
    assert encode_chunks([], 3) == []
