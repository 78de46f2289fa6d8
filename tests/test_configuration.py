"""The configuration table: inheritance, hard-filter modes and tuning records as data."""

from __future__ import annotations

from pathlib import Path

import pytest
from structfirst.engine.configuration import load_configurations
from structfirst.fusion.models import trained_with


def _table(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "configurations.toml"
    path.write_text(body, "utf-8")
    return path


def test_packaged_table_loads_and_no_setting_was_tuned_on_test() -> None:
    table = load_configurations()
    assert {"BM25-today", "BM25-all", "H0", "H4", "full", "fast"} <= set(table)
    for cfg in table.values():
        assert all(rec["split"] in ("train", "dev") for rec in cfg.tuning.values()), cfg.name
    assert table["BM25-today"].hard_filters == "today"
    assert table["BM25-all"].hard_filters == "none"
    assert table["H0"].hard_filters == "as_of"


def test_extends_starts_from_the_parent_and_overrides_it(tmp_path: Path) -> None:
    table = load_configurations(_table(tmp_path, """
[base]
description = "b"
planes = ["lexical", "graph"]
hierarchy_penalty = 2
tuning.hierarchy_penalty = { split = "dev", procedure = "grid 0..5 on dev nDCG@10" }

[child]
description = "c"
extends = "base"
planes = ["lexical"]
"""))
    child = table["child"]
    assert child.planes == ("lexical",) and child.hierarchy_penalty == 2
    assert child.tuning["hierarchy_penalty"]["split"] == "dev"


@pytest.mark.parametrize(("body", "message"), [
    ('tuning.rrf_k = { split = "test", procedure = "grid" }\nrrf_k = 30',
     r"\[x\]: tuning.rrf_k: split 'test' is not a tuning split"),
    ('tuning.rrf_k = { split = "dev", procedure = "grid" }',
     "tuning.rrf_k: names a setting the configuration does not set"),
    ('rrf_k = 30\ntuning.rrf_k = { split = "dev" }', "needs exactly the keys"),
    ('hard_filters = "yesterday"', "hard_filters must be one of"),
    ('extends = "nowhere"', "extends 'nowhere', which is unknown or a cycle"),
    ('extends = "x"', "extends 'x', which is unknown or a cycle"),
    ("family_depth = 30", r"\[x\]: family_depth needs learned fusion"),
    ("target_accuracy = 1.0", "target_accuracy must lie strictly between 0 and 1"),
    ("rm3_docs = 10\nrm3_terms = 0", r"\[x\]: RM3: docs \(10\) and terms \(0\) must be >= 1"),
])
def test_bad_entries_are_refused_naming_the_entry(tmp_path: Path, body: str, message: str) -> None:
    path = _table(tmp_path, f'[x]\ndescription = "x"\nplanes = ["lexical"]\n{body}\n')
    with pytest.raises(ValueError, match=message):
        load_configurations(path)


def test_learned_steps_are_nested_tables_with_a_model(tmp_path: Path) -> None:
    table = load_configurations()
    h5, h6 = table["H5"], table["H6"]
    assert (h5.fusion, h5.fusion_model, h5.reranker, h5.reranker_model) == (
        "lightgbm", "fusion-lightgbm", "domain", "reranker-domain"
    )
    assert h6.calibrated_abstention and h6.calibration_model == "calibrator-H6"
    assert not h5.plane_weights and not h5.hierarchy_penalty  # no hand-set weight in H5
    head = '[a]\ndescription = "a"\nplanes = ["lexical"]\nneural = "colbert"\n'
    bad = {
        "[a.fusion]\nmodel = 'm'": "needs `kind`",
        "[a.fusion]\nkind = 'lightgbm'\nmodle = 'm'": "needs `kind`, may have `model`",
        "[a.fusion]\nkind = 'forest'\nmodel = 'm'": "kind must be one of",
        "[a.fusion]\nkind = 'lightgbm'": "needs a model folder",
        "[a.reranker]\nkind = 'domain'\nmodel = 'r'": "needs learned fusion",
    }
    ce = table["H5-ce"]  # a trained f_theta is a learned step with its model folder
    assert (ce.neural, ce.neural_model) == ("cross-encoder", "cross-encoder")
    assert trained_with(ce) != trained_with(h5)  # a fusion fitted on the MaxSim is refused
    bad['[b]\ndescription = "b"\nplanes = ["lexical"]\nneural = "cross-encoder"'] = (
        "a cross-encoder neural needs a model folder")
    for body, message in bad.items():
        with pytest.raises(ValueError, match=message):
            load_configurations(_table(tmp_path, head + body))
