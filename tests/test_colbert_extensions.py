"""colbert-ai's C++ extensions compiled in a background process."""

from __future__ import annotations

import subprocess
import sys
import tempfile

import pytest
from structfirst.ingest.colbert_extensions import BuildProcess, start_build


def test_background_build_leaves_the_extensions_loadable() -> None:
    start_build().wait()  # compiles them, or finds them up to date
    completed = subprocess.run(
        [sys.executable, "-c",
         "from structfirst.ingest.colbert_extensions import build; build();"
         "from colbert.search.index_storage import IndexScorer;"
         "print(IndexScorer.decompress_residuals.__name__)"],
        capture_output=True, text=True, check=True)
    assert completed.stdout.strip().endswith("decompress_residuals_cpp")


def test_a_failed_build_raises_with_its_output() -> None:
    output = tempfile.TemporaryFile()
    failing = subprocess.Popen(
        [sys.executable, "-c", "import sys; print('ninja: build stopped'); sys.exit(3)"],
        stdout=output, stderr=subprocess.STDOUT)
    with pytest.raises(RuntimeError, match=r"(?s)exit 3.*ninja: build stopped"):
        BuildProcess(failing, output).wait()
