"""Encoder adaptation on a tiny JSONL code: the mined pairs are what they claim; `structfirst
adapt` writes a model (and its record) that the dense plane loads and that encodes differently
from the base model; `structfirst adapt-reranker` trains a cross-encoder that learns its pairs
and that the engine scores with as f_theta, cross-fitted on request: a training question is
scored by the fold model trained without it."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import date
from pathlib import Path

import numpy as np
import pytest
from structfirst.cli.main import app
from structfirst.engine.configuration import get_configuration
from structfirst.engine.engine import Engine
from structfirst.eval.query_set import load_queries
from structfirst.fusion.cross_encoder import FOLDS_DIR, HELD_OUT_FILE, CrossEncoderScorer
from structfirst.fusion.cross_encoder import RECORD_FILE as CROSS_ENCODER_RECORD
from structfirst.ingest.dense_index import DenseEncoder, DenseIndexBuilder
from structfirst.ingest.encoder_adaptation import RECORD_FILE
from structfirst.ingest.encoder_config import EncoderConfig
from structfirst.ingest.pipeline import ingest
from structfirst.ingest.snapshot import open_snapshot
from structfirst.ingest.training_pairs import PairMiner
from typer.testing import CliRunner

T = "/us/usc/t11"
LINES = [
    {"id": T, "type": "Document", "text": "Title 11"},
    {"id": f"{T}/s101", "type": "Section", "heading": "Definitions", "parent": T,
     "text": "In this title the following definitions shall apply:"},
    {"id": f"{T}/s101/13", "parent": f"{T}/s101", "defines": ["debtor"],
     "text": "The term debtor means person or municipality concerning which a case under this "
             "title has been commenced."},
    {"id": f"{T}/s101/31", "parent": f"{T}/s101", "defines": ["insolvent"],
     "text": "The term insolvent means financial condition such that the sum of such entity's "
             "debts is greater than all of such entity's property, at a fair valuation."},
    {"id": f"{T}/s547", "type": "Section", "heading": "Preferences", "parent": T,
     "text": "Preferential transfers of property of the debtor."},
    {"id": f"{T}/s547/b", "parent": f"{T}/s547", "cross_refs": [f"{T}/s547/c"],
     "text": "Except as provided in subsection (c), the trustee may avoid any transfer of an "
             "interest of the debtor in property made within 90 days before the petition."},
    {"id": f"{T}/s547/c", "parent": f"{T}/s547",
     "text": "The trustee may not avoid under this section a transfer made in the ordinary "
             "course of business of the debtor and the transferee."},
    {"id": f"{T}/s547/c/9", "parent": f"{T}/s547/c",
     "text": "if, in a case filed by a debtor whose debts are not primarily consumer debts, the "
             "aggregate value of all property that constitutes or is affected by such transfer "
             "is less than $5,000."},
    {"id": f"{T}/s362", "type": "Section", "heading": "Automatic stay", "parent": T,
     "text": "A petition filed under section 301 operates as a stay of collection acts."},
    {"id": f"{T}/s362/a", "parent": f"{T}/s362",
     "text": "any act to collect, assess, or recover a claim against the debtor that arose "
             "before the commencement of the case."},
]
QUESTIONS = [
    ("tr-1", "train", "Can a trustee claw back a small payment a business made to a vendor?",
     f"{T}/s547/c/9"),
    ("tr-2", "train", "Can my lender keep phoning me about the car loan after I filed?",
     f"{T}/s362/a"),
    ("dv-1", "dev", "Which payments shortly before bankruptcy can the trustee undo?",
     f"{T}/s547/b"),
]


def _query(qid: str, split: str, question: str, label: str) -> dict:
    return {"qid": qid, "question": question, "type": "lookup", "as_of": "2012-06-01",
            "jurisdiction": "us-federal", "answerable": True, "abstain_reason": None,
            "labels": [{"id": label, "grade": 2, "why": "", "valid_from": "2005-10-17",
                        "valid_to": None}],
            "facts": {}, "expected_verdicts": {}, "origin": "handwritten",
            "provision": label.rsplit("/", 1)[0], "split": split}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory, one_thread: None) -> Path:
    root = tmp_path_factory.mktemp("adapt")
    (root / "src").mkdir()
    lines = [{"jurisdiction": "us-federal", "authority": "statute",
              "effective_from": "2005-10-17", **line} for line in LINES]
    (root / "src" / "t11.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    for split in ("train", "dev"):
        rows = [_query(*q) for q in QUESTIONS if q[1] == split]
        (root / f"{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    ingest([root / "src"], root / "index", progress=False,
           builders=[DenseIndexBuilder(cache_dir=root / "index" / "cache", progress=False)])
    return root


def test_mined_pairs_are_what_they_claim_and_negatives_exclude_positives(tiny: Path) -> None:
    snap = open_snapshot(tiny / "index")
    triples, docs = PairMiner(negatives_pool=2).transform(
        snap.path, load_queries(tiny / "train.jsonl"))
    node = {d.version_id: d.node_id for d in docs}
    by_source: dict[str, set[tuple[str, str]]] = {}
    for t in triples:
        by_source.setdefault(t.source, set()).add((t.anchor, node[t.positive]))
        positive, negative = node[t.positive], node[t.negative]
        assert not (negative == positive or negative.startswith(positive + "/")
                    or positive.startswith(negative + "/")), t
    assert ("definition of insolvent", f"{T}/s101/31") in by_source["defined_term"]
    assert ("Preferences", f"{T}/s547") in by_source["heading"]
    assert by_source["question"] == {(q[2], q[3]) for q in QUESTIONS if q[1] == "train"}
    with pytest.raises(ValueError, match="train only"):
        PairMiner().transform(snap.path, load_queries(tiny / "dev.jsonl"))


def test_adapt_writes_a_model_the_dense_plane_loads_and_that_moves_vectors(tiny: Path) -> None:
    out = tiny / "models" / "dense-adapted"
    args = [
        "adapt", "--index", str(tiny / "index"), "--train", str(tiny / "train.jsonl"),
        "--dev", str(tiny / "dev.jsonl"), "--out", str(out), "--work", str(tiny / "work"),
        "--max-steps", "3", "--batch-size", "4", "--checkpoints", "2", "--threads", "1",
        "--learning-rate", "1e-3",
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    record = json.loads((out / RECORD_FILE).read_text())
    again = CliRunner().invoke(app, args)  # same triples and settings: the checkpoints are reused
    assert again.exit_code == 0, again.output
    resumed = json.loads((out / RECORD_FILE).read_text())
    assert resumed["training_seconds"] == record["training_seconds"]
    assert resumed["model_fingerprint"] == record["model_fingerprint"]
    assert record["steps"] == 3 and record["snapshot_id"] == open_snapshot(
        tiny / "index").snapshot_id
    assert set(record["tuning"]["checkpoint"]["candidates"]) == {"step-2", "step-3"}
    assert record["tuning"]["checkpoint"]["split"] == "dev"
    assert sum(record["pairs_by_source"].values()) == record["triples"] > 0
    assert len(record["training_data_sha256"]) == 64
    assert record["model_fingerprint"] != record["base_model"]["fingerprint"]

    adapted = EncoderConfig.resolve(dense_model=out)
    assert adapted.pooling == "mean"
    base = EncoderConfig.resolve()
    text = [LINES[7]["text"]]
    a, b = DenseEncoder(adapted).encode_passages(text), DenseEncoder(base).encode_passages(text)
    assert np.isclose(np.linalg.norm(a), 1.0, atol=1e-4)
    assert float(a[0] @ b[0]) < 0.9999
    assert adapted.dense_model_key() == record["dense_model_key"]
    assert date.fromisoformat(record["created_at"][:10])


def test_adapt_reranker_trains_a_cross_encoder_the_engine_scores_with(tiny: Path) -> None:
    out = tiny / "models" / "cross-encoder"
    args = [
        "adapt-reranker", "--index", str(tiny / "index"), "--train", str(tiny / "train.jsonl"),
        "--out", str(out), "--max-steps", "40", "--batch-size", "8", "--threads", "1",
        "--learning-rate", "1e-4", "--max-length", "96", "--question-repeats", "1",
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    record = json.loads((out / CROSS_ENCODER_RECORD).read_text())
    assert record["steps"] == 40 and record["format"] == "structfirst-cross-encoder/1"
    assert sum(record["pairs_by_source"].values()) == record["triples"] > 0
    assert record["model_fingerprint"] != record["base_model"]["fingerprint"]
    assert not out.with_name("cross-encoder.new").exists()

    engine = Engine.open(tiny / "index", models_dir=tiny / "models")
    cfg = replace(get_configuration("H5"), neural="cross-encoder", neural_model="cross-encoder")
    scorer = engine.f_theta(cfg)
    assert engine.f_theta(cfg) is scorer  # loaded once
    triples, _ = PairMiner().transform(open_snapshot(tiny / "index").path,
                                       load_queries(tiny / "train.jsonl"))
    wins = 0
    for t in triples:
        s = scorer.scores(t.anchor, [t.positive, t.negative])
        wins += s[t.positive] > s[t.negative]
    assert wins >= 0.8 * len(triples), (wins, len(triples))  # it learnt its pairs
    unindexed = f"{T}/nowhere@2005-10-17"  # a version no index holds gets no score
    assert set(scorer.scores("avoid", [t.positive, unindexed])) == {t.positive}
    with pytest.raises(FileNotFoundError, match="no cross_encoder.json"):
        engine.f_theta(replace(cfg, neural_model="missing"))


def test_a_cross_fitted_cross_encoder_scores_each_training_question_with_the_fold_without_it(
        tiny: Path) -> None:
    out = tiny / "models-cf" / "cross-encoder"
    base = tiny / "models" / "cross-encoder"
    args = [
        "adapt-reranker", "--index", str(tiny / "index"), "--train", str(tiny / "train.jsonl"),
        "--out", str(out), "--max-steps", "6", "--batch-size", "8", "--threads", "1",
        "--max-length", "96", "--question-repeats", "1", "--folds", "2",
        "--caps", json.dumps({s: 0 for s in ("heading", "defined_term", "cross_ref", "threshold",
                                             "amendment", "interpretation")}),
    ] + (["--base-model", str(base)] if (base / CROSS_ENCODER_RECORD).is_file() else [])
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    record = json.loads((out / CROSS_ENCODER_RECORD).read_text())
    assert record["pairs_by_source"] == {"question": record["triples"]}  # no structural pairs
    assert record["cross_fitting"]["folds"] == 2
    questions = [q.question for q in load_queries(tiny / "train.jsonl")]
    held = [json.loads((out / FOLDS_DIR / str(k) / HELD_OUT_FILE).read_text()) for k in (0, 1)]
    assert sorted(held[0] + held[1]) == sorted(questions) and all(len(h) == 1 for h in held)
    for k in (0, 1):  # each fold trained on the other question only
        assert record["cross_fitting"]["by_fold"][k]["triples"] < record["triples"]

    engine = Engine.open(tiny / "index", models_dir=tiny / "models-cf")
    cfg = replace(get_configuration("H5"), neural="cross-encoder", neural_model="cross-encoder")
    scorer = engine.f_theta(cfg)
    fold_models = [scorer.model_for(h[0]) for h in held]
    assert fold_models[0] is not fold_models[1]
    assert scorer.model_for(held[0][0] + " 547(c)(9)") is fold_models[0]  # citation forms added
    assert scorer.model_for("Which payments can the trustee undo?") is scorer.model
    triples, _ = PairMiner().transform(open_snapshot(tiny / "index").path,
                                       load_queries(tiny / "train.jsonl"))
    vid = triples[0].positive
    full = CrossEncoderScorer(scorer.model, engine.passage_text)
    assert scorer.scores(held[0][0], [vid]) != full.scores(held[0][0], [vid])
