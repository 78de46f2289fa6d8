"""Would a learned fact reader carry over where the pattern reader does not? A probe, by
leaving one blind verdict set out at a time.

    python -m structfirst.eval.fact_reader_probe [--threshold 0.6]

For each blind verdict set (`data/queries/verdict_*.toml`, each by another writer), a TF-IDF
(word 1-2-grams and character 3-5-grams) logistic regression per fact in `FACTS` is fitted on
the questions and gold facts of the other sets ("not stated" is a class of its own). On the
left-out set, a fact the pattern reader did not read is filled with the model's value when its
probability reaches the threshold. Prints each set's end-to-end verdict accuracy with the
pattern reader alone and with the fills (the `verdict_accuracy` protocol: question and case
date only). Nothing here is used by the engine.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline, make_union
from structfirst.engine.query_parser import ParsedQuery, parse_query
from structfirst.engine.symbolic_plane import rule_verdicts
from structfirst.eval.ablation import bundle_verdicts
from structfirst.eval.build_query_set import QUERIES_DIR
from structfirst.eval.query_set import VerdictQuestion, load_verdict_questions
from structfirst.rules.library_loader import Library, default_library

# the facts the pattern reader misses most across the blind sets (bool, enumeration, count)
FACTS = ("debtor_kind", "creditor_receives_more", "antecedent_debt", "debtor_regular_income",
         "petitioning_creditors")
NOT_STATED = "~"


def reader() -> Pipeline:
    words = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=2)
    chars = TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5), sublinear_tf=True, min_df=2)
    return make_pipeline(make_union(words, chars), LogisticRegression(C=10, max_iter=3000))


def value_of(label: str, example: object) -> object:
    """The gold value's type back from its class label."""
    if isinstance(example, bool):
        return label == "True"
    if isinstance(example, int):
        return int(label)
    return label


def verdict_share(lib: Library, q: VerdictQuestion, p: ParsedQuery, facts: dict) -> float:
    got = bundle_verdicts(rule_verdicts(lib, p.seeds, p.predicate.name if p.predicate else None,
                                        facts, p.as_of.value, p.words_besides_facts()))
    return float(np.mean([got.get(r) == v for r, v in q.expected_verdicts.items()]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threshold", type=float, default=0.6)
    args = ap.parse_args(argv)
    lib = default_library()
    sets = {path.stem: [(q, parse_query(q.question, as_of=q.as_of))
                        for q in load_verdict_questions(path)]
            for path in sorted(Path(QUERIES_DIR).glob("verdict_*.toml"))}
    totals = [0, 0.0, 0.0]
    for name, held in sets.items():
        train = [q for other, qs in sets.items() if other != name for q, _ in qs]
        fills: list[dict] = [{} for _ in held]
        for fact in FACTS:
            example = next(q.facts[fact] for q in train if fact in q.facts)
            model = reader().fit([q.question for q in train],
                                 [str(q.facts.get(fact, NOT_STATED)) for q in train])
            for fill, (_, p), probs in zip(
                fills, held, model.predict_proba([q.question for q, _ in held]), strict=True
            ):
                best = int(np.argmax(probs))
                label = model.classes_[best]
                if (label != NOT_STATED and probs[best] >= args.threshold
                        and fact not in p.fact_values()):
                    fill[fact] = value_of(label, example)
        alone = sum(verdict_share(lib, q, p, p.fact_values()) for q, p in held)
        filled = sum(verdict_share(lib, q, p, {**p.fact_values(), **fill})
                     for (q, p), fill in zip(held, fills, strict=True))
        print(f"{name:16s} n={len(held):3d}  pattern reader {alone / len(held):.3f}  "
              f"+ learned fills {filled / len(held):.3f}")
        totals = [totals[0] + len(held), totals[1] + alone, totals[2] + filled]
    print(f"{'all':16s} n={totals[0]:3d}  pattern reader {totals[1] / totals[0]:.3f}  "
          f"+ learned fills {totals[2] / totals[0]:.3f}  (threshold {args.threshold})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
