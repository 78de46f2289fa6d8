"""Fitting the learned fact reader, and its threshold chosen by leaving one question set out.

    python -m structfirst.eval.fact_reader_cv [--sets FILE ...] [--thresholds 0.5,0.6,0.7,0.8]
    structfirst fit-facts [--sets FILE ...] --out models/fact-reader    # fit_fact_reader

The training sets are blind verdict sets (`data/queries/verdict_*.toml`, each by another
writer) and the train split's questions (most state no fact: they teach the reader to read
none); test-split questions are refused. For each set in turn, a reader fitted on the others
fills the facts the pattern reader left unread in that set's questions, and the end-to-end
verdict accuracy (the `verdict_accuracy` protocol: the question and the case date only) is
measured with the pattern reader alone and with the fills at each threshold. The chosen
threshold is the one with the best mean over the left-out sets (ties: the higher).
"""

from __future__ import annotations

import argparse
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from structfirst.engine.learned_facts import FactReaderError, LearnedFactReader
from structfirst.engine.query_dates import QueryError
from structfirst.engine.query_parser import ParsedQuery, parse_query
from structfirst.eval.build_query_set import QUERIES_DIR
from structfirst.eval.query_set import Query, VerdictQuestion, load_queries, load_verdict_questions
from structfirst.eval.verdict_accuracy import plane_verdicts
from structfirst.fusion.models import library_versions
from structfirst.rules.library_loader import Library, default_library, default_vocabulary

THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.9)


@dataclass(frozen=True, slots=True)
class QuestionSet:
    name: str
    questions: tuple[Query | VerdictQuestion, ...]
    parsed: tuple[ParsedQuery, ...]  # each question read by the declared patterns
    sha256: str  # of the file the set was read from
    # questions the parser refuses (an impossible date: "22/08/2019" is no US date), with why:
    # not fitted on; left out, each of their verdicts is a miss
    refused: tuple[tuple[Query | VerdictQuestion, str], ...] = ()


def read_sets(paths: Sequence[Path]) -> list[QuestionSet]:
    """Each file's questions (a TOML verdict set or a JSONL split: all of its questions, the
    many that state no fact teaching the reader when to read none), parsed with the question
    and the case date alone."""
    out = []
    for path in paths:
        qs = load_verdict_questions(path) if path.suffix == ".toml" else load_queries(path)
        leaked = [q.qid for q in qs if isinstance(q, Query) and q.split == "test"]
        if leaked:
            raise FactReaderError(f"{path}: holds test-split queries ({', '.join(leaked[:5])}); "
                                  "the fact reader is never fitted on the test split")
        read: list[tuple[Query | VerdictQuestion, ParsedQuery]] = []
        refused: list[tuple[Query | VerdictQuestion, str]] = []
        for q in qs:
            try:
                read.append((q, parse_query(q.question, as_of=q.as_of)))
            except QueryError as exc:
                refused.append((q, str(exc)))
        out.append(QuestionSet(path.stem, tuple(q for q, _ in read), tuple(p for _, p in read),
                               hashlib.sha256(path.read_bytes()).hexdigest(), tuple(refused)))
    return out


def default_sets() -> list[Path]:
    """Every verdict set in `data/queries/` and the train split."""
    return [*sorted(QUERIES_DIR.glob("verdict_*.toml")), QUERIES_DIR / "train.jsonl"]


def fit_reader(sets: Sequence[QuestionSet], reader: LearnedFactReader) -> LearnedFactReader:
    """`reader` fitted on every question of `sets` (the packaged library's declarations)."""
    return reader.fit([p for s in sets for p in s.parsed],
                      [q.facts for s in sets for q in s.questions], default_vocabulary())


def verdict_hits(lib: Library, q: Query | VerdictQuestion, p: ParsedQuery) -> dict[str, bool]:
    """Each labeled rule of the question: whether the symbolic plane's verdict from `p` is it."""
    got = plane_verdicts(lib, p)
    return {r: got.get(r) == v for r, v in q.expected_verdicts.items()}


def verdict_share(lib: Library, q: Query | VerdictQuestion, p: ParsedQuery) -> float:
    """The share of the question's labeled verdicts the symbolic plane gets from `p`."""
    return float(np.mean(list(verdict_hits(lib, q, p).values())))


Table = dict[str, dict[str, float]]  # row -> {"n", "patterns", "<threshold>": accuracy}


