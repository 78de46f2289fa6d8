"""The ablation runner: every labeled query through each named configuration, then the metrics.

    structfirst eval --index DIR --queries data/queries/test.jsonl --configs H0,H1,H2,H3,H4 \
        --out DIR [--k 100] [--bootstrap 1000] [--seed 0]

The configuration names are checked against `engine/configurations.toml` (and the planes they
need against the snapshot) before any query runs. Each query goes through `Engine.ask` with what
a user gives: the question and the case date (`as_of`); the jurisdiction comes from the question
or the engine's default. `--oracle-filters` also hands in the gold jurisdiction (the protocol of
the first landing, kept for comparison); every report names its protocol. Per configuration
the runner writes `<out>/runs/<config>.trec` (docids are version ids, score = k + 1 - rank,
the engine's final order) and
`<out>/runs/<config>.outputs.jsonl` (decision, reason, verdicts, confidence; the format of
`structfirst.eval.metrics.load_outputs`). The metrics are computed from those files with
`structfirst.eval.metrics`, overall and per query type with bootstrap CIs, version facts taken
from the snapshot; each configuration is compared (paired randomization test) with the one
before it and with the baseline (H0 when run, else the first). `structfirst.eval.report` writes
`metrics.json` and `report.md`.

The runner tunes nothing: configurations run exactly as the table defines them, and the
report prints each one's tuning record from the table (which setting, chosen on which split, how).
"""

from __future__ import annotations

import hashlib
import json
import statistics
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from structfirst.calibration.calibrator import (
    IsotonicCalibrator,
    load_calibrator,
    score_calibrator_folder,
    score_confidence,
)
from structfirst.engine.configuration import CONFIGURATIONS_FILE, EngineConfig, load_configurations
from structfirst.engine.engine import MODELS_DIR, Engine
from structfirst.engine.evidence import EvidenceBundle
from structfirst.eval import metrics as M
from structfirst.eval.batch_runner import AskJob, BatchRunner
from structfirst.eval.query_set import (
    QUERY_TYPES,
    VERDICT_VALUES,
    Query,
    QuerySetError,
    Run,
    load_queries,
    load_run,
)
from structfirst.ingest.duckdb_store import connect_readonly

DEFAULT_K = 100
BASELINE = "H0"
CALIBRATION_METRICS = ("ece", "ece_floor", "brier", "aurc", "selective_accuracy@90",
                       "coverage@95")
NO_CONFIDENCE = "not applicable: no calibrated confidence (decision.confidence is None)"
PROTOCOLS = {
    "user": "the engine receives the question and the case date (as_of) only; the jurisdiction "
    "comes from the question or the engine's default",
    "oracle-filters": "the engine receives the question, the case date and the gold "
    "jurisdiction of each query (oracle hard filters)",
}


class AblationError(ValueError):
    """Bad input to the runner (configuration, query file, index); the message says which."""


@dataclass(slots=True)
class ConfigRun:
    """One configuration's pass over the queries: where its files are and how long it took."""

    config: EngineConfig
    run_file: Path
    outputs_file: Path
    seconds: float
    latencies_ms: list[float]
    with_confidence: int  # queries whose decision carried a confidence


def select_configurations(
    names: Iterable[str], path: Path = CONFIGURATIONS_FILE
) -> list[EngineConfig]:
    """The named configurations in the given order; unknown or repeated names are an error."""
    wanted = [n.strip() for n in names if n.strip()]
    if not wanted:
        raise AblationError("no configuration named (e.g. --configs H0,H1,H2,H3,H4)")
    try:
        table = load_configurations(path)
    except (OSError, ValueError) as exc:
        raise AblationError(f"cannot read the configurations: {exc}") from None
    unknown = [n for n in wanted if n not in table]
    if unknown:
        raise AblationError(
            f"unknown configuration(s) {', '.join(unknown)} (known in {path}: {', '.join(table)})"
        )
    repeated = sorted({n for n in wanted if wanted.count(n) > 1})
    if repeated:
        raise AblationError(f"configuration(s) named twice: {', '.join(repeated)}")
    return [table[n] for n in wanted]


