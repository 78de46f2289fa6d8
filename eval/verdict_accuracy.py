"""Verdict accuracy on the labeled verdict questions, two ways, per rule and split.

    python -m structfirst.eval.verdict_accuracy [--splits train,dev,test] [--show-misses]
    python -m structfirst.eval.verdict_accuracy --questions data/queries/verdict_dev.toml
    python -m structfirst.eval.verdict_accuracy --questions NEW.toml --gold-only
    python -m structfirst.eval.verdict_accuracy --patterns-only   # without the learned reader

`--questions` reads a question set of the rules alone (TOML, `[[question]]` with `rule`,
`as_of`, `text`, `verdict`, `facts`; `data/queries/verdict_dev.toml`) instead of the splits.

gold facts: the rules the query is labeled with, evaluated on its gold facts (the build check
of the library: should be 1.0).
end to end: what the engine's symbolic plane answers from the question alone (the engine gets
only the question and the case date, `as_of`): the parser reads the citations, predicate and
facts (the declared patterns, then the learned fact reader of the `full` configuration for the
facts they leave unread, unless `--patterns-only`); the plane chooses the rules from them
(`rules.selection.select_rules`) and evaluates them on the parsed facts; a labeled rule the
engine did not evaluate counts as wrong. The verdicts are read as the ablation runner reads a
bundle's (`eval.ablation.bundle_verdicts`), so the per-question mean printed last equals the
runner's `verdict_accuracy` of a configuration with the symbolic plane (the table counts
verdicts).
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
from pathlib import Path

from structfirst.engine.configuration import get_configuration
from structfirst.engine.engine import MODELS_DIR
from structfirst.engine.learned_facts import FactReaderError, LearnedFactReader
from structfirst.engine.query_dates import QueryError
from structfirst.engine.query_parser import ParsedQuery, parse_query
from structfirst.engine.symbolic_plane import rule_verdicts
from structfirst.eval.ablation import bundle_verdicts
from structfirst.eval.build_query_set import QUERIES_DIR
from structfirst.eval.query_set import (
    SPLITS,
    VERDICT_VALUES,
    Query,
    QuerySetError,
    VerdictQuestion,
    load_queries,
    load_verdict_questions,
)
from structfirst.rules.evaluator import evaluate
from structfirst.rules.library_loader import Library, default_library


def gold_verdicts(lib: Library, q: Query | VerdictQuestion) -> dict[str, bool | str]:
    """The labeled rules evaluated on the gold facts."""
    rules = [r for rid in q.expected_verdicts for r in lib.versions(rid)]
    got = evaluate(rules, q.facts, q.as_of, library=lib)
    return {v.rule_id: VERDICT_VALUES[v.verdict.value] for v in got}


def plane_verdicts(lib: Library, parsed: ParsedQuery) -> dict[str, bool | str]:
    """The symbolic plane's verdicts on a parsed question: the rules it chooses, evaluated on
    the question's facts at its as-of date."""
    got = rule_verdicts(lib, parsed.seeds, parsed.predicate.name if parsed.predicate else None,
                        parsed.fact_values(), parsed.as_of.value, parsed.words_besides_facts())
    return bundle_verdicts(got)


