"""Time the symbolic plane: evaluate the whole rule set for one query's facts, many times.

    python eval/bench_rules.py [--n 1000] [--seed 0] [--threads 1] [--index DIR]

Each of the `n` fact sets is random but reproducible: every vocabulary fact is known with
probability 1/2 (a value drawn near the rules' thresholds), the filing date falls between
1995 and 2028, so every rule version and parameter period is exercised. One evaluation is one
`evaluate()` call over every rule of the library, with traces, missing facts and exact
refinement. Prints the median, p95, p99 and max latency (target: p95 < 5 ms), the same for the
CPU time of the evaluating thread (which other processes on a shared machine do not inflate),
and how the verdicts came out. In the same run (single thread), the Python oracle
(`oracle_verdicts`, Kleene's verdicts without pyDatalog, traces or refinement) is timed on the
same fact sets and its verdicts are compared with pyDatalog's unrefined ones. With
`--threads N` the fact sets are evaluated by N threads at once.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from structfirst.rules.evaluator import evaluate, oracle_verdicts
from structfirst.rules.fact_schema import FactType, Vocabulary
from structfirst.rules.library_loader import Library, load_library

AMOUNTS = [0, 450, 600, 700, 900, 1000, 1100, 1300, 4000, 5000, 5900, 6000, 7000, 8000, 9000,
           10000, 12000, 16000, 20000, 30000, 300000, 500000, 1200000, 1500000, 3000000]


def fact_sets(vocabulary: Vocabulary, n: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    first, span = date(1995, 1, 1), (date(2028, 3, 31) - date(1995, 1, 1)).days
    # the dates of a days_between derivation are left out: random ones would contradict the
    # random duration (the filing date is set first)
    between = {d for spec in vocabulary.values() for d in spec.days_between or ()}
    out = []
    for _ in range(n):
        facts: dict[str, Any] = {"filing_date": first + timedelta(days=rng.randrange(span))}
        filing = facts["filing_date"]
        for spec in vocabulary.values():
            name = spec.name
            if (name in between or name == "filing_date" or spec.of is not None
                    or rng.random() < 0.5):
                continue
            if spec.type is FactType.DATE:  # around the filing date: before it, some after
                facts[name] = filing + timedelta(days=rng.randrange(-4000, 200))
            elif spec.type is FactType.BOOL:
                facts[name] = rng.random() < 0.5
            elif spec.type is FactType.ENUM:
                facts[name] = rng.choice(spec.values)
            elif spec.type is FactType.AMOUNT:
                facts[name] = rng.choice(AMOUNTS)
            elif spec.type is FactType.DURATION:
                facts[name] = rng.choice([10, 60, 65, 75, 90, 95, 100, 180, 200, 365, 400])
            elif spec.type is FactType.COUNT:
                facts[name] = rng.randint(0, 20)
        out.append(facts)
    return out


def run(lib: Library, sets: list[dict[str, Any]],
        threads: int) -> tuple[list[tuple[float, float]], Counter]:
    """(wall seconds, thread CPU seconds) per evaluation, and the verdict counts."""
    rules = [lib.versions(i)[0] for i in lib.rule_ids()]
    outcomes: Counter = Counter()

    def one(facts: dict[str, Any]) -> tuple[float, float]:
        t0, c0 = time.perf_counter(), time.thread_time()
        verdicts = evaluate(rules, facts, None, library=lib)
        elapsed = (time.perf_counter() - t0, time.thread_time() - c0)
        outcomes.update(str(v.verdict) for v in verdicts)
        return elapsed

    for facts in sets[:50]:  # warm-up: compiles this thread's program
        one(facts)
    outcomes.clear()
    if threads == 1:
        return [one(f) for f in sets], outcomes
    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(one, sets[:threads * 10]))  # warm every worker's program
        outcomes.clear()
        return list(pool.map(one, sets)), outcomes


def run_oracle(lib: Library, sets: list[dict[str, Any]]) -> tuple[list[float], int]:
    """Wall seconds per evaluation by the Python oracle, and how many of its verdicts differ
    from pyDatalog's (unrefined) on the same facts."""
    rules = [lib.versions(i)[0] for i in lib.rule_ids()]
    times, differ = [], 0
    for facts in sets:
        t0 = time.perf_counter()
        oracle = oracle_verdicts(rules, facts, None, lib)
        times.append(time.perf_counter() - t0)
        got = {v.rule_id: v.verdict for v in evaluate(rules, facts, None, library=lib,
                                                        refine=False)}
        differ += sum(got[r] != oracle[r] for r in got)
    return times, differ


def summary(label: str, seconds: list[float]) -> float:
    """Print median, p95, p99, max and mean in ms; return the p95."""
    ms = sorted(s * 1000 for s in seconds)

    def pct(p: float) -> float:
        return ms[min(len(ms) - 1, int(round(p * (len(ms) - 1))))]

    print(f"{label}: median {statistics.median(ms):.2f} ms   p95 {pct(0.95):.2f} ms   "
          f"p99 {pct(0.99):.2f} ms   max {ms[-1]:.2f} ms   mean {statistics.fmean(ms):.2f} ms")
    return pct(0.95)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1000, help="number of fact sets")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--index", type=Path, default=None,
                    help="thresholds from this index's snapshot instead of the editions")
    args = ap.parse_args()
    t0 = time.perf_counter()
    lib = load_library(index=args.index)
    load_s = time.perf_counter() - t0
    if lib.errors():
        raise SystemExit("library errors:\n" + "\n".join(map(str, lib.errors())))
    sets = fact_sets(lib.vocabulary, args.n, args.seed)
    times, outcomes = run(lib, sets, args.threads)
    print(f"rule library: {len(lib.rule_ids())} rules, {len(lib.rules)} versions, "
          f"{sum(len(r.clauses) for r in lib.rules)} clauses; loaded in {load_s:.2f} s "
          f"(thresholds: {lib.parameters.ingested_source})")
    print(f"{len(times)} fact sets, whole rule set per evaluation, {args.threads} thread(s)")
    wall = summary("wall", [w for w, _ in times])
    summary("cpu ", [c for _, c in times])
    print(f"target p95 < 5 ms (wall): {'met' if wall < 5 else 'NOT met'}")
    total = sum(outcomes.values())
    print("verdicts: " + ", ".join(f"{k} {v} ({v / total:.0%})"
                                   for k, v in sorted(outcomes.items())))
    if args.threads == 1:
        oracle_times, differ = run_oracle(lib, sets)
        summary("python oracle, wall", oracle_times)
        print(f"oracle vs pyDatalog (unrefined): {differ} of {total} verdicts differ")


if __name__ == "__main__":
    main()