def check_indexes(engine: Engine, configs: Sequence[EngineConfig]) -> None:
    """Refuse, before anything runs, a configuration the engine cannot run as labeled."""
    for cfg in configs:
        try:
            engine.check(cfg)
        except ValueError as exc:
            raise AblationError(str(exc)) from None


def bundle_verdicts(verdicts: Sequence[dict[str, Any]]) -> dict[str, bool | str]:
    """The bundle's rule verdicts by rule id, the ids the query set's labels use (a rule the
    engine decided at top level wins over the same rule seen only as support of another)."""
    by_id: dict[str, bool | str] = {}
    for v in verdicts:
        for sub in (v.get("supporting") or {}).values():
            if sub.get("verdict") in VERDICT_VALUES:
                by_id.setdefault(sub["rule"], VERDICT_VALUES[sub["verdict"]])
    for v in verdicts:
        if v.get("kind") != "parameter" and v.get("verdict") in VERDICT_VALUES:
            by_id[v["rule"]] = VERDICT_VALUES[v["verdict"]]
    return by_id


def output_record(qid: str, bundle: EvidenceBundle) -> dict[str, Any]:
    """One line of the outputs file."""
    return {
        "qid": qid,
        "abstain": not bundle.decision.answer,
        "confidence": bundle.decision.confidence,
        "verdicts": bundle_verdicts(bundle.verdicts),
        "reason": bundle.decision.reason,
        "threshold": bundle.decision.threshold,
        "top_score": bundle.candidates[0].fused_score if bundle.candidates else None,
        "latency_ms": bundle.timings_ms.get("total"),
    }


def _given_jurisdiction(q: Query, oracle_filters: bool) -> str | None:
    """What the engine is told of the jurisdiction: nothing, unless the oracle protocol runs."""
    return q.jurisdiction if oracle_filters else None


def _ask(
    engine: Engine, q: Query, cfg: EngineConfig, k: int, oracle_filters: bool
) -> EvidenceBundle:
    jurisdiction = _given_jurisdiction(q, oracle_filters)
    try:
        return engine.ask(q.question, as_of=q.as_of, jurisdiction=jurisdiction, config=cfg, k=k)
    except ValueError as exc:
        raise AblationError(f"query {q.qid} under {cfg.name}: {exc}") from None


def _answers(
    engine: Engine, queries: Sequence[Query], cfg: EngineConfig, k: int,
    runner: BatchRunner | None, oracle_filters: bool,
) -> Iterator[EvidenceBundle]:
    """The bundles of `queries` in order: asked here, or by the runner's workers."""
    if runner is None:
        for q in queries:
            yield _ask(engine, q, cfg, k, oracle_filters)
        return
    jobs = [AskJob(f"query {q.qid} under {cfg.name}", q.question, q.as_of,
                   _given_jurisdiction(q, oracle_filters), cfg, k) for q in queries]
    try:
        for part in runner.iter_chunks(jobs):
            yield from part
    except ValueError as exc:
        raise AblationError(str(exc)) from None