def engine_verdicts(lib: Library, q: Query | VerdictQuestion,
                    reader: LearnedFactReader | None) -> tuple[dict[str, bool | str], dict]:
    """The symbolic plane's verdicts from the question and the case date alone, and the parse
    (facts by the declared patterns, then `reader`'s for those they leave unread)."""
    parsed = parse_query(q.question, as_of=q.as_of)
    if reader is not None:
        parsed = reader.transform(parsed)
    return plane_verdicts(lib, parsed), {"seeds": parsed.seeds, "facts": parsed.fact_values(),
                                  "predicate": parsed.predicate.name if parsed.predicate else None}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--splits", default=",".join(SPLITS))
    ap.add_argument("--show-misses", action="store_true", help="print each end-to-end miss")
    ap.add_argument("--questions", type=Path, help="a TOML verdict question set instead")
    ap.add_argument("--gold-only", action="store_true",
                    help="check a set's gold facts against its verdicts only (for a question "
                    "writer: nothing of the engine's reading of the questions is printed)")
    ap.add_argument("--patterns-only", action="store_true",
                    help="read facts with the declared patterns alone (no learned reader)")
    ap.add_argument("--models", type=Path, default=MODELS_DIR,
                    help="the models folder holding the `full` configuration's fact reader")
    args = ap.parse_args(argv)
    lib = default_library()
    folder = get_configuration("full").fact_reader
    try:
        reader = (None if args.patterns_only or args.gold_only or not folder
                  else LearnedFactReader.load(args.models / folder)[0])
    except FactReaderError as exc:
        raise SystemExit(str(exc)) from None
    # (split, rule) -> [n, gold correct, end-to-end correct]
    table: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    per_question: dict[str, list[float]] = defaultdict(list)  # split -> end-to-end shares
    n_gold = [0, 0]  # --gold-only: [wrong, right]
    misses: Counter[tuple[str, str]] = Counter()  # (wanted, got) of the end-to-end misses
    try:
        sets: dict[str, list[Query] | list[VerdictQuestion]] = (
            {args.questions.stem: load_verdict_questions(args.questions)} if args.questions else
            {s: load_queries(QUERIES_DIR / f"{s}.jsonl") for s in args.splits.split(",")})
    except QuerySetError as exc:
        raise SystemExit(str(exc)) from None
    for split, questions in sets.items():
        for q in questions:
            if not q.expected_verdicts:
                continue
            gold = gold_verdicts(lib, q)
            if args.gold_only:
                for rid, want in q.expected_verdicts.items():
                    n_gold[gold[rid] == want] += 1
                    if gold[rid] != want:
                        print(f"gold miss {q.qid} {rid}: verdict {want}, the library says "
                              f"{gold[rid]} on the gold facts {q.facts}")
                continue
            try:
                e2e, parsed = engine_verdicts(lib, q, reader)
            except QueryError as exc:  # the engine refuses the question: a miss, with why
                e2e, parsed = dict.fromkeys(q.expected_verdicts, "refused"), {"refused": str(exc)}
            per_question[split].append(sum(e2e.get(rid, "not evaluated") == want for rid, want
                                           in q.expected_verdicts.items())
                                       / len(q.expected_verdicts))
            for rid, want in q.expected_verdicts.items():
                got = e2e.get(rid, "not evaluated")
                for key in ((split, rid), (split, "all"), ("all", rid), ("all", "all")):
                    row = table[key]
                    row[0] += 1
                    row[1] += gold[rid] == want
                    row[2] += got == want
                if got != want:
                    misses[str(want), str(got)] += 1
                if args.show_misses and got != want:
                    print(f"miss {q.qid} {rid}: want {want}, got {got}; engine also "
                          f"{sorted(set(e2e) - {rid})}; parsed {parsed}; gold facts {q.facts}")
                    print(f"   Q: {q.question}")
    if args.gold_only:
        print(f"gold facts: {n_gold[1]} of {sum(n_gold)} verdicts are the library's")
        return 0
    print("end to end: rules chosen by the engine (select_rules on the parsed question)")
    print(f"{'split':6} {'rule':20} {'n':>4} {'gold facts':>10} {'end-to-end':>10}")
    for (split, rid), (n, g, e) in sorted(table.items(), key=lambda kv: (
            kv[0][0] == "all", kv[0][0], kv[0][1] == "all", kv[0][1])):
        print(f"{split:6} {rid:20} {n:4d} {g / n:10.3f} {e / n:10.3f}")
    print("end-to-end misses by (wanted -> got); a wrong true/false is worse than undetermined:")
    for (want, got), n in sorted(misses.items(), key=lambda kv: -kv[1]):
        print(f"  {want:>12} -> {got:<14} {n:4d}")
    for split, shares in per_question.items():
        print(f"{split}: end to end per question (the ablation runner's verdict_accuracy of a "
              f"configuration with the symbolic plane): {sum(shares) / len(shares):.3f} over "
              f"{len(shares)} questions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
