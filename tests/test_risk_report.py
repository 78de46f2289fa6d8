"""H6 on the fixture end to end: fit a calibrated configuration, evaluate it, and the report
(HTML numbers against metrics.json, every figure written)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from learning_data import fixture_queries
from structfirst.calibration.report import FIGURES, TABLE_METRICS, write_risk_report
from structfirst.engine.configuration import load_configurations
from structfirst.eval.ablation import run_ablation
from structfirst.eval.query_set import Query
from structfirst.eval.report import write_report
from structfirst.fusion.training import fit_configurations
from test_fusion import write_split

pytest_plugins = ["engine_fixtures", "learning_fixtures"]

TABLE = """
[fast-learned]
description = "fast planes, learned fusion"
planes = ["lexical", "graph", "symbolic"]
fusion = { kind = "lightgbm", model = "fusion-fast" }

[fast-H6]
description = "fast planes, learned fusion, calibrated abstention"
planes = ["lexical", "graph", "symbolic"]
fusion = { kind = "lightgbm", model = "fusion-fast" }
calibration = { kind = "isotonic", model = "calibrator-fast" }
tuning.fusion = { split = "train", procedure = "LGBMRanker, early-stopped on dev" }
"""


@pytest.fixture(scope="module")
def evaluated(
    small_index: Path,
    tmp_path_factory: pytest.TempPathFactory,
    dev_queries: list[Query],
) -> Path:
    root = tmp_path_factory.mktemp("h6")
    table = root / "configurations.toml"
    table.write_text(TABLE, encoding="utf-8")
    configs = load_configurations(table)
    train = write_split(fixture_queries("train", 120), "train", root / "train.jsonl")
    dev = write_split(dev_queries, "dev", root / "dev.jsonl")
    saved = fit_configurations(
        small_index, train, dev, root / "models", [configs["fast-H6"]], [configs["fast-learned"]]
    )
    assert [s.step for s in saved] == ["fusion", "calibration", "score calibration"]
    record = json.loads((root / "models" / "calibrator-fast" / "calibrator.json").read_text())
    assert record["threshold"]["target_accuracy"] == 0.95 and record["snapshot_id"]
    assert record["guarantee_check"]["resplits"] == 200
    result = run_ablation(
        small_index, dev, ["fast-learned", "fast-H6"], root / "eval", n_boot=50, progress=False,
        models_dir=root / "models", table=table,
    )
    write_report(result, root / "eval")
    return root


def test_the_calibrated_configuration_carries_confidence_and_theta(evaluated: Path) -> None:
    lines = (evaluated / "eval" / "runs" / "fast-H6.outputs.jsonl").read_text().splitlines()
    outputs = [json.loads(line) for line in lines]
    assert all(0.0 <= o["confidence"] <= 1.0 and o["threshold"] is not None for o in outputs)
    for o in outputs:
        assert o["abstain"] == (o["confidence"] <= o["threshold"])
        if o["abstain"] and o["confidence"] > 0:
            assert re.match(r"confidence \d\.\d\d is not above theta", o["reason"])
    h0 = [json.loads(line) for line in
          (evaluated / "eval" / "runs" / "fast-learned.outputs.jsonl").read_text().splitlines()]
    # without calibration, decisions stay; the confidence is the calibrated top score
    assert all(o["confidence_source"] == "calibrated top fused score" for o in h0)
    assert all(o["confidence"] == 0.0 for o in h0 if o["abstain"])
    assert len({o["confidence"] for o in h0}) > 1


def test_the_report_numbers_match_metrics_json_and_figures_exist(evaluated: Path) -> None:
    page = write_risk_report(evaluated / "eval", evaluated / "report")
    text = page.read_text(encoding="utf-8")
    metrics = json.loads((evaluated / "eval" / "metrics.json").read_text())
    for name in FIGURES:
        assert (evaluated / "report" / name).stat().st_size > 1000
        assert f"<figcaption>{name}</figcaption>" in text
    for config in ("fast-learned", "fast-H6"):
        row = re.search(rf'<tr data-config="{config}">(.*?)</tr>', text).group(1)
        cells = re.findall(r'<td(?: data-value="([^"]+)")?[^>]*>', row)
        assert len(cells) == len(TABLE_METRICS)
        for metric, cell in zip(TABLE_METRICS, cells, strict=True):
            want = metrics["metrics"][config]["overall"][metric]["value"]
            assert (want is None and cell == "") or abs(float(cell) - want) < 1e-6, metric
    assert metrics["header"]["query_set_sha256"] in text
    assert "Abstentions of the calibrated configuration" in text