def run_configuration(
    engine: Engine,
    queries: Sequence[Query],
    cfg: EngineConfig,
    runs_dir: Path,
    k: int = DEFAULT_K,
    progress: Progress | None = None,
    oracle_filters: bool = False,
    runner: BatchRunner | None = None,
    score_calibrator: IsotonicCalibrator | None = None,
) -> ConfigRun:
    """Ask every query under `cfg`; write its TREC run and outputs files. One untimed warm-up
    ask (the first answerable query) loads the configuration's planes and reranker first, so
    that the timings do not depend on which configuration ran before. With a
    `score_calibrator` (fitted by `structfirst fit` on train), a configuration without a
    confidence gets its calibrated top fused score as one, its decisions unchanged."""
    run_file, outputs_file = runs_dir / f"{cfg.name}.trec", runs_dir / f"{cfg.name}.outputs.jsonl"
    task = progress.add_task(cfg.name, total=len(queries)) if progress is not None else None
    latencies: list[float] = []
    with_confidence = 0
    warm_up = next((q for q in queries if q.answerable), queries[0] if queries else None)
    if warm_up is not None and runner is None:
        _ask(engine, warm_up, cfg, k, oracle_filters)
    started = time.perf_counter()
    with (
        run_file.open("w", encoding="utf-8") as run_fh,
        outputs_file.open("w", encoding="utf-8") as out_fh,
    ):
        answers = _answers(engine, queries, cfg, k, runner, oracle_filters)
        for q, bundle in zip(queries, answers, strict=True):
            seen: set[str] = set()
            for cand in bundle.candidates:
                if cand.version_id in seen:
                    continue
                seen.add(cand.version_id)
                run_fh.write(
                    f"{q.qid} Q0 {cand.version_id} {len(seen)} {k + 1 - len(seen)} {cfg.name}\n"
                )
            record = output_record(q.qid, bundle)
            if score_calibrator is not None and record["confidence"] is None:
                record["confidence"] = score_confidence(
                    score_calibrator, bundle.decision.answer, record["top_score"]
                )
                record["confidence_source"] = "calibrated top fused score"
            out_fh.write(json.dumps(record, ensure_ascii=False) + "\n")
            latencies.append(bundle.timings_ms.get("total", 0.0))
            with_confidence += record["confidence"] is not None
            if task is not None:
                progress.advance(task)
    return ConfigRun(
        cfg, run_file, outputs_file, time.perf_counter() - started, latencies, with_confidence
    )


def read_run(path: Path) -> Run:
    """A run file written by `run_configuration`; no line at all is an empty run."""
    return load_run(path) if path.stat().st_size else {}


def comparison_pairs(names: Sequence[str]) -> list[tuple[str, str]]:
    """(a, b) pairs to test, b minus a: each configuration against the one before it and
    against the baseline (H0 when run, else the first)."""
    base = BASELINE if BASELINE in names else names[0]
    pairs = list(zip(names, names[1:], strict=False))
    pairs += [(base, b) for b in names if b != base and {base, b} not in map(set, pairs)]
    return pairs


def _not_applicable(block: dict[str, Any]) -> None:
    for group in block.values():
        if isinstance(group, dict):
            for name in CALIBRATION_METRICS:
                if name in group:
                    group[name] = {"value": None, "not_applicable": NO_CONFIDENCE}


