"""Load the rule library: rule files, parameter files and the ingested thresholds.

`load_library()` reads every `*.rules` and `*.params.toml` under the library root
(`rules/library/` by default), resolves the rules against each other, the fact vocabulary and
the parameters, and returns a `Library`. A rule with an error (syntax, unknown predicate,
unsafe variable, wrong types, ...) is left out with an `Issue` naming file, line and rule;
every other rule still loads. A rule that depends on a rule left out is left out too.

Thresholds: with `index=DIR` the ingested §104 adjustments come from the DuckDB `facts` table
of its current snapshot (or of `snapshot_id`); a store that cannot be read is a
`ThresholdSourceError`, never a silent fall back to the statute's base amounts; otherwise
from the shared Title 11 editions, parsed once per process (none found is a
`ThresholdSourceError` too); or from `thresholds=[...]`, a list of records or THRESHOLD facts
(e.g. in tests).
"""

from __future__ import annotations

import functools
import hashlib
import os
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from structfirst.rules import parameters as P
from structfirst.rules.fact_schema import Vocabulary, fact_files, read_fact_files
from structfirst.rules.rule_syntax import Expr, FailedRule, Issue, RuleDecl, parse_file
from structfirst.rules.semantics import RClause, head_kinds, resolve_rule

LIBRARY_ROOT = Path(__file__).resolve().parent / "library"
LIBRARY_ENV = "STRUCTFIRST_RULE_LIBRARY"  # another library for the engine (`ask`) to use


def library_root() -> Path:
    """The library the engine and the query parser use: the directory named by
    $STRUCTFIRST_RULE_LIBRARY, else the packaged one. A missing directory is an error."""
    env = os.environ.get(LIBRARY_ENV)
    root = Path(env) if env else LIBRARY_ROOT
    if not root.is_dir():
        raise ValueError(f"${LIBRARY_ENV}: rule library not found at {root}")
    return root
TITLE11_FACTS = LIBRARY_ROOT / "us" / "usc" / "t11" / "facts.toml"  # used by test libraries


@dataclass(eq=False)
class Rule:
    """One version of one rule, resolved and ready to evaluate."""

    decl: RuleDecl
    clauses: list[RClause]
    facts: frozenset[str]
    params: frozenset[str]
    preds: frozenset[str]  # predicates (and values) of other rules it uses
    library: Library | None = field(default=None, repr=False)
    value: Expr | None = None  # what a value rule returns (it has no clauses)

    @property
    def id(self) -> str:
        return self.decl.id

    @property
    def version(self) -> int:
        return self.decl.version or 0

    @functools.cached_property
    def key(self) -> str:
        return f"{self.decl.id}@{self.version}"

    @property
    def head(self) -> str:
        return self.clauses[0].head if self.clauses else (self.decl.head or "")

    @property
    def title(self) -> str:
        return self.decl.title

    @property
    def cites(self) -> list[str]:
        return self.decl.cites

    @property
    def effective_from(self) -> date:
        assert self.decl.effective_from is not None
        return self.decl.effective_from

    @property
    def effective_to(self) -> date | None:
        return self.decl.effective_to

    @property
    def file(self) -> str:
        return self.decl.file

    @property
    def line(self) -> int:
        return self.decl.line

    def in_force(self, day: date) -> bool:
        return self.effective_from <= day and (self.effective_to is None or day < self.effective_to)

    def all_citations(self) -> list[str]:
        out = list(self.decl.cites)
        for c in self.clauses:
            for p in c.premises:
                if p.cite not in out:
                    out.append(p.cite)
        return out

    def __repr__(self) -> str:
        return f"Rule({self.key} {self.head})"


@dataclass(eq=False)
class Library:
    root: Path
    rules: list[Rule]
    parameters: P.ParameterTable
    issues: list[Issue]
    rule_files: list[Path]
    param_files: list[Path]
    vocabulary: Vocabulary = field(default_factory=lambda: Vocabulary({}))
    fact_files: list[Path] = field(default_factory=list)
    fingerprint: str = ""
    failed: dict[str, FailedRule] = field(default_factory=dict)  # rule id -> why it is left out
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        self.by_id: dict[str, list[Rule]] = {}
        self.by_head: dict[str, list[Rule]] = {}
        for r in self.rules:
            r.library = self
            self.by_id.setdefault(r.id, []).append(r)
            self.by_head.setdefault(r.head, []).append(r)
        for versions in list(self.by_id.values()) + list(self.by_head.values()):
            versions.sort(key=lambda r: (r.effective_from, r.version))
        if not self.fingerprint:
            h = hashlib.sha256()
            for r in self.rules:
                h.update(r.decl.source.encode())
                h.update(r.file.encode())
            self.fingerprint = h.hexdigest()[:16]
        self.cache: dict[Any, Any] = {}  # evaluator caches (per as-of version sets)

    def rule_ids(self) -> list[str]:
        return sorted(self.by_id)

    def versions(self, rule_id: str) -> list[Rule]:
        return list(self.by_id.get(rule_id, []))

    def in_force(self, rule_id: str, day: date) -> Rule | None:
        for r in self.by_id.get(rule_id, []):
            if r.in_force(day):
                return r
        return None

    def relative(self, file: str) -> str:
        """`file` relative to the library root (as verdicts show it), else unchanged."""
        key = ("relative", file)
        got = self.cache.get(key)
        if got is None:
            try:
                got = Path(file).resolve().relative_to(self.root.resolve()).as_posix()
            except ValueError:
                got = file
            self.cache[key] = got
        return got

    def errors(self) -> list[Issue]:
        return [i for i in self.issues if i.severity == "error"]


