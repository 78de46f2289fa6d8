"""Worst-case query parse time over adversarial 10,000-character questions.

    python eval/bench_parse.py [--repeat 3] [--seed 0]

Each input is a pattern repeated to exactly `MAX_QUESTION_CHARS` characters (the longest question
`parse_query` accepts): runs of amounts ("$1,$1,..."), durations, counts, yes/no phrases,
citations, dates, brackets, quotes, one long word, random printable text. Each is parsed
`--repeat` times; prints the best wall time and the best CPU time of the parsing thread per
input (the least disturbed by other processes on a shared machine) and the worst of those over
all inputs (target: under 50 ms).
"""

from __future__ import annotations

import argparse
import random
import string
import time

from structfirst.engine.query_parser import MAX_QUESTION_CHARS, QueryError, parse_query

PATTERNS: dict[str, str] = {
    "amounts_comma": "$1,",
    "amounts_space": "$1 ",
    "amounts_words": "paid $5,000 ",
    "dollars": "1 dollars ",
    "durations": "30 days before the filing ",
    "counts": "three creditors ",
    "yes_no": "is the debtor a corporation ",
    "insolvent": "was the debtor insolvent, ",
    "citations": "§547(c)(9) ",
    "sections": "§§ ",
    "usc": "11 U.S.C. ",
    "dates": "June 2019 ",
    "iso_dates": "2019-06-01 ",
    "brackets": "(",
    "quotes": '"',
    "terms": "the term 'debtor' ",
    "digits": "1",
    "commas": ",",
    "dots": ". ",
    "long_word": "a",
    "whitespace": " ",
    "luxury": "luxury goods worth ",
    "unsecured": "unsecured debts of ",
    "spelled_amounts": "twenty thousand dollars ",
    "hedged": "about $1 ",
    "liens": "$1 of that is covered by a lien ",
    "ago": "5 days ago ",
    "last_month": "in the last month ",
    "keyword_dates": "wages earned June 1, 2019 ",
    "relatives": "the mayor's son ",
}


def adversarial_inputs(seed: int) -> dict[str, str]:
    n = MAX_QUESTION_CHARS
    out = {name: (pat * (n // len(pat) + 1))[:n] for name, pat in PATTERNS.items()}
    rng = random.Random(seed)
    out["random_printable"] = "".join(rng.choice(string.printable) for _ in range(n))
    words = [p.strip() for p in PATTERNS.values()]
    mixed = " ".join(rng.choice(words) for _ in range(n))
    out["random_mix"] = mixed[:n]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    worst: dict[str, tuple[float, str]] = {"wall": (0.0, ""), "cpu": (0.0, "")}
    for name, question in adversarial_inputs(args.seed).items():
        best = {"wall": float("inf"), "cpu": float("inf")}
        outcome = "parsed"
        for _ in range(args.repeat):
            t0, c0 = time.perf_counter(), time.thread_time()
            try:
                parse_query(question)
            except QueryError as exc:
                outcome = f"refused: {exc}"
            best["wall"] = min(best["wall"], time.perf_counter() - t0)
            best["cpu"] = min(best["cpu"], time.thread_time() - c0)
        print(f"{name:18s} wall {best['wall'] * 1000:9.1f} ms  cpu {best['cpu'] * 1000:9.1f} ms"
              f"  {outcome}")  # fmt: skip
        for kind in worst:
            if best[kind] > worst[kind][0]:
                worst[kind] = (best[kind], name)
    for kind, (seconds, name) in worst.items():
        size = f"{MAX_QUESTION_CHARS:,}"
        print(f"worst {kind}: {seconds * 1000:.1f} ms ({name}), inputs of {size} chars")


if __name__ == "__main__":
    main()