def leave_one_set_out(sets: Sequence[QuestionSet], thresholds: Sequence[float] = THRESHOLDS,
                      reader: LearnedFactReader | None = None) -> tuple[Table, Table]:
    """(by set, by rule): for each set left out in turn (sets that carry no verdict, a split's
    questions, only train), the end-to-end accuracy with the patterns alone and with the
    learned fills at each threshold; by set per question, by rule per verdict, pooled over
    the left-out sets. A question the parser refuses is a miss."""
    lib = default_library()
    by_set: Table = {}
    counts: dict[str, dict[str, list[int]]] = {}  # rule -> column -> [right, n]
    for held in sets:
        judged = [(q, p) for q, p in zip(held.questions, held.parsed, strict=True)
                  if q.expected_verdicts]
        refused = [q for q, _ in held.refused if q.expected_verdicts]
        if not judged and not refused:
            continue
        fitted = fit_reader([s for s in sets if s is not held], (reader or LearnedFactReader())
                            .clone())
        row = {"n": float(len(judged) + len(refused))}
        for column in ["patterns", *map(str, thresholds)]:
            if column != "patterns":
                fitted.threshold = float(column)
            shares = [0.0] * len(refused)  # a question the parser refuses gets no verdict
            for q in refused:
                for rule in q.expected_verdicts:
                    counts.setdefault(rule, {}).setdefault(column, [0, 0])[1] += 1
            for q, p in judged:
                hits = verdict_hits(lib, q, p if column == "patterns" else fitted.transform(p))
                shares.append(float(np.mean(list(hits.values()))))
                for rule, hit in hits.items():
                    cell = counts.setdefault(rule, {}).setdefault(column, [0, 0])
                    cell[0] += hit
                    cell[1] += 1
            row[column] = float(np.mean(shares))
        by_set[held.name] = row
    by_rule = {rule: {"n": float(cols["patterns"][1]),
                      **{c: right / n for c, (right, n) in cols.items()}}
               for rule, cols in sorted(counts.items())}
    return by_set, by_rule


def choose_threshold(table: Table, thresholds: Sequence[float]) -> float:
    """The threshold with the best mean left-out accuracy over the sets (ties: the higher)."""
    means = {t: float(np.mean([row[str(t)] for row in table.values()])) for t in thresholds}
    return max(thresholds, key=lambda t: (round(means[t], 9), t))


def fit_fact_reader(paths: Sequence[Path], out: Path, threshold: float | None = None,
                    thresholds: Sequence[float] = THRESHOLDS,
                    reader: LearnedFactReader | None = None) -> dict[str, Any]:
    """Fit on every set in `paths` and save to `out`; the threshold is `threshold`, or the one
    leaving one set out chooses. Returns the saved record."""
    sets = read_sets(paths)
    reader = reader or LearnedFactReader()
    table: Table = {}
    by_rule: Table = {}
    if threshold is None:
        table, by_rule = leave_one_set_out(sets, thresholds, reader)
        threshold = choose_threshold(table, thresholds)
    fitted = fit_reader(sets, reader.clone())
    fitted.threshold = threshold
    meta = {
        "trained_on": [{"set": s.name, "questions": len(s.questions), "sha256": s.sha256,
                        **({"refused": [{"qid": q.qid, "why": why} for q, why in s.refused]}
                           if s.refused else {})}
                       for s in sets],
        "threshold_chosen_by": ("leave one set out: the best mean end-to-end verdict accuracy "
                                "over the left-out sets" if table else "given"),
        "leave_one_set_out": table,
        "leave_one_set_out_by_rule": by_rule,
        "library_versions": library_versions(),
    }
    fitted.save(out, meta)
    return LearnedFactReader.load(out)[1]


def print_table(table: Table, thresholds: Sequence[float], by_rule: Table | None = None) -> None:
    """The left-out sets' accuracies, pooled over the sets, then (if given) by rule."""
    head = " ".join(f"{'t=' + str(t):>7}" for t in thresholds)
    print(f"{'left out':20} {'n':>4} {'patterns':>8} {head}")
    for name, row in [*table.items(), *[(f"rule {r}", row) for r, row in (by_rule or {}).items()]]:
        cells = " ".join(f"{row[str(t)]:7.3f}" for t in thresholds)
        print(f"{name:20} {int(row['n']):4d} {row['patterns']:8.3f} {cells}")
    n = sum(row["n"] for row in table.values())
    pooled = {k: sum(row[k] * row["n"] for row in table.values()) / n
              for k in ["patterns", *map(str, thresholds)]}
    cells = " ".join(f"{pooled[str(t)]:7.3f}" for t in thresholds)
    print(f"{'all sets (pooled)':20} {int(n):4d} {pooled['patterns']:8.3f} {cells}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", type=Path, nargs="+", action="extend",
                    help="training sets (default: every verdict set and the train split)")
    ap.add_argument("--thresholds", default=",".join(map(str, THRESHOLDS)))
    ap.add_argument("--min-examples", type=int, default=20)
    args = ap.parse_args(argv)
    thresholds = [float(t) for t in args.thresholds.split(",")]
    sets = read_sets(args.sets or default_sets())
    table, by_rule = leave_one_set_out(sets, thresholds,
                                       LearnedFactReader(min_examples=args.min_examples))
    print_table(table, thresholds, by_rule)
    print(f"chosen threshold (best mean over the left-out sets): "
          f"{choose_threshold(table, thresholds)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