def _as_records(thresholds: Iterable[Any]) -> list[P.ThresholdRecord]:
    items = list(thresholds)
    recs = [t for t in items if isinstance(t, P.ThresholdRecord)]
    return recs + P.records_from_facts(t for t in items if not isinstance(t, P.ThresholdRecord))


def load_thresholds(index: Path | str | None = None,
                    thresholds: Iterable[Any] | None = None,
                    snapshot_id: str | None = None) -> tuple[list[P.ThresholdRecord], str,
                                                             list[Issue]]:
    """The ingested THRESHOLD records and where they came from ("index DIR", "editions", ...).
    ThresholdSourceError when the index's store, or with no index the shared editions, cannot be
    read: evaluating with the base amounts instead would answer a different, wrong, amount."""
    if thresholds is not None:
        return _as_records(thresholds), "given", []
    if index is not None:
        try:
            return P.records_from_index(index, snapshot_id), f"index {index}", []
        except Exception as exc:  # a missing, damaged or unreadable snapshot or store
            raise P.ThresholdSourceError(
                f"cannot read the ingested thresholds from {index}: {exc}"
            ) from exc
    try:
        return P.records_from_editions(), "editions", []
    except P.ThresholdSourceError as exc:
        raise P.ThresholdSourceError(f"no ingested §104 adjustments: {exc}") from exc


def load_library(root: Path | str | None = None, *, index: Path | str | None = None,
                 thresholds: Iterable[Any] | None = None,
                 snapshot_id: str | None = None) -> Library:
    """Read, resolve and check the rule library under `root`."""
    root = Path(root) if root is not None else LIBRARY_ROOT
    issues: list[Issue] = []
    if not root.is_dir():
        issues.append(Issue("error", "io", f"rule library not found at {root}"))
    rule_files = sorted(root.rglob("*.rules")) if root.is_dir() else []
    param_files = sorted(root.rglob("*.params.toml")) if root.is_dir() else []

    facts_paths = fact_files(root)
    vocabulary, fissues = read_fact_files(facts_paths)
    issues += fissues
    specs, pissues = P.load_parameter_files(param_files)
    issues += pissues
    records, source, tissues = load_thresholds(index, thresholds, snapshot_id)
    issues += tissues
    table = P.build_table(specs, records, ingested_source=source)
    issues += table.issues
    units = {s.name: s.unit for s in specs}

    decls: list[RuleDecl] = []
    failed: dict[str, FailedRule] = {}
    for path in rule_files:
        parsed = parse_file(path)
        issues += parsed.issues
        decls += parsed.rules
        for f in parsed.failed:
            failed.setdefault(f.rule_id, f)
    rules = _resolve_all(decls, units, vocabulary, issues, failed)
    return Library(root, rules, table, issues, rule_files, param_files, vocabulary, facts_paths,
                   failed=failed)


