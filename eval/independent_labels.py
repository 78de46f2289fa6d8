"""Agreement between the query set's labels and an independent, blind second labeler.

    python -m structfirst.eval.independent_labels      # prints kappa and the disagreements

`data/queries/second_labeler.jsonl` holds, for 100 dev and test queries drawn at random
(seeded, stratified by type), the provisions a second labeler chose seeing only the question,
its date and the corpus text: never the first labels, the engine or its output. Each line is
`{qid, question, as_of, primary, supporting, abstain, note}`.

Each query gets one category per labeler: `abstain` (any reason), else a primary provision.
The first pass may grade several provisions 2 (primary); its category is the one the second
labeler chose when it is among them, else its first grade-2 label. Cohen's kappa is computed at
the exact provision and at section level (`section_of`), with the share of second-labeler
primaries that the first pass graded at all (>= 1).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from structfirst.eval.build_query_set import QUERIES_DIR, section_of
from structfirst.eval.label_review import cohen_kappa
from structfirst.eval.query_set import Query, load_queries

SECOND_LABELS = QUERIES_DIR / "second_labeler.jsonl"
ABSTAIN = "abstain"


def read_second_labels(path: Path) -> dict[str, dict[str, Any]]:
    """The second labeler's lines by qid; a bad line is a ValueError naming file and line."""
    labels = {}
    for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        try:
            row = json.loads(line)
            labels[row["qid"]] = row
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}: line {n}: {exc}") from None
    return labels


def categories(q: Query, second: dict[str, Any]) -> tuple[str, str]:
    """(first pass, second labeler) categories of one query."""
    other = ABSTAIN if second["abstain"] or not second["primary"] else second["primary"]
    if not q.answerable:
        return ABSTAIN, other
    primaries = [lab.id for lab in q.labels if lab.grade == 2]
    return (other if other in primaries else primaries[0]), other


def _section(category: str) -> str:
    return category if category == ABSTAIN else section_of(category)


def agreement(queries: list[Query], second: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Kappa at both levels, the lenient share and every exact-level disagreement."""
    by_qid = {q.qid: q for q in queries}
    missing = sorted(set(second) - set(by_qid))
    if missing:
        raise ValueError(f"second labels for unknown queries: {', '.join(missing)}")
    rows = []
    for qid, row in second.items():
        q = by_qid[qid]
        first, other = categories(q, row)
        rows.append({"qid": qid, "type": q.type, "first": first, "second": other,
                     "graded": other in q.relevant_ids(1), "note": row["note"]})
    first = [r["first"] for r in rows]
    other = [r["second"] for r in rows]
    return {
        "n": len(rows),
        "kappa_exact": cohen_kappa(first, other),
        "kappa_section": cohen_kappa([_section(x) for x in first], [_section(x) for x in other]),
        "second_primary_graded_by_first": sum(r["graded"] for r in rows) / len(rows),
        "disagreements": [r for r in rows if r["first"] != r["second"]],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Kappa against the independent second labeler.")
    ap.add_argument("--queries", type=Path, default=QUERIES_DIR / "all.jsonl")
    ap.add_argument("--labels", type=Path, default=SECOND_LABELS)
    args = ap.parse_args(argv)
    result = agreement(load_queries(args.queries), read_second_labels(args.labels))
    for level in ("kappa_exact", "kappa_section"):
        k = result[level]
        print(f"{level}: kappa {k['kappa']:.3f} (observed {k['p_observed']:.3f}, "
              f"chance {k['p_expected']:.3f}, n {k['n']})")
    print(f"second labeler's primary graded by the first pass: "
          f"{result['second_primary_graded_by_first']:.2f}")
    for r in result["disagreements"]:
        same = "same section" if _section(r["first"]) == _section(r["second"]) else "other"
        print(f"{r['qid']}\t{r['type']}\t{r['first']}\t{r['second']}\t{same}\t{r['note']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
