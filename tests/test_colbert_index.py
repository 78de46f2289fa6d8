"""ColBERT plane: a colbert-ai PLAID index from the MiniLM-derived checkpoint, filtered search."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from datetime import date
from pathlib import Path

import numpy as np
import pytest
import torch
from legal_passages import (
    AMOUNT_QUERY,
    HARD_FILTERS,
    PARAPHRASE,
    S101_31,
    S547_C9_2005,
    S547_C9_2019,
    assert_hard_filter_gives_its_allowed_set,
    legal_docs,
)
from structfirst.engine.colbert_plane import ColbertPlane
from structfirst.ingest.colbert_index import (
    META_FILE,
    ColbertIndexBuilder,
    colbert_settings,
    default_checkpoint_key,
    derived_projection,
    import_colbert,
    kmeans_sample_size,
    partition_count,
    passages_to_encode,
    unpadded_doc_batches,
)
from structfirst.ingest.colbert_onnx import doc_checkpoint_class
from structfirst.ingest.encoder_config import SHARED_COLBERT_BACKEND, EncoderConfig
from structfirst.ingest.shared_pass import SharedPass


def _build(index_dir: Path, config: EncoderConfig) -> dict:
    colbert_dir = index_dir / "snap-1" / "colbert"
    figures = ColbertIndexBuilder(config).build(legal_docs(), colbert_dir)
    return {"index_dir": index_dir, "dir": colbert_dir, "figures": figures,
            "plane": ColbertPlane(colbert_dir, config)}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, one_thread: None) -> dict:
    """A build under the default configuration (the shared MiniLM pass)."""
    return _build(tmp_path_factory.mktemp("index"), EncoderConfig.resolve())


@pytest.fixture(scope="module")
def built_by_checkpoint(tmp_path_factory: pytest.TempPathFactory, one_thread: None) -> dict:
    """A build whose documents go through colbert-ai's Checkpoint (backend onnx-int8)."""
    config = EncoderConfig.resolve(colbert_backend="onnx-int8")
    return _build(tmp_path_factory.mktemp("index"), config)


def test_build_writes_a_plaid_index(built: dict) -> None:
    figures = built["figures"]
    assert figures["docs"] == len(legal_docs()) and figures["embeddings"] > figures["docs"]
    meta = json.loads((built["dir"] / META_FILE).read_text())
    assert meta["default_checkpoint"] and not Path(meta["checkpoint"]).is_absolute()
    assert meta["encoder"]["colbert_backend"] == figures["backend"] == SHARED_COLBERT_BACKEND
    checkpoint = (built["dir"] / meta["checkpoint"]).resolve()
    assert checkpoint.parent == built["index_dir"] / "cache" / "colbert"
    assert (checkpoint / "artifact.metadata").is_file()
    assert (built["dir"] / "plaid" / "ivf.pid.pt").is_file()


def test_expected_documents_in_top3(built: dict) -> None:
    plane: ColbertPlane = built["plane"]
    insider = [d for d, _ in plane.search("who counts as an insider of a corporate debtor", 3)]
    assert S101_31 in insider
    small = [docid for docid, _ in plane.search(PARAPHRASE, 3)]
    assert any(docid.startswith("/us/usc/t11/s547/c/9@") for docid in small), small


def test_unpadded_doc_batches_leave_the_vectors_as_they_were(built: dict) -> None:
    checkpoint = built["plane"].searcher.checkpoint
    texts = [doc.contents for doc in legal_docs()[:9]]  # 3 length-sorted batches of 4, 4, 1
    padded, lengths = checkpoint.docFromText(texts, bsize=4, keep_dims="flatten")
    with unpadded_doc_batches():
        trimmed, trimmed_lengths = checkpoint.docFromText(texts, bsize=4, keep_dims="flatten")
    assert trimmed_lengths == lengths
    assert torch.allclose(trimmed, padded, atol=1e-5)


BUILDS = ["built", "built_by_checkpoint"]


@pytest.mark.parametrize("build", BUILDS)
def test_each_passage_is_encoded_once(build: str, request: pytest.FixtureRequest) -> None:
    # the fixture is small enough that k-means samples every passage: the index pass encodes
    # none of them again, it takes the sample's vectors
    built = request.getfixturevalue(build)
    docs = legal_docs()
    assert built["figures"]["kmeans_sample"] == len(docs)
    assert built["figures"]["passages_encoded"] == len(docs) == passages_to_encode(
        [d.contents for d in docs], EncoderConfig.resolve())


def _build_encoding(built: dict, texts: list[str]) -> tuple[torch.Tensor, list[int]]:
    """`texts` encoded as the build encoded its documents."""
    meta = json.loads((built["dir"] / META_FILE).read_text())
    config = EncoderConfig.resolve(colbert_backend=meta["encoder"]["colbert_backend"])
    if config.colbert_backend == SHARED_COLBERT_BACKEND:
        shared = SharedPass(derived_projection(config), default_checkpoint_key(config),
                            config.doc_maxlen)
        _, tokens = shared.encode(texts)
        return torch.from_numpy(np.concatenate(tokens)), [len(t) for t in tokens]
    encoder = doc_checkpoint_class(config.colbert_backend)(
        str((built["dir"] / meta["checkpoint"]).resolve()),
        colbert_config=colbert_settings(config), verbose=0)
    return encoder.docFromText(texts, bsize=8, keep_dims="flatten")


