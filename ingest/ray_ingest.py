"""Ingest's parse and dense-encode stages on Ray, so that a cluster ingests by adding machines.

    with RayIngest("local", workers=2) as ray:      # or a cluster's address
        ingest(sources, index_dir, ray=ray)

* parse: one Ray task per source file (`pipeline.parse_source`: the parser, then the defined-term
  links), at most `PARSE_WINDOW_PER_CPU` tasks per cluster CPU in flight, gathered in input
  order, so the documents, source rows and warnings are those of an ingest in one process. A
  task that fails raises an `IngestError` naming its source file.
* dense encoding: `workers` Ray actors, each loading the encoder once; `DenseIndexBuilder` plans
  the batches (token counts from the actors, length buckets here) and the actors encode runs of
  whole batches (`ENCODE_CHUNK` passages or more) in order, so every passage is encoded in the
  batch it has in one process and the vectors are the same.

Everything after (versions, store, graph, Lucene, FAISS, ColBERT) runs in the driver. With
ColBERT's default backend (`shared_pass`) the driver's ColBERT pass also leaves every dense
vector in the cache, so the actors encode only when ColBERT is off (`--no-colbert`) or runs
another backend. Sources and
the index directory must be readable at the same paths on every node (a shared file system), and
structfirst installed there. `connect` is the one place Ray is started or joined (the batch runner
uses it too).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from structfirst.ingest.dense_index import DenseEncoder
from structfirst.ingest.encoder_config import EncoderConfig
from structfirst.ingest.model import IngestError, ParsedDocument
from structfirst.ingest.pipeline import SourceFile, parse_source

PARSE_WINDOW_PER_CPU = 2  # parse tasks in flight per cluster CPU (bounds parsed docs held)
ENCODE_CHUNK = 128  # passages (or more: whole batches) per encoding call on an actor


def connect(address: str, cpus: int) -> bool:
    """Start or join Ray unless it is up: "local" starts Ray on this machine with `cpus` CPUs,
    anything else joins the cluster at that address. True if this call started it."""
    import ray

    if ray.is_initialized():
        return False
    if address == "local":
        ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)
    else:
        ray.init(address=address, log_to_driver=False)
    return True


class _EncoderActor:
    """A Ray actor holding one dense encoder (decorated with `ray.remote` when used)."""

    def __init__(self, config: EncoderConfig) -> None:
        self.encoder = DenseEncoder(config)

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        return self.encoder.token_counts(texts)

    def encode(self, batches: Sequence[Sequence[str]]) -> list[np.ndarray]:
        return [self.encoder.encode_passages(batch) for batch in batches]


def encode_chunks(batches: Sequence[Sequence[str]], size: int) -> list[list[Sequence[str]]]:
    """Consecutive batches grouped into runs of at least `size` passages (the last may be
    smaller)."""
    runs: list[list[Sequence[str]]] = [[]]
    filled = 0
    for batch in batches:
        if filled >= size:
            runs.append([])
            filled = 0
        runs[-1].append(batch)
        filled += len(batch)
    return [run for run in runs if run]


class RayIngest:
    """Parse tasks and encoder actors on Ray at `address` ("local" or a cluster's)."""

    def __init__(self, address: str = "local", workers: int = 1,
                 encode_chunk: int = ENCODE_CHUNK) -> None:
        if workers < 1 or encode_chunk < 1:
            raise ValueError(f"workers and encode_chunk must be positive "
                             f"(got {workers}, {encode_chunk})")
        self.address = address
        self.workers = workers
        self.encode_chunk = encode_chunk
        self._started = False
        self._actors: list[Any] = []
        self._actor_config: EncoderConfig | None = None

    def _ray(self) -> Any:
        import ray

        self._started = connect(self.address, self.workers) or self._started
        return ray

    def parse(
        self, files: Sequence[SourceFile], options: dict[str, Any]
    ) -> Iterator[tuple[ParsedDocument, str]]:
        """`parse_source` of each file as a Ray task; the results in input order."""
        ray = self._ray()
        task = ray.remote(num_cpus=1)(parse_source)
        window = max(2, PARSE_WINDOW_PER_CPU * int(ray.cluster_resources().get("CPU", 1)))
        shared_options = ray.put(options)
        todo = iter(files)
        in_flight: deque[tuple[SourceFile, Any]] = deque()
        for src in todo:
            in_flight.append((src, task.remote(src, shared_options)))
            if len(in_flight) >= window:
                break
        while in_flight:
            src, ref = in_flight.popleft()
            following = next(todo, None)
            if following is not None:
                in_flight.append((following, task.remote(following, shared_options)))
            yield _result(ray, src, ref)

    def _encoders(self, config: EncoderConfig) -> Any:
        """A pool of `workers` encoder actors for `config` (started once, kept until close)."""
        ray = self._ray()
        if self._actor_config != config:
            self._kill_actors()
            actor = ray.remote(num_cpus=1)(_EncoderActor)
            self._actors = [actor.remote(config) for _ in range(self.workers)]
            self._actor_config = config
        return ray.util.ActorPool(self._actors)

    def token_counts(self, config: EncoderConfig, texts: Sequence[str]) -> list[int]:
        """`DenseEncoder.token_counts`, the texts split among the actors."""
        pool = self._encoders(config)
        step = -(-len(texts) // self.workers) or 1
        parts = [list(texts[i : i + step]) for i in range(0, len(texts), step)]
        counts = pool.map(lambda a, part: a.token_counts.remote(part), parts)
        return [n for part in counts for n in part]

    def encode_batches(
        self, config: EncoderConfig, batches: Sequence[Sequence[str]]
    ) -> Iterator[np.ndarray]:
        """`DenseEncoder.encode_passages` of each batch on the actors, in order."""
        pool = self._encoders(config)
        runs = encode_chunks(batches, self.encode_chunk)
        for encoded in pool.map(lambda a, run: a.encode.remote(run), runs):
            yield from encoded

    def _kill_actors(self) -> None:
        if self._actors:
            import ray

            for actor in self._actors:
                ray.kill(actor)
        self._actors, self._actor_config = [], None

    def close(self) -> None:
        """Stop the actors, and Ray if this object started it."""
        self._kill_actors()
        if self._started:
            import ray

            ray.shutdown()
            self._started = False

    def __enter__(self) -> RayIngest:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _result(ray: Any, src: SourceFile, ref: Any) -> tuple[ParsedDocument, str]:
    """The parse task's result; its failure as an `IngestError` naming the source file."""
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as exc:
        cause = exc.cause
        if isinstance(cause, IngestError):
            raise cause from None
        raise IngestError(str(src.path), "parse (Ray task)",
                          f"{type(cause).__name__}: {cause}") from exc
    except ray.exceptions.RayError as exc:
        raise IngestError(str(src.path), "parse (Ray task)",
                          f"{type(exc).__name__}: {exc}") from exc
