"""Labeled query sets and TREC run files: schema, loading with clear errors, version intervals.

A query set is JSONL, one query per line::

    {"qid": "hw-001", "question": "...", "type": "threshold_check", "as_of": "2011-06-15",
     "jurisdiction": "us-federal", "answerable": true, "abstain_reason": null,
     "labels": [{"id": "/us/usc/t11/s547/c/9", "grade": 2, "why": "...",
                 "valid_from": null, "valid_to": null}],
     "facts": {"transfer_amount": 5000, ...}, "expected_verdicts": {"s547.c.9": true},
     "origin": "handwritten", "provision": "/us/usc/t11/s547", "split": "train"}

`type` is one of `QUERY_TYPES`; `grade` is 2 (primary citation), 1 (supporting) or 0
(background); an unanswerable query (`answerable: false`, expected answer "abstain") names its
`abstain_reason` (`ABSTAIN_REASONS`) and may carry labels (what a system could wrongly return,
or nothing). `valid_from`/`valid_to` of a label are the version interval of the labelled node
that is in force at `as_of` ([from, to), `to` null when open): `build_query_set` fills them from
the project's versioning and `fill_version_intervals` refreshes them from a built snapshot.
`facts` are the facts the rule library declares (its `facts.toml`: names and values), and
`expected_verdicts` map the library's rule ids (`s547.b`, ...) to `true`, `false` or
`"undetermined"`; `verdict_disagreements` checks them against the library.

Run docids are version ids `<node_id>@<effective_from ISO date>` (see
`structfirst.ingest.model.version_id`); a bare node id (no `@`) is accepted as a version id
without a start date.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from structfirst.engine.query_parser import QUERY_TYPES  # the parser's types label queries too
from structfirst.rules.evaluator import evaluate
from structfirst.rules.fact_schema import FactError, validate_facts
from structfirst.rules.library_loader import Library, default_vocabulary, library_rule_ids

ABSTAIN_REASONS = ("other_jurisdiction", "before_any_version", "no_such_provision")
GRADES = (0, 1, 2)
ORIGINS = ("handwritten", "templated")
SPLITS = ("train", "dev", "test")
VERDICTS = (True, False, "undetermined")
_REQUIRED = ("qid", "question", "type", "as_of", "jurisdiction", "answerable", "labels")


class QuerySetError(ValueError):
    """Bad query-set or run input; the message names the file and the line at fault."""

    def __init__(self, source: str | Path, line: int | None, problem: str) -> None:
        where = f"line {line}" if line is not None else "file"
        super().__init__(f"{source}: {where}: {problem}")
        self.source, self.line, self.problem = str(source), line, problem


@dataclass(slots=True)
class Label:
    id: str  # canonical node id, no version suffix
    grade: int  # 2 primary, 1 supporting, 0 background
    why: str = ""  # the source span, or the rule that makes the node relevant
    valid_from: date | None = None  # version interval of `id` in force at the query's as_of
    valid_to: date | None = None  # exclusive; None = open-ended

    @property
    def version_id(self) -> str | None:
        return f"{self.id}@{self.valid_from.isoformat()}" if self.valid_from else None


@dataclass(slots=True)
class Query:
    qid: str
    question: str
    type: str
    as_of: date
    jurisdiction: str
    answerable: bool
    labels: list[Label] = field(default_factory=list)
    abstain_reason: str | None = None
    facts: dict[str, Any] = field(default_factory=dict)
    expected_verdicts: dict[str, bool | str] = field(default_factory=dict)
    origin: str = "handwritten"
    provision: str = ""  # the section the query is about; the unit of the split
    split: str | None = None

    def relevant_ids(self, min_grade: int = 1) -> set[str]:
        return {lab.id for lab in self.labels if lab.grade >= min_grade}

    def primary_ids(self) -> set[str]:
        return self.relevant_ids(2)

    def to_record(self) -> dict[str, Any]:
        return {
            "qid": self.qid,
            "question": self.question,
            "type": self.type,
            "as_of": self.as_of.isoformat(),
            "jurisdiction": self.jurisdiction,
            "answerable": self.answerable,
            "abstain_reason": self.abstain_reason,
            "labels": [
                {
                    "id": lab.id,
                    "grade": lab.grade,
                    "why": lab.why,
                    "valid_from": lab.valid_from.isoformat() if lab.valid_from else None,
                    "valid_to": lab.valid_to.isoformat() if lab.valid_to else None,
                }
                for lab in self.labels
            ],
            "facts": self.facts,
            "expected_verdicts": self.expected_verdicts,
            "origin": self.origin,
            "provision": self.provision,
            "split": self.split,
        }


def _date(value: Any, what: str, src: str | Path, line: int) -> date | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise QuerySetError(src, line, f"{what} must be an ISO date string, got {value!r}")
    try:
        return date.fromisoformat(value)
    except ValueError:
        problem = f"{what} is not an ISO date (YYYY-MM-DD): {value!r}"
        raise QuerySetError(src, line, problem) from None


def parse_query(rec: Any, src: str | Path = "<query>", line: int = 1) -> Query:
    """One query record (a decoded JSON object) to a validated `Query`."""
    if not isinstance(rec, dict):
        raise QuerySetError(src, line, "a query must be a JSON object")
    missing = [k for k in _REQUIRED if k not in rec]
    if missing:
        raise QuerySetError(src, line, f"missing field(s): {', '.join(missing)}")
    qid = rec["qid"]
    if not isinstance(qid, str) or not qid.strip():
        raise QuerySetError(src, line, f"qid must be a non-empty string, got {qid!r}")
    if any(ch.isspace() for ch in qid):
        raise QuerySetError(src, line, f"qid {qid!r} contains whitespace (TREC files split on it)")
    if not isinstance(rec["question"], str) or not rec["question"].strip():
        raise QuerySetError(src, line, f"query {qid}: empty question")
    qtype = rec["type"]
    if qtype not in QUERY_TYPES:
        raise QuerySetError(
            src, line,
            f"query {qid}: unknown type {qtype!r} (expected one of {', '.join(QUERY_TYPES)})",
        )
    as_of = _date(rec["as_of"], f"query {qid}: as_of", src, line)
    if as_of is None:
        raise QuerySetError(src, line, f"query {qid}: as_of is required")
    answerable = rec["answerable"]
    if not isinstance(answerable, bool):
        raise QuerySetError(src, line, f"query {qid}: answerable must be true or false")
    reason = rec.get("abstain_reason")
    if answerable and reason is not None:
        raise QuerySetError(src, line, f"query {qid}: an answerable query has no abstain_reason")
    if not answerable and reason not in ABSTAIN_REASONS:
        raise QuerySetError(
            src,
            line,
            f"query {qid}: unanswerable query needs abstain_reason in "
            f"{', '.join(ABSTAIN_REASONS)}, "
            f"got {reason!r}",
        )
    raw_labels = rec["labels"]
    if not isinstance(raw_labels, list):
        raise QuerySetError(src, line, f"query {qid}: labels must be a list")
    labels: list[Label] = []
    seen: set[str] = set()
    for i, lab in enumerate(raw_labels):
        if not isinstance(lab, dict) or "id" not in lab or "grade" not in lab:
            raise QuerySetError(src, line, f"query {qid}: label {i} needs 'id' and 'grade'")
        grade = lab["grade"]
        if isinstance(grade, bool) or grade not in GRADES:
            raise QuerySetError(
                src, line, f"query {qid}: label {lab['id']!r} has unknown grade {grade!r} (0, 1 "
                           "or 2)"
            )
        lid = lab["id"]
        if not isinstance(lid, str) or not lid.startswith("/"):
            raise QuerySetError(src, line, f"query {qid}: label id must be a canonical id, got "
                                           f"{lid!r}")
        if "@" in lid:
            raise QuerySetError(src, line, f"query {qid}: label id {lid!r} must not carry a "
                                           "version")
        if lid in seen:
            raise QuerySetError(src, line, f"query {qid}: label {lid!r} appears twice")
        seen.add(lid)
        labels.append(
            Label(
                id=lid,
                grade=grade,
                why=lab.get("why") or "",
                valid_from=_date(lab.get("valid_from"), f"query {qid}: valid_from", src, line),
                valid_to=_date(lab.get("valid_to"), f"query {qid}: valid_to", src, line),
            )
        )
    if answerable and not any(lab.grade >= 1 for lab in labels):
        raise QuerySetError(
            src, line, f"query {qid}: answerable query has no label of grade 1 or 2 (missing "
                       "labels)"
        )
    facts = rec.get("facts") or {}
    if not isinstance(facts, dict):
        raise QuerySetError(src, line, f"query {qid}: facts must be an object")
    try:  # the rule library's declared facts, names and values
        validate_facts(facts, default_vocabulary())
    except FactError as exc:
        raise QuerySetError(src, line, f"query {qid}: {exc}") from None
    verdicts = rec.get("expected_verdicts") or {}
    if not isinstance(verdicts, dict):
        raise QuerySetError(src, line, f"query {qid}: expected_verdicts must be an object")
    for rule, v in verdicts.items():
        if rule not in library_rule_ids():
            problem = f"query {qid}: unknown rule {rule!r} in expected_verdicts"
            raise QuerySetError(src, line, problem)
        if v not in VERDICTS or (v == 1 and v is not True) or (v == 0 and v is not False):
            raise QuerySetError(
                src, line, f"query {qid}: verdict for {rule} must be true, false or "
                           "\"undetermined\""
            )
    origin = rec.get("origin", "handwritten")
    if origin not in ORIGINS:
        raise QuerySetError(src, line, f"query {qid}: unknown origin {origin!r}")
    split = rec.get("split")
    if split is not None and split not in SPLITS:
        raise QuerySetError(src, line, f"query {qid}: unknown split {split!r}")
    return Query(
        qid=qid,
        question=rec["question"].strip(),
        type=qtype,
        as_of=as_of,
        jurisdiction=str(rec["jurisdiction"]),
        answerable=answerable,
        labels=labels,
        abstain_reason=reason,
        facts=facts,
        expected_verdicts=verdicts,
        origin=origin,
        provision=str(rec.get("provision") or ""),
        split=split,
    )


def read_jsonl(path: Path, what: str) -> Iterator[tuple[int, Any]]:
    """(line number, decoded JSON) of each non-blank line of the `what` file `path`;
    QuerySetError when the file is missing or a line is not JSON."""
    if not path.is_file():
        raise QuerySetError(path, None, f"no such {what} file")
    with path.open(encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            try:
                rec = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise QuerySetError(path, lineno, f"not valid JSON ({exc.msg})") from None
            yield lineno, rec


def load_queries(paths: str | Path | Iterable[str | Path]) -> list[Query]:
    """Load and validate one or more JSONL query files (qids must be unique across them)."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    out: list[Query] = []
    first_seen: dict[str, tuple[str, int]] = {}
    for path in paths:
        path = Path(path)
        for lineno, rec in read_jsonl(path, "query"):
            q = parse_query(rec, path, lineno)
            if q.qid in first_seen:
                f0, l0 = first_seen[q.qid]
                raise QuerySetError(
                    path, lineno, f"duplicate qid {q.qid!r} (first seen in {f0} line {l0})"
                )
            first_seen[q.qid] = (str(path), lineno)
            out.append(q)
    return out


