"""Jurisdiction accuracy of the query parser on questions that name a state.

    python -m structfirst.eval.jurisdiction_accuracy \
        --questions data/queries/jurisdiction_check.jsonl

The file holds one JSON object per line: `qid`, `question`, and `jurisdiction`, the law the
question asks about (`us-federal` when a state is named only as a place or beside federal law;
`us-xx` when the state's own law is asked). The parser gets the question alone (no caller
jurisdiction); a CFPB jurisdiction counts as federal. Printed: accuracy per gold kind (federal,
state) and overall with 95% Wilson intervals, and each miss.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import dataclass
from pathlib import Path

from structfirst.engine.query_parser import parse_query


class JurisdictionSetError(ValueError):
    """A bad record in a jurisdiction question set (the message names the file and line)."""


@dataclass(frozen=True, slots=True)
class JurisdictionQuestion:
    qid: str
    question: str
    jurisdiction: str


def load_jurisdiction_questions(path: Path) -> list[JurisdictionQuestion]:
    out = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
            out.append(JurisdictionQuestion(rec["qid"], rec["question"], rec["jurisdiction"]))
        except (json.JSONDecodeError, KeyError, TypeError) as e:
            raise JurisdictionSetError(f"{path}, line {i}: {e!r}") from e
    return out


def family(jurisdiction: str) -> str:
    """`us-federal/cfpb` -> `us-federal`; a state stays itself."""
    return jurisdiction.split("/", 1)[0]


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (math.nan, math.nan)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (centre - half, centre + half)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--questions", type=Path, required=True)
    args = ap.parse_args(argv)
    questions = load_jurisdiction_questions(args.questions)
    right: dict[str, list[bool]] = {"federal": [], "state": []}
    for q in questions:
        got = family(parse_query(q.question).jurisdiction.value)
        kind = "federal" if q.jurisdiction == "us-federal" else "state"
        ok = got == family(q.jurisdiction)
        right[kind].append(ok)
        if not ok:
            print(f"miss {q.qid}: want {q.jurisdiction}, got {got}\n   Q: {q.question}")
    for kind, oks in (*right.items(), ("all", right["federal"] + right["state"])):
        lo, hi = wilson(sum(oks), len(oks))
        print(f"{kind}: {sum(oks)} of {len(oks)} ({sum(oks) / max(len(oks), 1):.3f}) "
              f"[{lo:.2f}, {hi:.2f}]")


if __name__ == "__main__":
    main()
