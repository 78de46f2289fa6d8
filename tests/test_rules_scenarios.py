"""Every scenario of the packaged library's `*.tests.toml` files is its own test item (as
OpenFisca's YAML test runner makes each YAML test one), named `file::scenario name`, so a
failure names the scenario; the message says which rule gave which verdict and why. Each
scenario is also evaluated by the Python oracle, which must give pyDatalog's verdicts."""

from __future__ import annotations

import pytest
from structfirst.rules.evaluator import evaluate, oracle_verdicts
from structfirst.rules.library_loader import LIBRARY_ROOT, Library, default_library
from structfirst.rules.scenario_tests import Scenario, read_scenarios, run_scenario


def _scenarios() -> list[pytest.param]:
    out = []
    for path in sorted(LIBRARY_ROOT.rglob("*.tests.toml")):
        scenarios, issues = read_scenarios(path)
        assert not issues, [str(i) for i in issues]  # a malformed file fails collection loudly
        name = path.relative_to(LIBRARY_ROOT).as_posix()
        out += [pytest.param(sc, id=f"{name}::{sc.name}") for sc in scenarios]
    return out


@pytest.fixture(scope="module")
def lib() -> Library:
    return default_library()


@pytest.mark.parametrize("scenario", _scenarios())
def test_scenario(lib: Library, scenario: Scenario) -> None:
    result = run_scenario(lib, scenario)
    assert result.passed, "\n".join(result.messages())


@pytest.mark.parametrize("scenario", [s for s in _scenarios() if not s.values[0].error])
def test_the_oracle_agrees_with_pydatalog(lib: Library, scenario: Scenario) -> None:
    sc = scenario
    rules = [lib.by_id[r][0] for r in sc.expect if r in lib.by_id]
    got = {v.rule_id: v.verdict for v in evaluate(rules, sc.facts, sc.as_of, library=lib,
                                                    refine=False)}
    assert got == oracle_verdicts(rules, sc.facts, sc.as_of, lib)