# a labeled verdict as written -> as the labels hold it
VERDICT_VALUES: dict[str, bool | str] = {"true": True, "false": False,
                                         "undetermined": "undetermined"}


@dataclass(frozen=True, slots=True)
class VerdictQuestion:
    """A question labeled with one rule's verdict and the facts it states, no relevance labels:
    an entry of a verdict question set for the rules alone (`verdict_dev.toml`)."""

    qid: str
    question: str
    as_of: date
    facts: dict[str, Any]
    expected_verdicts: dict[str, bool | str]


def load_verdict_questions(path: Path) -> list[VerdictQuestion]:
    """The `[[question]]` entries (`rule`, `as_of`, `text`, `verdict`, `facts`) of a TOML
    verdict question set; a bad entry raises QuerySetError naming the file and its number."""
    try:
        entries = tomllib.loads(path.read_text(encoding="utf-8"))["question"]
    except (OSError, tomllib.TOMLDecodeError, KeyError) as exc:
        raise QuerySetError(path, None, f"not a [[question]] list ({exc})") from None
    out = []
    for i, e in enumerate(entries, 1):
        missing = sorted({"rule", "as_of", "text", "verdict", "facts"} - set(e))
        if missing or e["verdict"] not in VERDICT_VALUES or not isinstance(e["as_of"], date):
            raise QuerySetError(path, None, f"question {i}: needs rule, as_of (a date), text, "
                                f"facts and a verdict of {sorted(VERDICT_VALUES)} "
                                f"(missing: {missing})")
        out.append(VerdictQuestion(f"{path.stem}-{i}", e["text"], e["as_of"], dict(e["facts"]),
                                   {e["rule"]: VERDICT_VALUES[e["verdict"]]}))
    return out


