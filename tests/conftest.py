"""Shared test fixtures: the shared corpus beside the repo, torch on one thread."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from structfirst.ingest.corpus import corpus_root


@pytest.fixture(scope="session")
def corpus() -> Path:
    return corpus_root()


@pytest.fixture(scope="session", autouse=True)
def onnx_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The dense encoder's ONNX exports go to a directory of this test session."""
    from structfirst.ingest.onnx_encoder import ENV_ONNX_CACHE

    with pytest.MonkeyPatch.context() as mp:
        path = tmp_path_factory.mktemp("onnx-cache")
        mp.setenv(ENV_ONNX_CACHE, str(path))
        yield path


@pytest.fixture(scope="module")
def one_thread() -> Iterator[None]:
    """Torch on one thread for the module's tests (the machine is shared), then as before."""
    import torch  # here, not above: only the encoder tests need it

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