@pytest.mark.parametrize("build", BUILDS)
def test_the_index_holds_one_encoding_pass_of_every_passage(
        build: str, request: pytest.FixtureRequest) -> None:
    built = request.getfixturevalue(build)
    searcher = built["plane"].searcher
    vectors, lengths = _build_encoding(built, [doc.contents for doc in legal_docs()])
    stored = searcher.ranker.embeddings.codes[: sum(lengths)]  # colbert-ai pads the end
    assert searcher.ranker.doclens.tolist() == lengths
    codes = searcher.ranker.codec.compress_into_codes(vectors.half(), out_device="cpu")
    # a near tie may fall either way, and onnx-int8 quantizes activations per batch, so a
    # passage encoded in another batch may land on a neighbouring centroid (about 0.98 here;
    # above 0.99 with the float backends); vectors reused out of order would match far less
    assert (codes == stored).float().mean() > 0.95


@pytest.mark.parametrize("exact_limit", [512, 1], ids=["exhaustive", "plaid-filter_fn"])
def test_filter_is_respected(built: dict, exact_limit: int) -> None:
    plane: ColbertPlane = built["plane"]
    assert plane.search(AMOUNT_QUERY, 1)[0][0] == S547_C9_2005
    allowed = {doc.version_id for doc in legal_docs()} - {S547_C9_2005}
    plane.exact_limit = exact_limit  # 1: every allowed set goes through PLAID with filter_fn
    try:
        hits = plane.search(AMOUNT_QUERY, 5, allowed)
        unrelated = {d.version_id for d in legal_docs() if d.version_id.startswith("/other/")}
        few = plane.search(PARAPHRASE, 10, unrelated)
    finally:
        plane.exact_limit = 512
    assert hits[0][0] == S547_C9_2019
    assert len(hits) == 5 and all(docid in allowed for docid, _ in hits)
    assert {docid for docid, _ in few} == unrelated  # never short, though none is in the top 10


def test_index_moves_and_derives_its_checkpoint_again(built: dict, tmp_path: Path) -> None:
    # the snapshot is copied elsewhere without the shared cache: the plane finds the checkpoint
    # through its relative path and derives it again there (deterministically)
    moved = tmp_path / "moved-index" / "snap-1" / "colbert"
    shutil.copytree(built["dir"], moved)
    plane = ColbertPlane(moved)
    meta = json.loads((moved / META_FILE).read_text())
    assert ((moved / meta["checkpoint"]).resolve() / "artifact.metadata").is_file()
    assert str((moved / meta["checkpoint"]).resolve()).startswith(str(tmp_path / "moved-index"))
    assert plane.search(AMOUNT_QUERY, 3) == built["plane"].search(AMOUNT_QUERY, 3)


def test_a_second_build_of_the_same_passages_reuses_the_cached_index(built: dict) -> None:
    assert "key" in built["figures"] and "reused" not in built["figures"]
    again_dir = built["index_dir"] / "snap-2" / "colbert"
    again = ColbertIndexBuilder(EncoderConfig.resolve()).build(legal_docs(), again_dir)
    assert again["reused"] == built["figures"]["key"]
    for name in ("ivf.pid.pt", "0.codes.pt", "centroids.pt"):
        assert (again_dir / "plaid" / name).read_bytes() == (
            built["dir"] / "plaid" / name).read_bytes()
    assert ColbertPlane(again_dir).search(AMOUNT_QUERY, 3) == built["plane"].search(AMOUNT_QUERY, 3)
    builder = ColbertIndexBuilder(EncoderConfig.resolve())
    checkpoint = Path(built["dir"] / json.loads((built["dir"] / META_FILE).read_text())[
        "checkpoint"]).resolve()
    passages = [d.contents for d in legal_docs()]
    edited = [passages[0] + " (as amended)", *passages[1:]]
    assert builder.build_key(passages, checkpoint) == built["figures"]["key"]
    assert builder.build_key(edited, checkpoint) != built["figures"]["key"]
    other = replace(EncoderConfig.resolve(), nbits=4)
    assert ColbertIndexBuilder(other).build_key(passages, checkpoint) != built["figures"]["key"]


@pytest.mark.parametrize(("day", "jurisdiction", "authorities"), HARD_FILTERS)
def test_hard_filter_gives_what_its_allowed_set_gives(
    built: dict, day: date, jurisdiction: str | None, authorities: frozenset[str] | None
) -> None:
    assert_hard_filter_gives_its_allowed_set(built["plane"], day, jurisdiction, authorities)


def test_kmeans_is_sized_for_the_corpus() -> None:
    config = EncoderConfig.resolve()
    colbert_ai = replace(config, partitions_per_sqrt=None, kmeans_sample_per_sqrt=None)
    # the Title 11 editions: 10,725 passages, 1.04M token vectors
    assert partition_count(1.04e6, colbert_ai) == 8192  # 2^floor(log2(16 sqrt(E)))
    assert partition_count(1.1e6, colbert_ai) == 16384
    assert partition_count(1.04e6, config) == 4096  # 2^round(log2(4 sqrt(E)))
    assert partition_count(10, config) == 16
    assert kmeans_sample_size(10_725, colbert_ai) == 10_725  # every passage, encoded twice
    assert kmeans_sample_size(10_725, config) == 4538  # 1 + 4 sqrt(120 N)
    assert kmeans_sample_size(100, config) == 100


def test_colbert_configs_save_inside_a_detached_head_checkout(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """colbert-ai records the working directory's git branch in every config it saves, which
    raises on a detached HEAD (how CI checks out a commit): the ingest must not care."""
    import subprocess

    repo = tmp_path / "checkout"
    repo.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo)]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "one"], check=True)
    subprocess.run([*git, "checkout", "-q", "--detach"], check=True)
    monkeypatch.chdir(repo)
    import_colbert()
    from colbert.infra.config import ColBERTConfig

    ColBERTConfig().save(str(tmp_path / "artifact.metadata"))
    meta = json.loads((tmp_path / "artifact.metadata").read_text())["meta"]
    assert meta["hostname"] and "git_branch" not in meta
