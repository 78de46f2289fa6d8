"""Verdict accuracy on the labeled verdict questions, two ways, per rule and split.

    python -m structfirst.eval.verdict_accuracy [--splits train,dev,test]

gold: the rule library evaluated on each query's gold facts (the build check: should be 1.0).
end to end: the library evaluated on the facts the query parser reads from the question (the
engine gets only the question and the case date, `as_of`).
"""

from __future__ import annotations

import argparse
from collections import defaultdict

from structfirst.engine.query_parser import parse_query
from structfirst.eval.build_query_set import QUERIES_DIR
from structfirst.eval.query_set import SPLITS, Query, load_queries
from structfirst.rules.evaluator import evaluate
from structfirst.rules.library_loader import Library, default_library

_TRI = {"true": True, "false": False, "undetermined": "undetermined"}


def verdicts(lib: Library, q: Query, facts: dict) -> dict[str, bool | str]:
    rules = [r for rid in q.expected_verdicts for r in lib.versions(rid)]
    return {v.rule_id: _TRI[v.verdict.value] for v in evaluate(rules, facts, q.as_of, library=lib)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--splits", default=",".join(SPLITS))
    ap.add_argument("--show-misses", action="store_true", help="print each end-to-end miss")
    args = ap.parse_args(argv)
    lib = default_library()
    # (split, rule) -> [n, gold correct, end-to-end correct]
    table: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for split in args.splits.split(","):
        for q in load_queries(QUERIES_DIR / f"{split}.jsonl"):
            if not q.expected_verdicts:
                continue
            gold = verdicts(lib, q, q.facts)
            parsed = parse_query(q.question, as_of=q.as_of)
            e2e = verdicts(lib, q, parsed.fact_values())
            for rid, want in q.expected_verdicts.items():
                for key in ((split, rid), (split, "all"), ("all", rid), ("all", "all")):
                    row = table[key]
                    row[0] += 1
                    row[1] += gold[rid] == want
                    row[2] += e2e[rid] == want
                if args.show_misses and e2e[rid] != want:
                    shown = {f.name: f.value for f in parsed.facts}
                    print(f"miss {q.qid} {rid}: want {want}, got {e2e[rid]}; parsed {shown}")
    print(f"{'split':6} {'rule':20} {'n':>4} {'gold':>6} {'end-to-end':>10}")
    for (split, rid), (n, g, e) in sorted(table.items(), key=lambda kv: (
            kv[0][0] == "all", kv[0][0], kv[0][1] == "all", kv[0][1])):
        print(f"{split:6} {rid:20} {n:4d} {g / n:6.3f} {e / n:10.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
