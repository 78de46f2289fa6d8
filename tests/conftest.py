"""Shared test fixtures: the shared corpus beside the repo."""

from __future__ import annotations

from pathlib import Path

import pytest
from structfirst.ingest.corpus import corpus_root


@pytest.fixture(scope="session")
def corpus() -> Path:
    return corpus_root()