def _resolve_all(decls: Sequence[RuleDecl], units: dict[str, str], vocabulary: Vocabulary,
                 issues: list[Issue], failed: dict[str, FailedRule]) -> list[Rule]:
    """Resolve every rule; drop those with errors, then (repeatedly) those using dropped ones.

    A dropped rule's first error is the root cause: the rules left out because they use it
    are named in that one message (and recorded in `failed`), not reported one by one."""
    heads = head_kinds(decls, vocabulary)
    for f in failed.values():
        if f.head:
            heads.setdefault(f.head, None)
    resolved: dict[int, Rule] = {}
    values = _value_types(decls, heads, units, vocabulary)
    for i, decl in enumerate(decls):
        res = resolve_rule(decl, heads, units, vocabulary, values)
        issues += res.issues
        errors = [x for x in res.issues if x.severity == "error"]
        if errors:
            failed.setdefault(decl.id, FailedRule(decl.id, decl.head, errors[0], decl.source))
            continue
        resolved[i] = Rule(decl, res.clauses, frozenset(res.facts), frozenset(res.params),
                           frozenset(res.preds), value=res.value)
    # cycles among predicates make the program non-stratified: reject the rules on a cycle
    graph: dict[str, set[str]] = {}
    negative: set[tuple[str, str]] = set()
    for r in resolved.values():
        graph.setdefault(r.head, set()).update(r.preds)
        negative |= {(r.head, p.resolved.pred) for c in r.clauses for p in c.premises
                     if getattr(p.resolved, "negated", False) and hasattr(p.resolved, "pred")}
    # recursion among predicates of entities is evaluated by pyDatalog (a positive cycle is
    # fine); a cycle through a predicate of the case or through negation is refused
    cyclic = {h for h in _on_cycles(graph)
              if heads.get(h) is None or any((h, d) in negative for d in graph.get(h, ()))}
    for i, r in list(resolved.items()):
        if r.head in cyclic:
            issue = Issue("error", "cycle", f"{r.head} depends on itself "
                          f"(through {', '.join(sorted(r.preds & cyclic))})", r.file, r.line, r.id)
            issues.append(issue)
            failed.setdefault(r.id, FailedRule(r.id, r.head, issue, r.decl.source))
            del resolved[i]
    roots = {f.head: f for f in failed.values() if f.head}
    dependents: dict[str, list[str]] = {}
    changed = True
    while changed:
        changed = False
        defined = {r.head for r in resolved.values()}
        for i, r in list(resolved.items()):
            missing = sorted(r.preds - defined)
            if missing:
                root = roots[missing[0]]
                dependents.setdefault(root.rule_id, []).append(r.id)
                failed.setdefault(r.id, FailedRule(r.id, r.head, root.cause, r.decl.source))
                roots.setdefault(r.head, root)
                del resolved[i]
                changed = True
    for root_id, ids in dependents.items():
        cause = failed[root_id].cause
        at = issues.index(cause)
        issues[at] = Issue(cause.severity, cause.code, f"{cause.message}; {root_id} failed to "
                           f"load, and so did the rules that use it: "
                           f"{', '.join(dict.fromkeys(ids))}", cause.file, cause.line,
                           cause.rule_id)
        for rid in dict.fromkeys(ids):
            f = failed[rid]
            failed[rid] = FailedRule(rid, f.head, issues[at], f.source)
        root = failed[root_id]
        failed[root_id] = FailedRule(root_id, root.head, issues[at], root.source)
    return [resolved[i] for i in sorted(resolved)]


def _value_types(decls: Sequence[RuleDecl], heads: dict[str, str | None],
                 units: dict[str, str], vocabulary: Vocabulary) -> dict[str, object]:
    """The type each value rule returns (they may use each other's values: resolved until the
    types no longer change)."""
    values: dict[str, object] = {d.value.head: "number" for d in decls if d.value is not None}
    for _ in range(len(values)):
        changed = False
        for d in decls:
            if d.value is None:
                continue
            typ = resolve_rule(d, heads, units, vocabulary, values).value_type
            if typ is not None and values[d.value.head] != typ:
                values[d.value.head] = typ
                changed = True
        if not changed:
            break
    return values


def _on_cycles(graph: dict[str, set[str]]) -> set[str]:
    out: set[str] = set()
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> None:
        state[n] = 1
        stack.append(n)
        for m in graph.get(n, ()):
            if state.get(m) == 1:
                out.update(stack[stack.index(m):])
            elif m not in state:
                visit(m)
        stack.pop()
        state[n] = 2

    for n in list(graph):
        if n not in state:
            visit(n)
    return out


_DEFAULT: dict[tuple[str, str | None, str | None], Library] = {}
_DEFAULT_LOCK = threading.Lock()


def default_vocabulary() -> Vocabulary:
    """The facts declared in the library (`library_root()`, read once per process; no rules,
    no thresholds): what the query parser extracts. A bad declaration raises ValueError."""
    root = library_root()
    with _DEFAULT_LOCK:
        if str(root) not in _VOCABULARY:
            vocabulary, issues = read_fact_files(fact_files(root))
            errors = [i for i in issues if i.severity == "error"]
            if errors:
                raise ValueError("; ".join(str(i) for i in errors))
            _VOCABULARY[str(root)] = vocabulary
        return _VOCABULARY[str(root)]


_VOCABULARY: dict[str, Vocabulary] = {}


@functools.cache
def library_rule_ids(root: Path = LIBRARY_ROOT) -> frozenset[str]:
    """The rule ids the rule files under `root` declare (parsed only, not resolved)."""
    return frozenset(d.id for path in sorted(root.rglob("*.rules")) for d in parse_file(path).rules)


def default_library(index: Path | str | None = None, snapshot_id: str | None = None) -> Library:
    """The library (`library_root()`), loaded once per process (per index and snapshot)."""
    root = library_root()
    key = (str(root), None if index is None else str(index), snapshot_id)
    with _DEFAULT_LOCK:
        if key not in _DEFAULT:
            _DEFAULT[key] = load_library(root, index=index, snapshot_id=snapshot_id)
        return _DEFAULT[key]