def verdict_disagreements(queries: Iterable[Query | VerdictQuestion],
                          library: Library) -> list[str]:
    """Each expected verdict the rule library, evaluated on the query's gold facts at its
    as-of date, does not give: one message per disagreement (empty when they all agree)."""
    out = []
    for q in queries:
        if not q.expected_verdicts:
            continue
        rules = [r for rid in q.expected_verdicts for r in library.versions(rid)]
        got = {v.rule_id: v for v in evaluate(rules, q.facts, q.as_of, library=library)}
        for rid, want in q.expected_verdicts.items():
            v = got.get(rid)
            shown = v.verdict.value if v is not None else "no such rule"
            if v is None or VERDICT_VALUES[shown] != want:
                missing = f" (missing: {', '.join(v.missing_facts)})" if v and v.missing_facts \
                    else ""
                out.append(f"{q.qid}: {rid} is labeled {_shown(want)}, the library on the gold "
                           f"facts gives {shown}{missing}")
    return out




def _shown(v: bool | str) -> str:
    return str(v).lower() if isinstance(v, bool) else v


def dump_queries(queries: Iterable[Query], path: str | Path) -> None:
    """Write queries as JSONL (stable key order, UTF-8)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for q in queries:
            fh.write(json.dumps(q.to_record(), ensure_ascii=False) + "\n")


# --------------------------------------------------------------------------------------------
# Ids
# --------------------------------------------------------------------------------------------


def parse_version_id(docid: str) -> tuple[str, date | None]:
    """`/us/usc/t11/s547/c/9@2016-01-01` -> (`/us/usc/t11/s547/c/9`, date(2016, 1, 1))."""
    node, sep, start = docid.rpartition("@")
    if not sep:
        return docid, None
    return node, date.fromisoformat(start)


def jurisdiction_of(node_id: str) -> str:
    """The jurisdiction of a node from its canonical id (the artifact model's vocabulary)."""
    if node_id.startswith("/us/usc/"):
        return "us-federal"
    if node_id.startswith("/us/cfr/"):
        return "us-federal/cfpb"
    m = re.match(r"/us/([a-z]{2})/", node_id)
    if m:
        return f"us-{m.group(1)}"
    return "unknown"


def jurisdiction_within(hit: str, query: str) -> bool:
    """True when `hit` is `query` or one of its sub-jurisdictions (`us-federal/cfpb` within
    `us-federal`)."""
    return hit == query or hit.startswith(query + "/")


# --------------------------------------------------------------------------------------------
# Runs
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hit:
    docid: str  # version id
    node_id: str
    start: date | None  # the version's effective_from, from the docid
    rank: int  # 1-based position after sorting by score (desc), then file rank
    score: float


Run = dict[str, list[Hit]]  # qid -> hits, best first


def load_run(path: str | Path, known_docids: Iterable[str] | None = None) -> Run:
    """Read a TREC run (`qid Q0 docid rank score tag`), hits sorted best first.

    Raises `QuerySetError` naming the file and line for: a malformed line, a docid whose
    version date is not an ISO date, a docid not among `known_docids` (when given), a repeated
    (qid, docid), and an empty run.
    """
    path = Path(path)
    if not path.is_file():
        raise QuerySetError(path, None, "no such run file")
    known = set(known_docids) if known_docids is not None else None
    rows: dict[str, list[tuple[float, int, int, str]]] = {}
    seen: set[tuple[str, str]] = set()
    with path.open(encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            cols = raw.split()
            if len(cols) != 6:
                raise QuerySetError(
                    path, lineno, "expected 6 columns 'qid Q0 docid rank score tag', got "
                                  f"{len(cols)}"
                )
            qid, _, docid, rank_s, score_s, _ = cols
            try:
                rank, score = int(rank_s), float(score_s)
            except ValueError:
                problem = f"bad rank/score {rank_s!r} {score_s!r}"
                raise QuerySetError(path, lineno, problem) from None
            try:
                parse_version_id(docid)
            except ValueError:
                problem = f"docid {docid!r} has a bad version date"
                raise QuerySetError(path, lineno, problem) from None
            if known is not None and docid not in known:
                raise QuerySetError(
                    path, lineno, f"unknown docid {docid!r} (not a version id of the snapshot)"
                )
            if (qid, docid) in seen:
                raise QuerySetError(path, lineno, f"docid {docid!r} repeated for query {qid}")
            seen.add((qid, docid))
            rows.setdefault(qid, []).append((-score, rank, lineno, docid))
    if not rows:
        raise QuerySetError(path, None, "empty run: no result lines")
    return {qid: _hits(sorted(r)) for qid, r in rows.items()}


def _hits(rows: list[tuple[float, int, int, str]]) -> list[Hit]:
    out = []
    for pos, (neg_score, _, _, docid) in enumerate(rows, 1):
        node, start = parse_version_id(docid)
        out.append(Hit(docid, node, start, pos, -neg_score))
    return out


def run_from_lists(ranked: Mapping[str, list[str]]) -> Run:
    """A run from qid -> docids best first (for tests and in-memory systems)."""
    return {
        qid: _hits([(-float(len(ids) - i), i + 1, i, d) for i, d in enumerate(ids)])
        for qid, ids in ranked.items()
    }


# --------------------------------------------------------------------------------------------
# Version intervals from a snapshot
# --------------------------------------------------------------------------------------------

def fill_version_intervals(queries: Iterable[Query], con: Any, overwrite: bool = False) -> dict:
    """Fill each label's `valid_from`/`valid_to` from a snapshot's DuckDB `artifacts` table.

    `con` is a DuckDB connection to the snapshot store (`structfirst.ingest.duckdb_store`:
    node_id, effective_from, effective_to; half-open, NULL = open). For each label the
    version with effective_from <= as_of < effective_to is taken; labels already filled are
    kept unless `overwrite`. Returns {"filled": n, "missing": [(qid, label id), ...]}, missing
    being the labels with no version in force at their query's as_of (left as they were).
    """
    queries = list(queries)
    wanted = sorted({lab.id for q in queries for lab in q.labels})
    intervals: dict[str, list[tuple[date | None, date | None]]] = {}
    if wanted:
        rows = con.execute(
            "SELECT node_id, effective_from, effective_to FROM artifacts "
            "WHERE list_contains(?, node_id)",
            [wanted],
        ).fetchall()
        for node, start, end in rows:
            intervals.setdefault(node, []).append((start, end))
    filled, missing = 0, []
    for q in queries:
        for lab in q.labels:
            if lab.valid_from is not None and not overwrite:
                continue
            hit = [
                (s, e)
                for s, e in intervals.get(lab.id, [])
                if (s is None or s <= q.as_of) and (e is None or q.as_of < e)
            ]
            if not hit:
                missing.append((q.qid, lab.id))
                continue
            lab.valid_from, lab.valid_to = max(hit, key=lambda se: se[0] or date.min)
            filled += 1
    return {"filled": filled, "missing": missing}
