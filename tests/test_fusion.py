"""Learned fusion: fit on the fixture, save with its record, load, refuse another schema."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import date
from pathlib import Path

import numpy as np
import pytest
from learning_data import learned_config
from structfirst.engine.configuration import get_configuration
from structfirst.engine.engine import Engine
from structfirst.engine.features import FEATURE_NAMES, feature_matrix
from structfirst.eval.query_set import Query
from structfirst.fusion.models import META_FILE, LightGBMRanker, ModelError, load_model
from structfirst.fusion.rrf import FusedCandidate
from structfirst.fusion.training import FitError, fit_configurations
from structfirst.ingest.corpus import REPO_ROOT

pytest_plugins = ["engine_fixtures", "learning_fixtures"]

QUERIES = REPO_ROOT / "data" / "queries"


def write_split(queries: list[Query], split: str, path: Path) -> Path:
    wanted = {q.qid for q in queries}
    lines = [
        line for line in (QUERIES / f"{split}.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip() and json.loads(line)["qid"] in wanted
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def fitted(
    small_index: Path, models_dir: Path, train_queries: list[Query], dev_queries: list[Query]
) -> Path:
    train = write_split(train_queries, "train", models_dir / "train.jsonl")
    dev = write_split(dev_queries, "dev", models_dir / "dev.jsonl")
    configs = [learned_config(), learned_config("fast-logistic", "logistic")]
    saved = fit_configurations(small_index, train, dev, models_dir, configs)
    assert [(s.config, s.step) for s in saved] == [
        ("fast-learned", "fusion"), ("fast-logistic", "fusion")
    ]
    return models_dir


def test_fit_writes_the_model_with_its_record(fitted: Path) -> None:
    meta = json.loads((fitted / "fusion-lightgbm" / META_FILE).read_text())
    assert meta["kind"] == "lightgbm" and meta["trees_by"] == "cv"
    curves = meta["cv_ndcg@10_by_trees"]  # per booster, the fold-mean nDCG@10 after 1..150 trees
    assert meta["bags"] == len(curves) == 10 and {len(c) for c in curves} == {150}
    assert meta["trees"] == [c.index(max(c)) + 1 for c in curves]
    assert len(meta["training_set_sha256"]) == 64 and meta["snapshot_id"]
    assert meta["tuning"]["split"] == "train" and "cross-validated" in meta["tuning"][
        "procedure"
    ]
    assert set(meta["library_versions"]) >= {"lightgbm", "scikit-learn"}
    assert meta["trained_with"]["planes"] == ["graph", "lexical", "symbolic"]
    assert max(meta["weights"].values()) > 0  # gain importances
    logistic = json.loads((fitted / "fusion-logistic" / META_FILE).read_text())
    assert logistic["kind"] == "logistic" and len(logistic["weights"]) == len(meta["weights"])


def fast_candidates(index: Path, question: str) -> tuple[FusedCandidate, ...]:
    """The `fast` configuration's candidates for `question`, with the learned features."""
    engine = Engine.open(index)
    frame = engine.pipeline(get_configuration("fast")).transform(
        engine.start_frame(question, date(2012, 1, 1), None, get_configuration("fast"))
    )
    return engine.features_stage(learned_config()).transform(frame).candidates


@pytest.mark.parametrize(
    ("ranker", "error"),
    [
        (LightGBMRanker(trees_by="dev"), "needs the dev lists"),
        (LightGBMRanker(trees_by="best"), "trees_by must be one of"),
        (LightGBMRanker(cv_folds=5), "needs at least 5 queries with candidates, got 1"),
    ],
)
def test_the_tree_count_needs_what_it_is_chosen_on(
    small_index: Path, ranker: LightGBMRanker, error: str
) -> None:
    lists = [fast_candidates(small_index, "What does 'insider' mean?")]
    with pytest.raises(ValueError, match=error):
        ranker.fit(lists, [[1] + [0] * (len(lists[0]) - 1)])


def test_the_engine_answers_with_the_learned_fusion(small_index: Path, fitted: Path) -> None:
    engine = Engine.open(small_index, models_dir=fitted)
    question = "What was the §547(c)(9) threshold for a case filed in June 2011?"
    bundle = engine.ask(question, config=learned_config())
    assert bundle.candidates and "fusion" in bundle.timings_ms
    scores = [c.fused_score for c in bundle.candidates]
    assert scores == sorted(scores, reverse=True)
    assert all(date.fromisoformat(c.effective_from) <= date(2011, 6, 1) for c in bundle.candidates)
    again = engine.ask(question, config=learned_config())
    assert [c.version_id for c in again.candidates] == [c.version_id for c in bundle.candidates]


