"""Batch runs on every core, and beyond one machine: questions through `Engine.ask` in workers.

    runner = BatchRunner(index_dir, workers=2)              # local worker processes
    runner = BatchRunner(index_dir, workers=2, ray="auto")  # Ray actors (a cluster's address)
    bundles = runner.transform(jobs)                        # one bundle per AskJob, in order

One `Engine` in one process answers questions one at a time in effect (the GIL, and the JVM lock
of the lexical plane), so a batch is split into chunks of `chunk` questions handed to `workers`
engines, each in its own process with the snapshot opened once: Lucene and FAISS map the index
files into memory (mmap), so the workers share the page cache rather than copies.

* `workers=1` and no Ray: in this process, no pool (the reference run);
* `workers>1`: a `ProcessPoolExecutor` of spawned processes (a forked JVM is unsafe);
* `ray=ADDRESS`: `ray_ingest.connect` (`ray.init(address=ADDRESS)`; `"local"` starts a local
  Ray with `workers` CPUs), then one Ray actor per worker holding an engine; the index directory
  must be readable at the same path on every node (a shared file system), as a snapshot is
  immutable.

The engine is deterministic and every chunk's bundles come back in input order, so the same jobs
give the same bundles, hence byte-identical run files, whichever way they ran (timings aside).
An error in a question is raised as `ValueError("<key>: <message>")`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import date
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from structfirst.engine.configuration import EngineConfig
from structfirst.engine.engine import MODELS_DIR, Engine
from structfirst.engine.evidence import EvidenceBundle
from structfirst.ingest.ray_ingest import connect

DEFAULT_CHUNK = 8


@dataclass(frozen=True, slots=True)
class AskJob:
    """One question to answer; `key` names it in errors (a query id)."""

    key: str
    question: str
    as_of: date | None
    jurisdiction: str | None
    config: EngineConfig | str
    k: int


def answer_chunk(engine: Engine, jobs: Sequence[AskJob]) -> list[EvidenceBundle]:
    out = []
    for job in jobs:
        try:
            out.append(engine.ask(job.question, as_of=job.as_of, jurisdiction=job.jurisdiction,
                                  config=job.config, k=job.k))
        except ValueError as exc:
            raise ValueError(f"{job.key}: {exc}") from None
    return out


_worker_engine: Engine | None = None


def _open_worker(index: str, models_dir: str) -> None:
    global _worker_engine
    _worker_engine = Engine.open(index, models_dir=models_dir)


def _worker_chunk(jobs: Sequence[AskJob]) -> list[EvidenceBundle]:
    if _worker_engine is None:
        raise RuntimeError("worker process without an engine (_open_worker did not run)")
    return answer_chunk(_worker_engine, jobs)


class _EngineActor:
    """A Ray actor holding one engine (decorated with `ray.remote` when Ray is used)."""

    def __init__(self, index: str, models_dir: str) -> None:
        self.engine = Engine.open(index, models_dir=models_dir)

    def answer(self, jobs: Sequence[AskJob]) -> list[EvidenceBundle]:
        return answer_chunk(self.engine, jobs)


def chunks(jobs: Sequence[AskJob], size: int) -> list[list[AskJob]]:
    return [list(jobs[i : i + size]) for i in range(0, len(jobs), size)]


class BatchRunner:
    """Answer many questions with `workers` engines, locally or on Ray (see the module doc)."""

    def __init__(
        self,
        index: Path | str,
        workers: int = 1,
        ray: str | None = None,
        chunk: int = DEFAULT_CHUNK,
        engine: Engine | None = None,
        models_dir: Path | str = MODELS_DIR,
    ) -> None:
        if workers < 1 or chunk < 1:
            raise ValueError(f"workers and chunk must be positive (got {workers}, {chunk})")
        self.index = str(index)
        self.workers = workers
        self.ray = ray
        self.chunk = chunk
        self.models_dir = str(models_dir)  # every worker's engine loads the learned steps here
        self._engine = engine  # the in-process engine of a workers=1 run, when already open
        self._pool: ProcessPoolExecutor | None = None
        self._actors: list[Any] | None = None

    @property
    def label(self) -> str:
        return f"ray x{self.workers}" if self.ray else f"{self.workers} worker(s)"

    def transform(self, jobs: Sequence[AskJob]) -> list[EvidenceBundle]:
        """The bundles of `jobs`, in order."""
        return [bundle for part in self.iter_chunks(jobs) for bundle in part]

    def iter_chunks(self, jobs: Sequence[AskJob]) -> Iterator[list[EvidenceBundle]]:
        """The bundles of `jobs` chunk by chunk, in order, as they are done (for progress)."""
        parts = chunks(jobs, self.chunk)
        if self.ray:
            yield from self._ray_chunks(parts)
        elif self.workers == 1:
            if self._engine is None:
                self._engine = Engine.open(self.index, models_dir=self.models_dir)
            for part in parts:
                yield answer_chunk(self._engine, part)
        else:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    self.workers, mp_context=get_context("spawn"),
                    initializer=_open_worker, initargs=(self.index, self.models_dir),
                )
            yield from self._pool.map(_worker_chunk, parts)

    def _ray_chunks(self, parts: list[list[AskJob]]) -> Iterator[list[EvidenceBundle]]:
        import ray

        if self._actors is None:
            connect(self.ray, self.workers)
            actor = ray.remote(num_cpus=1)(_EngineActor)
            self._actors = [
                actor.remote(self.index, self.models_dir) for _ in range(self.workers)
            ]
        pool = ray.util.ActorPool(self._actors)
        yield from pool.map(lambda a, part: a.answer.remote(part), parts)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
        if self._actors is not None:
            import ray

            for actor in self._actors:
                ray.kill(actor)
            self._actors = None

    def __enter__(self) -> BatchRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
