"""Fixtures for the stage, feature and fusion tests (a plugin, after `engine_fixtures`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from learning_data import fixture_queries
from structfirst.eval.query_set import Query


@pytest.fixture(scope="session")
def train_queries() -> list[Query]:
    return fixture_queries("train", 40)


@pytest.fixture(scope="session")
def dev_queries() -> list[Query]:
    return fixture_queries("dev", 12)


@pytest.fixture(scope="session")
def models_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("models")