def test_the_bagged_model_scores_the_mean_of_its_boosters(
    small_index: Path, fitted: Path, tmp_path: Path
) -> None:
    model = load_model(fitted / "fusion-lightgbm")
    assert isinstance(model, LightGBMRanker) and len(model.boosters_) == 10
    candidates = fast_candidates(small_index, "What does 'insider' mean?")
    x = np.array(feature_matrix(candidates), dtype=float)
    each = np.array([b.predict(x) for b in model.boosters_])
    assert np.allclose(model.predict(candidates), each.mean(axis=0))
    assert not np.allclose(each[0], each[1])  # fitted on different queries
    folder = tmp_path / "short"
    folder.mkdir()
    for f in (fitted / "fusion-lightgbm").iterdir():
        if f.name != "model-9.txt":
            (folder / f.name).write_bytes(f.read_bytes())
    with pytest.raises(ModelError, match=r"model-9\.txt: missing \(meta.json names 10"):
        load_model(folder)
    meta = json.loads((folder / META_FILE).read_text())
    del meta["bag_fraction"]
    (folder / META_FILE).write_text(json.dumps(meta))
    with pytest.raises(ModelError, match=r"'bags' .* are 10 and None; refit"):
        load_model(folder)


def test_each_bag_is_a_seeded_share_of_the_queries() -> None:
    bags = LightGBMRanker(n_bags=3, bag_fraction=0.5, seed=7).bags(10)
    assert bags == LightGBMRanker(n_bags=3, bag_fraction=0.5, seed=7).bags(10)
    assert all(len(b) == 5 and b == sorted(set(b)) for b in bags) and bags[0] != bags[1]
    assert LightGBMRanker(n_bags=1).bags(4) == [[0, 1, 2, 3]]
    with pytest.raises(ValueError, match="bag_fraction in"):
        LightGBMRanker(bag_fraction=0).bags(4)


def test_a_model_with_a_renamed_feature_fails_to_load(fitted: Path, tmp_path: Path) -> None:
    folder = tmp_path / "renamed"
    folder.mkdir()
    for f in (fitted / "fusion-logistic").iterdir():
        (folder / f.name).write_bytes(f.read_bytes())
    meta = json.loads((folder / META_FILE).read_text())
    meta["feature_names"][FEATURE_NAMES.index("lexical_rrank")] = "lexical_reciprocal_rank"
    (folder / META_FILE).write_text(json.dumps(meta))
    with pytest.raises(ModelError, match=r"another feature schema.*missing from the model: "
                       r"\['lexical_rrank'\]; unknown to the code: \['lexical_reciprocal_rank'\]"):
        load_model(folder)


def test_a_model_fitted_on_other_planes_is_refused(small_index: Path, fitted: Path) -> None:
    engine = Engine.open(small_index, models_dir=fitted)
    other = replace(learned_config(), planes=("lexical", "graph"))
    with pytest.raises(ModelError, match="fitted with .*'symbolic'.* runs"):
        engine.ask("What does 'insider' mean?", config=other)


def test_a_missing_model_is_refused_before_the_query_runs(small_index: Path, tmp_path) -> None:
    engine = Engine.open(small_index, models_dir=tmp_path)
    with pytest.raises(ValueError, match="needs the model .*fusion-lightgbm.*structfirst fit"):
        engine.ask("What does 'insider' mean?", config=learned_config())


def test_fit_refuses_an_empty_train_split_and_the_test_split(
    small_index: Path, tmp_path: Path, dev_queries: list[Query]
) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    dev = write_split(dev_queries, "dev", tmp_path / "dev.jsonl")
    with pytest.raises(FitError, match="train split has no answerable labeled query"):
        fit_configurations(small_index, empty, dev, tmp_path, [learned_config()])
    with pytest.raises(FitError, match="holds test-split queries .*never fit on the test"):
        fit_configurations(small_index, QUERIES / "test.jsonl", dev, tmp_path, [learned_config()])
    # several training files are one training set, each query once
    with pytest.raises(FitError, match="training queries given twice: "):
        fit_configurations(small_index, [dev, dev], dev, tmp_path, [learned_config()])


def test_configurations_share_head_frames_only_when_their_heads_match() -> None:
    from structfirst.fusion.training import head_settings

    h5 = head_settings(get_configuration("H5"))
    assert head_settings(get_configuration("H6-80")) == h5  # a calibration of its own only
    assert head_settings(get_configuration("H5-logistic")) == h5  # another fusion model only
    assert head_settings(get_configuration("H5-thesaurus")) != h5  # another lexical query
