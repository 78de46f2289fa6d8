"""Threaded against serial answers: one Engine, N threads, the same questions as one thread.

    python eval/check_threads.py --index DIR [--threads 8] [--questions 1000] [--config fast]

The questions cycle through `data/queries/all.jsonl` (question and as_of only, as the engine
gets in evaluation). Each is answered once serially and once by a pool of `--threads` threads;
an answer is the decision (answer/abstain, reason, warnings), the ranked candidate version ids
and the verdicts. Prints the number of mismatches (target: 0) and both wall times.
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from pathlib import Path
from typing import Any

from structfirst.engine.engine import Engine

QUERIES = Path(__file__).resolve().parents[1] / "data" / "queries" / "all.jsonl"


def questions(n: int, path: Path = QUERIES) -> list[tuple[str, date | None]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    pool = [(r["question"], date.fromisoformat(r["as_of"]) if r.get("as_of") else None)
            for r in rows]  # fmt: skip
    return [pool[i % len(pool)] for i in range(n)]


def answer(engine: Engine, question: str, as_of: date | None, config: str) -> Any:
    bundle = engine.ask(question, as_of=as_of, config=config)
    d = bundle.decision
    return (
        d.answer,
        d.reason,
        tuple(d.warnings),
        tuple(c.version_id for c in bundle.candidates),
        json.dumps(bundle.verdicts, sort_keys=True, default=str),
    )


def mismatches(engine: Engine, qs: list[tuple[str, date | None]], threads: int,
               config: str) -> tuple[int, float, float]:
    """(mismatching answers, serial seconds, threaded seconds)."""
    t0 = time.perf_counter()
    serial = [answer(engine, q, d, config) for q, d in qs]
    t1 = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        threaded = list(pool.map(lambda qd: answer(engine, qd[0], qd[1], config), qs))
    t2 = time.perf_counter()
    return sum(a != b for a, b in zip(serial, threaded, strict=True)), t1 - t0, t2 - t1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--questions", type=int, default=1000)
    ap.add_argument("--config", default="fast")
    args = ap.parse_args()
    engine = Engine.open(args.index)
    qs = questions(args.questions)
    answer(engine, *qs[0], args.config)  # planes load outside the timings
    bad, serial_s, threaded_s = mismatches(engine, qs, args.threads, args.config)
    print(f"{args.threads} threads x {len(qs)} questions ({args.config}): {bad} mismatches; "
          f"serial {serial_s:.1f} s, threaded {threaded_s:.1f} s")  # fmt: skip


if __name__ == "__main__":
    main()