def evaluate_runs(
    queries: Sequence[Query],
    config_runs: Sequence[ConfigRun],
    store_path: Path,
    n_boot: int = M.DEFAULT_BOOTSTRAP,
    seed: int = 0,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(summaries per configuration, paired comparisons) from the files the runs wrote."""
    runs = {cr.config.name: read_run(cr.run_file) for cr in config_runs}
    outputs = {cr.config.name: M.load_outputs(cr.outputs_file) for cr in config_runs}
    docids = {h.docid for run in runs.values() for hits in run.values() for h in hits}
    with connect_readonly(store_path) as con:
        versions = M.versions_from_store(con, docids) if docids else {}
    records = {name: M.per_query(queries, runs[name], outputs[name], versions) for name in runs}
    calibrated = {cr.config.name: cr.with_confidence > 0 for cr in config_runs}
    summaries = {}
    for name, recs in records.items():
        summaries[name] = M.summarize(recs, n_boot=n_boot, seed=seed)
        if not calibrated[name]:
            _not_applicable(summaries[name])
    comparisons = {}
    for a, b in comparison_pairs(list(records)):
        block = M.compare(records[a], records[b], n_boot=n_boot, seed=seed)
        if not (calibrated[a] and calibrated[b]):
            _not_applicable(block)
        comparisons[f"{b} vs {a}"] = {"a": a, "b": b, **block}
    return summaries, comparisons


def sha256_of(paths: Path | Sequence[Path]) -> str:
    """The sha256 of a file's bytes, or of several files' bytes one after the other."""
    digest = hashlib.sha256()
    for path in [paths] if isinstance(paths, Path) else paths:
        with path.open("rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
    return digest.hexdigest()


def _latency(ms: Sequence[float]) -> dict[str, float | None]:
    if not ms:
        return {"mean": None, "p50": None, "p95": None}
    ordered = sorted(ms)
    return {
        "mean": round(statistics.fmean(ordered), 1),
        "p50": round(statistics.median(ordered), 1),
        "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1),
    }


def run_ablation(
    index: Path,
    queries_path: Path,
    config_names: Iterable[str],
    out_dir: Path,
    k: int = DEFAULT_K,
    n_boot: int = M.DEFAULT_BOOTSTRAP,
    seed: int = 0,
    progress: bool = True,
    console: Console | None = None,
    oracle_filters: bool = False,
    runner: BatchRunner | None = None,
    models_dir: Path = MODELS_DIR,
    table: Path = CONFIGURATIONS_FILE,
) -> dict[str, Any]:
    """Run the ablation and return everything `metrics.json` holds (the caller writes it);
    `runner`: answer the queries in its workers (`eval.batch_runner`) instead of here."""
    configs = select_configurations(config_names, table)
    if k < 1 or n_boot < 1:
        raise AblationError(f"--k and --bootstrap must be positive (got {k} and {n_boot})")
    try:
        queries = load_queries(queries_path)
    except QuerySetError as exc:
        raise AblationError(str(exc)) from None
    if not queries:
        raise AblationError(f"{queries_path}: no queries")
    try:
        engine = Engine.open(index, models_dir=models_dir)
    except (FileNotFoundError, ValueError) as exc:  # SnapshotError is a FileNotFoundError
        raise AblationError(str(exc)) from None
    check_indexes(engine, configs)
    runs_dir = Path(out_dir) / "runs"
    try:
        runs_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise AblationError(f"{out_dir}: cannot create the output folder ({exc})") from None
    started = time.perf_counter()
    config_runs: list[ConfigRun] = []
    bar = Progress(
        TextColumn("[bold]{task.description:>6}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console or Console(stderr=True),
        disable=not progress,
    )
    with bar:
        for cfg in configs:
            folder = score_calibrator_folder(models_dir, cfg.name)
            by_score = load_calibrator(folder)[0] if folder.is_dir() else None
            config_runs.append(
                run_configuration(
                    engine, queries, cfg, runs_dir, k, bar, oracle_filters, runner, by_score
                )
            )
    run_seconds = time.perf_counter() - started
    summaries, comparisons = evaluate_runs(
        queries, config_runs, engine.snapshot.store_path, n_boot, seed
    )
    splits = sorted({q.split or "unsplit" for q in queries})
    protocol = "oracle-filters" if oracle_filters else "user"
    return {
        "header": {
            "snapshot_id": engine.snapshot.snapshot_id,
            "snapshot_path": str(engine.snapshot.path),
            "corpus_sources": len(engine.snapshot.sources),
            "query_set": str(queries_path),
            "query_set_sha256": sha256_of(Path(queries_path)),
            "splits": splits,
            "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "n_queries": len(queries),
            "n_answerable": sum(q.answerable for q in queries),
            "n_by_type": {t: sum(q.type == t for q in queries) for t in QUERY_TYPES},
            "k": k,
            "bootstrap_resamples": n_boot,
            "permutations": M.DEFAULT_PERMUTATIONS,
            "seed": seed,
            "run_seconds": round(run_seconds, 1),
            "eval_seconds": round(time.perf_counter() - started - run_seconds, 1),
            "protocol": {"name": protocol, "description": PROTOCOLS[protocol]},
            "tuning": {cr.config.name: cr.config.tuning for cr in config_runs},
        },
        "configurations": {
            cr.config.name: {
                "description": cr.config.description,
                "planes": list(cr.config.planes),
                "reranker": cr.config.reranker or None,
                "fusion": cr.config.fusion,
                "calibration": cr.config.calibration or None,
                "plane_weights": cr.config.plane_weights,
                "hard_filters": cr.config.hard_filters,
                "run_file": str(cr.run_file),
                "outputs_file": str(cr.outputs_file),
                "seconds": round(cr.seconds, 1),
                "latency_ms": _latency(cr.latencies_ms),
                "confidence": cr.with_confidence > 0,
            }
            for cr in config_runs
        },
        "metrics": summaries,
        "comparisons": comparisons,
    }
