"""A small real index for the engine and query-CLI tests.

Loaded by the test modules as a plugin (`pytest_plugins = ["engine_fixtures"]`). The index holds
four Title 11 editions that span the § 547(c)(9) threshold changes (2007, 2010, 2013, 2018)
and two Regulation M versions, with the lexical index only (no dense or ColBERT index), so
engine tests run the "fast" configuration.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from structfirst.engine.engine import Engine
from structfirst.ingest.pipeline import ingest

TITLE11_YEARS = (2007, 2010, 2013, 2018)
REG_M_FILES = ("2011-31723.xml", "2017-24411.xml")


def small_sources(corpus: Path) -> list[Path]:
    title11 = [corpus / "us-code" / "title-11" / str(y) / "usc11.htm" for y in TITLE11_YEARS]
    reg_m = [corpus / "cfr-12" / "regulation" / "1013" / name for name in REG_M_FILES]
    return title11 + reg_m


@pytest.fixture(scope="session")
def small_index(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    index = tmp_path_factory.mktemp("engine") / "index"
    info = ingest(small_sources(corpus), index, dense=False, progress=False)
    assert info.counts["artifacts"] > 1000 and "lucene" in info.indexes
    return index


@pytest.fixture(scope="session")
def engine(small_index: Path) -> Engine:
    return Engine.open(small_index)
