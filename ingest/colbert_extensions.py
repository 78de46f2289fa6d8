"""Compile colbert-ai's CPU C++ extensions ahead of their first use, in a background process.

colbert-ai compiles four small C++ extensions (segmented_maxsim for indexing and search;
segmented_lookup, filter_pids and decompress_residuals for search) with torch's cpp_extension
and ninja the first time a process needs them, about 30 s each on two cores, and keeps them in
torch's extension cache (a new virtual environment compiles them again). `start_build` runs
that compile in a separate process, so an ingest overlaps it with parsing, which leaves a core
idle, instead of its ColBERT stage and the first search paying for it in line; torch's build
lock makes a process that needs an extension meanwhile wait for it. `python -m
structfirst.ingest.colbert_extensions` is that process.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from dataclasses import dataclass
from typing import IO


def build() -> None:
    """Compile (or find up to date) the extensions colbert-ai loads on this machine."""
    import torch
    from structfirst.ingest.colbert_index import import_colbert

    import_colbert()
    from colbert.modeling.colbert import ColBERT
    from colbert.search.index_storage import IndexScorer
    from colbert.search.strided_tensor import StridedTensor

    use_gpu = torch.cuda.is_available()  # colbert-ai's choice: no CPU extensions on a GPU
    for owner in (ColBERT, StridedTensor, IndexScorer):  # in the order an ingest needs them
        owner.try_load_torch_extensions(use_gpu)


@dataclass
class BuildProcess:
    """The background compile: `wait` returns once it is done, or raises with its output."""

    process: subprocess.Popen[bytes]
    output: IO[bytes]  # its stdout and stderr

    def wait(self) -> None:
        code = self.process.wait()
        self.output.seek(0)
        text = self.output.read().decode("utf-8", "replace")
        self.output.close()
        if code != 0:
            raise RuntimeError(
                f"compiling colbert-ai's C++ extensions failed (exit {code}):\n{text[-4000:]}"
            )


def start_build() -> BuildProcess:
    """Start compiling the extensions in a background process."""
    output = tempfile.TemporaryFile()
    process = subprocess.Popen([sys.executable, "-m", __name__], stdout=output,
                               stderr=subprocess.STDOUT)
    return BuildProcess(process, output)


if __name__ == "__main__":
    build()
