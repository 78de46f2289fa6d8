"""Time the query path: per plane and end to end, next to plain BM25, and the engine's memory.

    python -m structfirst.eval.bench_query --index DIR [--index DIR2 ...] [--queries N]
        [--config fast] [--warmup 20] [--queries-dir data/queries] [--seed 0] [--models models/]

`--config` takes one configuration or several, comma-separated (e.g. `H4,H5`): each is timed
over the same questions in the same run, beside BM25 alone.

Questions come from `data/queries/*.jsonl` (fields `question`, `as_of`, `jurisdiction`; one
per distinct question and date); when there are fewer than `--queries` (at least 200), the rest
are generated from templates over the index's US Code section headings, each with a random
as-of date in 1995-2018. After `--warmup` untimed questions (the JVM, the rule programs and the
planes load on first use), each question is timed twice in the same run:

* plain BM25: the lexical plane's Lucene search of the raw question, no filter, top
  `k_per_plane` (pyserini's Lucene alone);
* `Engine.ask` with the configuration: the wall time of the call, and the per-stage times the
  bundle reports (parse+filter, each plane, rerank); "fusion+decision" is the engine's total
  less those stages.

Prints the median and p95 of each, the ratio of end-to-end to BM25 (median and p95), and the
resident memory (RSS) of the process after imports, after the engine is warm, and at its peak.
When the snapshot has a dense index, the `full` configuration is timed as well.

With several `--index`, each is benchmarked in its own process (so that one's memory does not
count in the other's), one after the other with the same questions, and a side-by-side table
follows: versions, the configuration's median and p95, lexical and parse+filter p95, the warm
RSS and the RSS per thousand versions, and what each snapshot's ingest took and left (seconds
per stage, passages, ColBERT vectors, MiB on disk per part).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from structfirst.engine.configuration import EngineConfig, get_configuration
from structfirst.engine.engine import MODELS_DIR, Engine
from structfirst.ingest.corpus import REPO_ROOT

MIN_QUERIES = 200
TEMPLATES = (
    "What does {citation} provide about {heading}?",
    "Under the Bankruptcy Code, what are the rules on {heading}?",
    "What is required for {heading} under {citation}?",
    "When does {citation} ({heading}) apply?",
)
DATE_RANGE = (date(1995, 1, 1), date(2018, 12, 31))


@dataclass(frozen=True, slots=True)
class BenchQuery:
    question: str
    as_of: date | None
    jurisdiction: str | None


def load_query_files(folder: Path) -> list[BenchQuery]:
    """Distinct (question, as_of, jurisdiction) from the JSONL files; a bad line is an error
    naming the file and line."""
    seen: dict[tuple[str, date | None, str | None], None] = {}
    for path in sorted(folder.glob("*.jsonl")):
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                question = rec["question"]
                as_of = date.fromisoformat(rec["as_of"]) if rec.get("as_of") else None
            except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                raise ValueError(f"{path}:{lineno}: not a query record ({exc})") from exc
            seen[(question, as_of, rec.get("jurisdiction"))] = None
    return [BenchQuery(*key) for key in seen]


def template_queries(engine: Engine, n: int, seed: int) -> list[BenchQuery]:
    """`n` questions from templates over the US Code section headings, random as-of dates."""
    sections = sorted(
        {
            (v.citation, v.heading)
            for v in engine.catalog.versions.values()
            if v.type == "Section" and v.node_id.startswith("/us/usc/") and v.heading
        }
    )
    if not sections:
        raise ValueError(f"{engine.snapshot.path}: no US Code sections to build questions from")
    rng = random.Random(seed)
    span = (DATE_RANGE[1] - DATE_RANGE[0]).days
    out = []
    for i in range(n):
        citation, heading = rng.choice(sections)
        template = TEMPLATES[i % len(TEMPLATES)]
        question = template.format(citation=citation, heading=heading.lower())
        out.append(BenchQuery(question, DATE_RANGE[0] + timedelta(rng.randrange(span)), None))
    return out


def rss_mib() -> tuple[float, float]:
    """(current, peak) resident set size of this process in MiB, from /proc/self/status."""
    fields = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0]) / 1024.0
    return fields.get("VmRSS", float("nan")), fields.get("VmHWM", float("nan"))


def median_p95(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered), p95


def run_config(
    engine: Engine, cfg: EngineConfig, queries: list[BenchQuery], warmup: int
) -> tuple[dict[str, list[float]], int]:
    """Per-stage latencies (ms) over `queries`, BM25 alone included, and the answered count."""
    bm25 = engine.plane("lexical", cfg).searcher

    def once(q: BenchQuery, times: dict[str, list[float]] | None) -> bool:
        t0 = time.perf_counter()
        bm25.search(q.question, cfg.k_per_plane, None)
        t1 = time.perf_counter()
        bundle = engine.ask(q.question, as_of=q.as_of, jurisdiction=q.jurisdiction, config=cfg)
        t2 = time.perf_counter()
        if times is not None:
            times["BM25 alone (no filter)"].append((t1 - t0) * 1000.0)
            times["ask() end to end"].append((t2 - t1) * 1000.0)
            stages = dict(bundle.timings_ms)
            total = stages.pop("total")
            for name, ms in stages.items():
                times[name].append(ms)
            times["fusion+decision"].append(total - sum(stages.values()))
        return bundle.decision.answer

    for q in queries[:warmup]:
        once(q, None)
    times: dict[str, list[float]] = defaultdict(list)
    answered = sum(once(q, times) for q in queries)
    return times, answered


def report(name: str, times: dict[str, list[float]], n: int, answered: int) -> None:
    print(f"\nconfiguration {name}: {n} queries timed, {answered} answered, {n - answered} abstain")
    print(f"{'stage':<26}{'n':>6}{'median ms':>12}{'p95 ms':>10}")
    order = ["parse_filter", "symbolic", "lexical", "dense", "graph", "fusion", "neural"]
    order += ["features", "learned_fusion", "rerank", "hierarchy", "fusion+decision"]
    order += ["ask() end to end", "BM25 alone (no filter)"]
    for stage in order + sorted(set(times) - set(order)):
        if times.get(stage):
            med, p95 = median_p95(times[stage])
            print(f"{stage:<26}{len(times[stage]):>6}{med:>12.2f}{p95:>10.2f}")
    e_med, e_p95 = median_p95(times["ask() end to end"])
    b_med, b_p95 = median_p95(times["BM25 alone (no filter)"])
    print(f"end-to-end / BM25: median {e_med / b_med:.1f}x, p95 {e_p95 / b_p95:.1f}x")


def summary(
    index: Path, versions: int, cfg: str, times: dict[str, list[float]], rss: float
) -> dict[str, float | str]:
    """The side-by-side figures of one index."""
    med, p95 = median_p95(times["ask() end to end"])
    return {
        "index": str(index),
        "versions": versions,
        "config": cfg,
        "median_ms": round(med, 1),
        "p95_ms": round(p95, 1),
        "lexical_p95_ms": round(median_p95(times["lexical"])[1], 1) if times["lexical"] else 0,
        "parse_filter_p95_ms": round(median_p95(times["parse_filter"])[1], 1),
        "rss_mib": round(rss),
        "rss_mib_per_1k_versions": round(rss / versions * 1000.0, 1),
    }


def snapshot_figures(snapshot: Path) -> dict[str, float | int]:
    """What the ingest of a snapshot took and left behind: its passages and ColBERT token
    vectors, the seconds of each ingest stage (`meta.json`) and the MiB on disk of each part."""
    meta = json.loads((snapshot / "meta.json").read_text())
    row: dict[str, float | int] = {
        "passages": meta["counts"].get("indexable_docs", 0),
        "colbert_vectors": meta["indexes"].get("colbert", {}).get("embeddings", 0),
    }
    row |= {f"ingest_{stage}_s": round(seconds, 1) for stage, seconds in meta["seconds"].items()}
    for part in sorted(snapshot.iterdir()):
        files = [part] if part.is_file() else [f for f in part.rglob("*") if f.is_file()]
        row[f"{part.name}_mib"] = round(sum(f.stat().st_size for f in files) / 2**20, 1)
    return row


def compare(argv: list[str], indexes: list[Path]) -> int:
    """Run each index in its own process, then print the side-by-side table (one column per
    index)."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-query-") as tmp:
        for n, index in enumerate(indexes):
            out = Path(tmp) / f"{n}.json"
            rest = [a for a in argv if a not in map(str, indexes) and a != "--index"]
            cmd = [sys.executable, "-m", "structfirst.eval.bench_query", "--index", str(index),
                   "--summary-json", str(out), *rest]
            subprocess.run(cmd, check=True)
            rows.append(json.loads(out.read_text()))
    keys = list(dict.fromkeys(key for row in rows for key in row))
    print("\n| figure | " + " | ".join(f"index {n + 1}" for n in range(len(rows))) + " |")
    print("|---" * (len(rows) + 1) + "|")
    for key in keys:
        print(f"| {key} | " + " | ".join(str(row.get(key, "–")) for row in rows) + " |")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", type=Path, required=True, action="append")
    ap.add_argument("--summary-json", type=Path, help="write this index's summary row here")
    ap.add_argument("--queries", type=int, default=None, help="how many (default: all, >= 200)")
    ap.add_argument("--config", default="fast")
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--queries-dir", type=Path, default=REPO_ROOT / "data" / "queries")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--models", type=Path, default=MODELS_DIR, help="learned steps' folder")
    args = ap.parse_args(argv)
    if len(args.index) > 1:
        return compare(argv, args.index)
    index = args.index[0]

    rss_start, _ = rss_mib()
    t0 = time.perf_counter()
    engine = Engine.open(index, models_dir=args.models)
    open_s = time.perf_counter() - t0
    configs = [get_configuration(name) for name in args.config.split(",")]
    queries = load_query_files(args.queries_dir) if args.queries_dir.is_dir() else []
    from_files = len(queries)
    target = max(args.queries or len(queries), MIN_QUERIES)
    queries = queries[:target] + template_queries(engine, target - len(queries[:target]), args.seed)
    print(
        f"index {index} (snapshot {engine.snapshot.snapshot_id}, "
        f"{len(engine.catalog.versions)} versions); opened in {open_s:.2f} s"
    )
    print(
        f"{len(queries)} questions: {min(from_files, target)} from {args.queries_dir}, "
        f"{len(queries) - min(from_files, target)} from templates; warm-up {args.warmup}"
    )
    for cfg in configs:
        times, answered = run_config(engine, cfg, queries, args.warmup)
        rss_warm, rss_peak = rss_mib()
        report(cfg.name, times, len(queries), answered)
        print(
            f"memory (RSS, whole process incl. the JVM): {rss_start:.0f} MiB after imports, "
            f"{rss_warm:.0f} MiB with the engine loaded and warm, peak {rss_peak:.0f} MiB"
        )
        if args.summary_json:
            row = summary(index, len(engine.catalog.versions), cfg.name, times, rss_warm)
            row |= snapshot_figures(engine.snapshot.path)
            args.summary_json.write_text(json.dumps(row))
    if "full" not in args.config.split(","):
        if (engine.snapshot.path / "dense").is_dir():
            full = get_configuration("full")
            times, answered = run_config(engine, full, queries, args.warmup)
            report(full.name, times, len(queries), answered)
            rss_warm, rss_peak = rss_mib()
            print(f"memory after `full`: {rss_warm:.0f} MiB, peak {rss_peak:.0f} MiB")
        else:
            print(f"\nno dense index in {engine.snapshot.path}: the `full` configuration not timed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
