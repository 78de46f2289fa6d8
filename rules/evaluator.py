"""Three-valued evaluation of rules on pyDatalog, with traces and missing facts.

`evaluate(rules, facts, as_of)` returns one `Verdict` per rule id: `true` when every
completion of the unknown facts makes the rule true, `false` when every completion makes it
false, `undetermined` otherwise.

How:

1. The ground premises of every clause in force (fact tests, comparisons against facts and
   the parameters' values at the as-of date) are evaluated into a per-call fact table: for
   each clause with predicate premises, whether its ground premises certainly hold (`sf_cT`)
   or possibly hold (`sf_cP`); for the clauses of a rule that have only ground premises,
   the predicates one of whose such clauses certainly (`sf_gT`) or possibly (`sf_gP`) holds
   (one clause `sf_hT(H) <= sf_gT(H)` for them all). The same values make up the trace.
2. The whole library is compiled once per thread into a pyDatalog program (a fresh
   `Logic(True)` bound to that thread) that derives the predicates from that table. Every
   clause is compiled twice, into a *certain* (`sf_hT`) and a *possible* (`sf_hP`) version
   (Kleene's strong three-valued logic): a negated predicate premise is certain when the
   predicate is not possible, and possible when it is not certain, so negation stays sound.
   A predicate with no rule in force is possible but not certain.
3. pyDatalog reads the fact table through resolvers from a per-thread, per-call state that is
   cleared when the call ends, so facts of one call never meet another call's facts, in the
   same thread or in others. Two queries (`sf_hT(X)`, `sf_hP(X)`) give every predicate's
   bounds: true if certain, false if not possible, otherwise undetermined.
4. Kleene's logic is sound but may leave undetermined what every completion decides (e.g. an
   enumeration compared with two values). Each undetermined verdict is refined: unknown facts
   that occur in the rule with one polarity only cannot make Kleene's answer inexact; the
   others are enumerated (booleans, enumeration values, numbers at the constants they are
   compared with), and Kleene's logic decides each case. If that cannot be done exactly the
   verdict stays undetermined with `exact = False`.
5. The trace is checked against pyDatalog's answer for every rule it reports.
"""

from __future__ import annotations

import itertools
import operator
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from pyDatalog import pyEngine
from pyDatalog.Logic import Logic
from pyDatalog.pyParser import Literal, Term, add_clause
from structfirst.rules.fact_schema import Entity, FactSet, FactType, Vocabulary, validate_facts
from structfirst.rules.functions import FUNCTIONS, add_span
from structfirst.rules.library_loader import Library, Rule
from structfirst.rules.parameters import NoValue, ParamValue
from structfirst.rules.rule_syntax import (
    Agg,
    AttrRef,
    Call,
    DateLit,
    Expr,
    FactRef,
    Num,
    ParamRef,
    RuleValue,
    Scale,
    Span,
    Sum,
    Sym,
    Var,
)
from structfirst.rules.semantics import (
    RAttr,
    RBind,
    RBool,
    RClause,
    RCompare,
    REntity,
    RParam,
    RPred,
    RRef,
    RTruth,
)
from structfirst.rules.verdict import PremiseTrace, Tri, Verdict, conj, disj

UNK = "\x00unknown"  # the value of an unknown fact in expressions


class EngineError(RuntimeError):
    """pyDatalog and the trace disagree: a bug in the compiler, never a property of the input."""


_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
    "==": operator.eq, "!=": operator.ne,
}


def _holds(op: str, a: Any, b: Any) -> bool:
    try:
        return bool(_OPS[op](a, b))
    except TypeError:
        return False


def _unk(v: Any) -> bool:
    return isinstance(v, str) and v == UNK


def _total(values: Sequence[tuple[str, Any]]) -> Any:
    """`+ a - b ...` of evaluated terms: numbers, or one date moved by spans and days."""
    base = next((v for _, v in values if isinstance(v, date)), None)
    if base is not None:
        for sign, v in values:
            if v is base:
                continue
            n, unit = (v.count, v.unit) if isinstance(v, Span) else (v, "days")
            base = add_span(base, n if sign == "+" else -n, unit)
        return base
    out: Any = 0
    for sign, v in values:
        out = out + v if sign == "+" else out - v
    return out


# -- per-call state, read by the resolvers ---------------------------------------------------


@dataclass(slots=True)
class _State:
    certain: frozenset[str]  # clause ids whose ground premises certainly hold
    possible: frozenset[str]  # ... possibly hold
    # predicates one of whose clauses of ground premises only certainly / possibly holds
    ground_T: frozenset[str]
    ground_P: frozenset[str]
    inactive: frozenset[str]  # predicates with no rule in force
    # entity clauses: clause id -> the entities whose ground premises certainly/possibly hold
    ent_certain: Mapping[str, frozenset[str]] = field(default_factory=dict)
    ent_possible: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # references: attribute -> (entity, referenced entity) pairs, known / possible
    ref_certain: Mapping[str, frozenset[tuple[str, str]]] = field(default_factory=dict)
    ref_possible: Mapping[str, frozenset[tuple[str, str]]] = field(default_factory=dict)
    open_kinds: frozenset[str] = frozenset()  # kinds of entities the question may not list all of
    # predicates of entities of lower strata (and all of them for the predicates of the case)
    members_T: Mapping[str, frozenset[str]] = field(default_factory=dict)
    members_P: Mapping[str, frozenset[str]] = field(default_factory=dict)


_TL = threading.local()


def _state() -> _State:
    state = getattr(_TL, "state", None)
    if state is None:
        raise RuntimeError("a rule resolver ran outside an evaluation")
    return state


def _r_cT(c):  # noqa: N802 - resolver names mirror the predicates
    if c.is_const() and c.id in _state().certain:
        yield (c.id,)


def _r_cP(c):  # noqa: N802
    if c.is_const() and c.id in _state().possible:
        yield (c.id,)


def _members_of(names: frozenset[str], h: Any) -> Any:
    if h.is_const():
        if h.id in names:
            yield (h.id,)
    else:
        for name in names:
            yield (name,)


def _r_inactive(h):
    yield from _members_of(_state().inactive, h)


def _r_gT(h):  # noqa: N802
    yield from _members_of(_state().ground_T, h)


def _r_gP(h):  # noqa: N802
    yield from _members_of(_state().ground_P, h)


def _pairs(table: Mapping[str, frozenset[Any]], c: Any, e: Any) -> Any:
    if not c.is_const():
        return
    members = table.get(c.id, frozenset())
    if e.is_const():
        if e.id in members:
            yield (c.id, e.id)
    else:
        for m in members:
            yield (c.id, m)


def _r_ecT(c, e):  # noqa: N802
    yield from _pairs(_state().ent_certain, c, e)


def _r_ecP(c, e):  # noqa: N802
    yield from _pairs(_state().ent_possible, c, e)


def _refs(table: Mapping[str, frozenset[tuple[str, str]]], a: Any, e: Any, t: Any) -> Any:
    if not a.is_const():
        return
    for x, y in table.get(a.id, frozenset()):
        if (not e.is_const() or e.id == x) and (not t.is_const() or t.id == y):
            yield (a.id, x, y)


def _r_refT(a, e, t):  # noqa: N802
    yield from _refs(_state().ref_certain, a, e, t)


def _r_refP(a, e, t):  # noqa: N802
    yield from _refs(_state().ref_possible, a, e, t)


def _r_mT(h, e):  # noqa: N802
    yield from _pairs(_state().members_T, h, e)


def _r_mP(h, e):  # noqa: N802
    yield from _pairs(_state().members_P, h, e)


def _r_open(k):
    if k.is_const() and k.id in _state().open_kinds:
        yield (k.id,)


_RESOLVERS = {"sf_cT/1": _r_cT, "sf_cP/1": _r_cP, "sf_gT/1": _r_gT, "sf_gP/1": _r_gP,
              "sf_inactive/1": _r_inactive, "sf_ecT/2": _r_ecT, "sf_ecP/2": _r_ecP,
              "sf_refT/3": _r_refT, "sf_refP/3": _r_refP, "sf_open/1": _r_open,
              "sf_mT/2": _r_mT, "sf_mP/2": _r_mP}
_REGISTER_LOCK = threading.Lock()


def _register_resolvers() -> None:
    with _REGISTER_LOCK:
        for key, fn in _RESOLVERS.items():
            if pyEngine.Python_resolvers.get(key) is not fn:
                pyEngine.Python_resolvers[key] = fn


_register_resolvers()


# -- compiling the library into a pyDatalog program -----------------------------------------


def clause_id(rule: Rule, index: int) -> str:
    return f"{rule.key}#{index}"


def _ground_only(clause: RClause) -> bool:
    return clause.arg is None and not any(isinstance(p.resolved, RPred) for p in clause.premises)


def _of_entities(rule: Rule) -> bool:
    """A rule whose predicate takes an entity."""
    return bool(rule.clauses) and rule.clauses[0].arg is not None


def _is_pyd(r: Any) -> bool:
    """Premises pyDatalog decides (the others are evaluated into the per-call fact table)."""
    return type(r) in (RPred, RRef)


def _compile_rule(rule: Rule, kinds: Mapping[str, str],
                  sccs: Mapping[str, frozenset[str]]) -> None:
    """Clauses with predicate premises one by one (those with ground premises only are
    `sf_g`'s, compiled once for every rule by `_program`)."""
    if rule.clauses and rule.clauses[0].arg is not None:
        for mode in ("T", "P"):
            for i, clause in enumerate(rule.clauses, 1):
                _compile_entity_clause(clause_id(rule, i), clause, mode, sccs[rule.head])
        return
    for mode in ("T", "P"):
        for i, clause in enumerate(rule.clauses, 1):
            if not _ground_only(clause):
                _compile_clause(clause_id(rule, i), clause, mode, kinds)


def _var(name: str) -> Term:
    return Term("V" + name)


def _pred_literal(r: RPred, mode: str, scc: frozenset[str] = frozenset()) -> Any:
    """A predicate premise: `sf_h` for predicates of the case; for predicates of entities
    `sf_e` within the recursion it belongs to, `sf_m` (the members found for a lower stratum)
    otherwise. Negation as in Kleene's logic: certain when the predicate is not possible."""
    other = "P" if mode == "T" else "T"
    if r.arg is None:
        return (~Literal.make("sf_h" + other, [r.pred]) if r.negated
                else Literal.make("sf_h" + mode, [r.pred]))
    if r.pred not in scc:
        args: list[Any] = [r.pred, _var(r.arg)]
        return (~Literal.make("sf_m" + other, args) if r.negated
                else Literal.make("sf_m" + mode, args))
    args = [_var(r.arg)]
    return (~Literal.make(_epred(other, r.pred), args) if r.negated
            else Literal.make(_epred(mode, r.pred), args))


def _epred(mode: str, head: str) -> str:
    """The pyDatalog predicate of a predicate of entities (one per head, so that pyDatalog
    sees each recursion and each negation on its own)."""
    return f"sf_e{mode}_{head}"


def _compile_clause(cid: str, clause: RClause, mode: str, kinds: Mapping[str, str]) -> None:
    if clause.never:
        return
    preds = [p.resolved for p in clause.premises if isinstance(p.resolved, RPred)]
    # "some entity is P": possible too when the list of that kind may be incomplete
    choices = [[r] if r.arg is None or mode == "T" else [r, kinds[r.pred]] for r in preds]
    for combo in itertools.product(*choices):
        body = Literal.make("sf_c" + mode, [cid])
        for r in combo:
            body = body & (Literal.make("sf_open", [r]) if isinstance(r, str)
                           else _pred_literal(r, mode))
        add_clause(Literal.make("sf_h" + mode, [clause.head]), body)


def _compile_entity_clause(cid: str, clause: RClause, mode: str,
                           scc: frozenset[str]) -> None:
    """`Head(P) <= ...`: its ground premises per entity come from `sf_ec`, its predicates of
    entities and its references are joined by pyDatalog."""
    if clause.never or clause.arg is None:
        return
    body = Literal.make("sf_ec" + mode, [cid, _var(clause.arg)])
    for p in sorted(clause.premises, key=lambda p: not isinstance(p.resolved, RRef)):
        r = p.resolved
        if isinstance(r, RRef):
            body = body & Literal.make("sf_ref" + mode, [r.fact, _var(r.var), _var(r.target)])
        elif isinstance(r, RPred):
            body = body & _pred_literal(r, mode, scc)
    add_clause(Literal.make(_epred(mode, clause.head), [_var(clause.arg)]), body)


@dataclass
class _Program:
    logic: Any
    certain: Any  # the engine literals of the queries sf_hT(X) and sf_hP(X)
    possible: Any
    entities: dict[str, tuple[Any, Any]]  # head -> ... of sf_eT_head(X), sf_eP_head(X)

    def ask(self) -> tuple[set[str], set[str]]:
        return _answers(self.certain.ask()), _answers(self.possible.ask())

    def ask_entities(self, heads: Iterable[str]) -> dict[str, tuple[set[str], set[str]]]:
        return {h: (_answers(self.entities[h][0].ask()), _answers(self.entities[h][1].ask()))
                for h in heads}


def _answers(rows: Any) -> set[str]:
    return {row[0] for row in rows} if isinstance(rows, list) else set()


def _program(library: Library, active: Mapping[str, Rule]) -> _Program:
    """This thread's compiled program of the rule versions in force (`active`) of `library`,
    made the thread's current logic. One program per set of versions in force (a handful per
    library: the versions change at amendments), so no question pays for the clauses of the
    versions not in force."""
    programs: dict[tuple[str, tuple[str, ...]], _Program] = _TL.__dict__.setdefault(
        "programs", {})
    key = (library.fingerprint, _versions_key(active))
    prog = programs.get(key)
    if prog is not None:
        if getattr(Logic.tl, "logic", None) is not prog.logic:
            prog.logic = Logic(prog.logic)  # switch this thread to it (a shallow copy)
        return prog
    Logic(True)  # a fresh, empty logic for this thread
    kinds = entity_kinds(library)
    sccs = {h: frozenset(group) for group in _sccs(_entity_deps(library.rules, kinds))
            for h in group}
    for rule in active.values():
        _compile_rule(rule, kinds, sccs)
    h, x = Term("H"), Term("X")
    add_clause(Literal.make("sf_hP", [h]), Literal.make("sf_inactive", [h]))
    for mode in ("T", "P"):
        add_clause(Literal.make("sf_h" + mode, [h]), Literal.make("sf_g" + mode, [h]))
    entities = {head: (Literal.make(_epred("T", head), [x]).lua,
                       Literal.make(_epred("P", head), [x]).lua) for head in kinds}
    prog = programs[key] = _Program(
        Logic.tl.logic, Literal.make("sf_hT", [x]).lua, Literal.make("sf_hP", [x]).lua,
        entities)
    return prog


def entity_kinds(library: Library) -> dict[str, str]:
    """Predicate of entities -> the kind of entity it takes."""
    return {r.head: r.clauses[0].kind for r in library.rules
            if r.clauses and r.clauses[0].kind is not None}


# -- the Python side: premise values and traces ---------------------------------------------


@dataclass(frozen=True, slots=True)
class Interval:
    """A number known only within bounds (an aggregate over entities some of which, or some of
    whose values, are unknown); `hi` None is unbounded."""

    lo: Any
    hi: Any

    def __str__(self) -> str:
        return f"between {_fmt(self.lo)} and {'unbounded' if self.hi is None else _fmt(self.hi)}"


def _exact(lo: Any, hi: Any) -> Any:
    return lo if hi is not None and lo == hi else Interval(lo, hi)


def _interval_total(values: Sequence[tuple[str, Any]]) -> Any:
    lo: Any = 0
    hi: Any = 0
    for sign, v in values:
        a, b = (v.lo, v.hi) if isinstance(v, Interval) else (v, v)
        if sign == "+":
            lo, hi = lo + a, None if hi is None or b is None else hi + b
        else:
            lo, hi = (lo - b if b is not None else None), (None if hi is None else hi - a)
            if lo is None:
                return UNK  # a difference unbounded below
    return _exact(lo, hi)


def _interval_holds(op: str, a: Any, b: Any) -> Tri:
    """`a op b` where one side or both are intervals: certain only if every value agrees."""
    alo, ahi = (a.lo, a.hi) if isinstance(a, Interval) else (a, a)
    blo, bhi = (b.lo, b.hi) if isinstance(b, Interval) else (b, b)
    if op in ("<", "<="):
        yes = ahi is not None and _holds(op, ahi, blo)
        no = bhi is not None and not _holds(op, alo, bhi)
    elif op in (">", ">="):
        yes = bhi is not None and _holds(op, alo, bhi)
        no = ahi is not None and not _holds(op, ahi, blo)
    else:
        return Tri.UNDETERMINED
    return Tri.TRUE if yes else Tri.FALSE if no else Tri.UNDETERMINED


class _NoParam:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


@dataclass(slots=True)
class _Ground:
    """A clause's ground premises evaluated for one call: premise values (None for predicate
    premises, which pyDatalog decides), the variable bindings and each comparison's two
    evaluated sides (by premise index, for the trace)."""

    env: dict[str, Any]
    values: list[Tri | None]
    value: Tri  # the conjunction of the ground premises
    sides: dict[int, tuple[Any, Any]]


@dataclass
class _Call:
    library: Library
    facts: FactSet
    as_of: date
    active: dict[str, Rule]  # head -> version in force
    params: dict[str, ParamValue | NoValue]
    bounds: dict[str, Tri] = field(default_factory=dict)
    ground: dict[str, _Ground] = field(default_factory=dict)  # clause id -> ground premises
    # predicates of entities: head -> the entities for which it is certain / possible
    members_T: dict[str, frozenset[str]] = field(default_factory=dict)
    members_P: dict[str, frozenset[str]] = field(default_factory=dict)
    computed: dict[str, str] = field(default_factory=dict)  # aggregate text -> its computation
    values: dict[str, Any] = field(default_factory=dict)  # value rule head -> its value
    # the entity phase's per-entity clause values and references, for the resolvers
    entity_tables: tuple[Mapping[str, Any], ...] = ({}, {}, {}, {})

    @property
    def active_key(self) -> tuple[str, ...]:
        """The rule versions in force, as a cache key."""
        return _versions_key(self.active)

    def listed(self, kind: str) -> tuple[Entity, ...]:
        return tuple(self.facts.entities.get(kind, ()))

    def is_open(self, kind: str) -> bool:
        return not self.library.vocabulary.entities[kind].closed

    def members(self, name: str) -> tuple[frozenset[str], frozenset[str], str]:
        """(certain, possible, kind) of an entity kind or a predicate of entities."""
        if name in self.library.vocabulary.entities:
            ids = frozenset(e.id for e in self.listed(name))
            return ids, ids, name
        kind = entity_kinds(self.library)[name]
        return (self.members_T.get(name, frozenset()), self.members_P.get(name, frozenset()),
                kind)

    def user_inputs(self, missing: Iterable[str]) -> list[str]:
        """The missing facts as the inputs a user supplies: a fact its declarations derive
        completely from others (days from two dates, a yes/no from a count) is named by its
        unknown inputs, transitively; every other fact (entity inputs too) as it is."""
        out: set[str] = set()
        todo = list(missing)
        seen = set(todo)
        while todo:
            name = todo.pop()
            inputs = self.library.vocabulary.inputs(name)
            unknown = [i for i in inputs if self.facts.value(i) is None]
            if not unknown or any(i in seen for i in unknown):  # a cycle: keep the fact
                out.add(name)
            else:
                todo += unknown
                seen.update(unknown)
        return sorted(out)

    def param(self, name: str) -> Any:
        v = self.params.get(name)
        if v is None:
            v = self.params[name] = self.library.parameters.lookup(name, self.as_of)
        return v.value if isinstance(v, ParamValue) else _NoParam(name)


def _eval_compound(e: Sum | Call | Scale, env: Mapping[str, Any], values: Mapping[str, Any],
                   call: _Call) -> Any:
    parts = (e.terms if isinstance(e, Sum) else [("+", a) for a in e.args]
             if isinstance(e, Call) else [("+", e.inner)])
    got = [(sign, _eval_expr(t, env, values, call)) for sign, t in parts]
    for _, v in got:
        if isinstance(v, _NoParam):
            return v
    if any(_unk(v) for _, v in got):
        return UNK
    if any(isinstance(v, Interval) for _, v in got):
        if isinstance(e, Sum):
            return _interval_total(got)
        if isinstance(e, Scale):
            v = got[0][1]
            f = e.factor.value
            return _exact(v.lo * f, None if v.hi is None else v.hi * f)
        return UNK
    if isinstance(e, Sum):
        return _total(got)
    if isinstance(e, Scale):
        return e.factor.value * got[0][1]
    return FUNCTIONS[e.func].apply(*(v for _, v in got))


def _eval_attr(e: AttrRef, env: Mapping[str, Any]) -> Any:
    ent = env.get(e.var)
    return ent.values.get(e.fact, UNK) if isinstance(ent, Entity) else UNK


# an expression's value by its type (one dictionary lookup, not a chain of isinstance tests)
_EXPR_VALUE: dict[type, Callable[[Any, Mapping[str, Any], Mapping[str, Any], _Call], Any]] = {
    FactRef: lambda e, env, values, call: values.get(e.name, UNK),
    ParamRef: lambda e, env, values, call: call.param(e.name),
    Var: lambda e, env, values, call: env.get(e.name, UNK),
    Num: lambda e, env, values, call: e.value,
    DateLit: lambda e, env, values, call: e.value,
    Sym: lambda e, env, values, call: e.value,
    Span: lambda e, env, values, call: e.count if e.unit == "days" else e,
    AttrRef: lambda e, env, values, call: _eval_attr(e, env),
    RuleValue: lambda e, env, values, call: _rule_value(e.head, call),
    Agg: lambda e, env, values, call: _aggregate(e, env, values, call),
    Sum: _eval_compound,
    Call: _eval_compound,
    Scale: _eval_compound,
}


def _eval_expr(e: Expr, env: Mapping[str, Any], values: Mapping[str, Any], call: _Call) -> Any:
    value = _EXPR_VALUE.get(type(e))
    if value is None:
        raise EngineError(f"cannot evaluate {e!r}")
    return value(e, env, values, call)


def _rule_value(head: str, call: _Call) -> Any:
    """What the value rule in force for `head` returns for the call's facts (memoized); its
    computation is kept for the trace."""
    if head in call.values:
        return call.values[head]
    rule = call.active.get(head)
    if rule is None or rule.value is None:
        call.values[head] = UNK
        call.computed[head] = f"no rule returning {head} is in force on {call.as_of}"
        return UNK
    got = _eval_expr(rule.value, {}, call.facts.known, call)
    call.values[head] = got
    call.computed[head] = f"{_substituted(rule.value, call)} = {_fmt(got)}"
    return got


def _substituted(e: Expr, call: _Call) -> str:
    """`e` with each fact, parameter and value rule replaced by its value (for the trace)."""
    if isinstance(e, FactRef | ParamRef | RuleValue):
        return _fmt(_eval_expr(e, {}, call.facts.known, call))
    if isinstance(e, Sum):
        out = []
        for i, (sign, t) in enumerate(e.terms):
            text = f"({_substituted(t, call)})" if isinstance(t, Sum) else _substituted(t, call)
            out.append(text if i == 0 and sign == "+" else f"{sign} {text}")
        return " ".join(out)
    if isinstance(e, Scale):
        return f"{e.factor} * {_substituted(e.inner, call)}"
    if isinstance(e, Call):
        return f"{e.func}({', '.join(_substituted(a, call) for a in e.args)})"
    return str(e)


def _aggregate(e: Agg, env: Mapping[str, Any], values: Mapping[str, Any], call: _Call) -> Any:
    """sum / count / min / max over the entities of the condition: exact when every entity
    that may meet it is known to meet it or not and has a known value, and the list is closed;
    otherwise the interval the value certainly lies in (an open list has no upper bound)."""
    certain, possible, kind = call.members(e.cond.pred)
    unbounded = call.is_open(kind)
    if e.func == "count":
        call.computed[str(e)] = (f"{len(certain)} certain ({', '.join(sorted(certain))})"
                                 + ("" if certain == possible and not unbounded else
                                    f", {len(possible)} possible"
                                    + (", and the list may be incomplete" if unbounded else "")))
        return _exact(len(certain), None if unbounded else len(possible))
    shown, sure, maybe = [], [], []
    for ent in call.listed(kind):
        if ent.id not in possible:
            continue
        v = _eval_expr(e.term, {**env, e.var: ent}, values, call)
        if isinstance(v, _NoParam):
            return v
        known = not (_unk(v) or isinstance(v, Interval))
        shown.append(f"{_fmt(v) if known else 'unknown'} ({ent.id}"
                     + ("" if ent.id in certain else ", if it counts") + ")")
        if not known:
            unbounded = True  # an unknown value has no upper bound
        elif ent.id in certain:
            sure.append(v)
        else:
            maybe.append(v)
    if e.func == "sum":
        lo = sum(sure, 0)
        hi = None if unbounded else lo + sum(maybe, 0)
        call.computed[str(e)] = " + ".join(shown) if shown else "no entity"
        return _exact(lo, hi)
    call.computed[str(e)] = ", ".join(shown) if shown else "no entity"
    if maybe or unbounded or not sure:
        return UNK
    return (max if e.func == "max" else min)(sure)


def _fact_truth(v: Any, negated: bool) -> Tri:
    t = Tri.UNDETERMINED if v is None else (Tri.TRUE if v else Tri.FALSE)
    return ~t if negated else t


def _compare(op: str, a: Any, b: Any) -> Tri:
    """`a op b` of two evaluated sides."""
    if _unk(a) or _unk(b) or isinstance(a, _NoParam) or isinstance(b, _NoParam):
        return Tri.UNDETERMINED
    if isinstance(a, Interval) or isinstance(b, Interval):
        return _interval_holds(op, a, b)
    return Tri.TRUE if _holds(op, a, b) else Tri.FALSE


def _pred_premise(r: RPred, env: Mapping[str, Any], call: _Call,
                  pred_value: Callable[[str], Tri]) -> Tri:
    if r.arg is not None:
        return _entity_pred_value(r, env, call)
    t = pred_value(r.pred)
    return ~t if r.negated else t


def _attr_premise(r: RAttr, env: Mapping[str, Any]) -> Tri:
    ent = env.get(r.var)
    return _fact_truth(ent.values.get(r.fact) if isinstance(ent, Entity) else None, r.negated)


# a premise's value by its type; the arguments are (premise, env, values, call, pred_value)
_PREMISE_VALUE: dict[type, Callable[..., Tri]] = {
    RBind: lambda r, env, values, call, pv: Tri.TRUE,
    REntity: lambda r, env, values, call, pv: Tri.TRUE,
    RParam: lambda r, env, values, call, pv: (Tri.UNDETERMINED if isinstance(
        env.get(r.var), _NoParam) else Tri.TRUE),
    RTruth: lambda r, env, values, call, pv: Tri.TRUE if r.value else Tri.FALSE,
    RBool: lambda r, env, values, call, pv: _fact_truth(values.get(r.fact), r.negated),
    RPred: lambda r, env, values, call, pv: _pred_premise(r, env, call, pv),
    RAttr: lambda r, env, values, call, pv: _attr_premise(r, env),
    RCompare: lambda r, env, values, call, pv: _compare(
        r.op, _eval_expr(r.left, env, values, call), _eval_expr(r.right, env, values, call)),
}


def _premise_value(r: Any, env: Mapping[str, Any], values: Mapping[str, Any], call: _Call,
                   pred_value: Callable[[str], Tri]) -> Tri:
    value = _PREMISE_VALUE.get(type(r))
    if value is None:
        raise EngineError(f"unknown premise {r!r}")
    return value(r, env, values, call, pred_value)


def _entity_pred_value(r: RPred, env: Mapping[str, Any], call: _Call) -> Tri:
    """`Pred(P)` for the entity bound to P, or "some entity is Pred" when P is not bound."""
    certain, possible, kind = call.members(r.pred)
    ent = env.get(r.arg or "")
    if isinstance(ent, Entity):
        t = (Tri.TRUE if ent.id in certain else Tri.UNDETERMINED if ent.id in possible
             else Tri.FALSE)
        return ~t if r.negated else t
    t = (Tri.TRUE if certain else Tri.UNDETERMINED if possible or call.is_open(kind)
         else Tri.FALSE)
    return ~t if r.negated else t


def _env(clause: RClause, values: Mapping[str, Any], call: _Call) -> dict[str, Any]:
    env: dict[str, Any] = {}
    for p in clause.premises:
        r = p.resolved
        if isinstance(r, RBind):
            env[r.var] = values.get(r.fact, UNK)
        elif isinstance(r, RParam):
            env[r.var] = call.param(r.param)
    return env


def _ground(clause: RClause, call: _Call) -> _Ground:
    values = call.facts.known
    env = _env(clause, values, call)
    out: list[Tri | None] = []
    sides: dict[int, tuple[Any, Any]] = {}
    for i, p in enumerate(clause.premises):
        r = p.resolved
        if type(r) is RCompare:
            a, b = _eval_expr(r.left, env, values, call), _eval_expr(r.right, env, values, call)
            sides[i] = (a, b)
            out.append(_compare(r.op, a, b))
        else:
            out.append(None if _is_pyd(r) else _premise_value(r, env, values, call, _no_pred))
    return _Ground(env, out, conj([v for v in out if v is not None]), sides)


def _no_pred(head: str) -> Tri:
    raise EngineError(f"predicate {head} reached the ground evaluation")


def _head_value(head: str, values: Mapping[str, Any], call: _Call, memo: dict[str, Tri]) -> Tri:
    """Kleene value of `head` computed in Python (used to decide enumerated cases)."""
    got = memo.get(head)
    if got is not None:
        return got
    rule = call.active.get(head)
    if rule is None:
        memo[head] = Tri.UNDETERMINED
        return Tri.UNDETERMINED

    def pv(h: str) -> Tri:
        return _head_value(h, values, call, memo)

    results = []
    for clause in rule.clauses:
        env = _env(clause, values, call)
        vals = []
        for p in clause.premises:
            t = _premise_value(p.resolved, env, values, call, pv)
            vals.append(t)
            if t is Tri.FALSE:
                break
        results.append(conj(vals))
        if results[-1] is Tri.TRUE:
            break
    memo[head] = disj(results)
    return memo[head]


# -- exactness: which unknown facts Kleene's logic could misjudge -----------------------------


@dataclass
class _Polarity:
    signs: dict[str, set[int]] = field(default_factory=dict)  # fact -> {+1, -1, 0 (both)}
    symbols: dict[str, set[str]] = field(default_factory=dict)  # enum fact -> values compared
    points: dict[str, set[Any]] = field(default_factory=dict)  # numeric fact -> constants
    opaque: set[str] = field(default_factory=set)  # in sums or compared with other facts
    facts: set[str] = field(default_factory=set)
    heads: set[str] = field(default_factory=set)

    def unate(self, fact: str, vocabulary: Vocabulary) -> bool:
        signs = self.signs.get(fact, set())
        if vocabulary[fact].type is FactType.ENUM:
            return len(self.symbols.get(fact, ())) <= 1 and len(signs) <= 1
        return 0 not in signs and len(signs) <= 1


def _linear(e: Expr, sign: int, bound: Mapping[str, str]) -> list[tuple[str, int]]:
    if isinstance(e, FactRef):
        return [(e.name, sign)]
    if isinstance(e, Var) and e.name in bound:
        return [(bound[e.name], sign)]
    if isinstance(e, Sum):
        return [x for s, t in e.terms for x in _linear(t, -sign if s == "-" else sign, bound)]
    if isinstance(e, Scale):
        return _linear(e.inner, sign if e.factor.value > 0 else -sign, bound)
    if isinstance(e, Call):  # no sign through a function: 0 marks the fact opaque
        return [(f, 0) for a in e.args for f, _ in _linear(a, sign, bound)]
    return []


def _constant(e: Expr, param_vars: Mapping[str, str]) -> Any:
    """The constant side of a comparison: a value, ("param", name), or None."""
    if isinstance(e, Num | DateLit):
        return e.value
    if isinstance(e, ParamRef):
        return ("param", e.name)
    if isinstance(e, Var) and e.name in param_vars:
        return ("param", param_vars[e.name])
    return None


def _polarity(head: str, call: _Call) -> _Polarity:
    key = ("polarity", head, call.active_key)
    cache = call.library.cache
    got = cache.get(key)
    if got is not None:
        return got
    pol = _Polarity()
    seen: set[tuple[str, int]] = set()

    def walk(h: str, sign: int) -> None:
        if (h, sign) in seen:
            return
        seen.add((h, sign))
        pol.heads.add(h)
        rule = call.active.get(h)
        if rule is None:
            return
        for clause in rule.clauses:
            bound = {p.resolved.var: p.resolved.fact for p in clause.premises
                     if isinstance(p.resolved, RBind)}
            pvars = {p.resolved.var: p.resolved.param for p in clause.premises
                     if isinstance(p.resolved, RParam)}
            for p in clause.premises:
                r = p.resolved
                if isinstance(r, RPred):
                    walk(r.pred, -sign if r.negated else sign)
                elif isinstance(r, RBool):
                    pol.facts.add(r.fact)
                    pol.signs.setdefault(r.fact, set()).add(-sign if r.negated else sign)
                elif isinstance(r, RBind):
                    pol.facts.add(r.fact)
                elif isinstance(r, RCompare):
                    _compare_polarity(r, sign, bound, pvars, pol, call.library.vocabulary)

    walk(head, 1)
    cache[key] = pol
    return pol


def _compare_polarity(r: RCompare, sign: int, bound: Mapping[str, str],
                      pvars: Mapping[str, str], pol: _Polarity, vocabulary: Vocabulary) -> None:
    left, right = _linear(r.left, 1, bound), _linear(r.right, 1, bound)
    for f, coef in left + right:
        pol.facts.add(f)
        if coef == 0:
            pol.opaque.add(f)
            pol.signs.setdefault(f, set()).add(0)
    left = [x for x in left if x[1]]
    right = [x for x in right if x[1]]
    single = len(left) + len(right) == 1
    if r.op in ("==", "!="):
        s = sign if r.op == "==" else -sign
        for (f, _), other in [(x, r.right) for x in left] + [(x, r.left) for x in right]:
            if vocabulary[f].type is FactType.ENUM:
                pol.symbols.setdefault(f, set()).add(str(other))
                pol.signs.setdefault(f, set()).add(s)
            else:
                pol.signs.setdefault(f, set()).add(0)
                c = _constant(other, pvars)
                if single and c is not None:
                    pol.points.setdefault(f, set()).add(c)
                else:
                    pol.opaque.add(f)
        return
    direction = -1 if r.op in ("<", "<=") else 1  # how the left side moves the truth
    for side, d, other, expr in ((left, direction, r.right, r.left),
                                 (right, -direction, r.left, r.right)):
        for f, coef in side:
            pol.signs.setdefault(f, set()).add(sign * d * coef)
            c = _constant(other, pvars)
            if single and c is not None:
                pol.points.setdefault(f, set()).add(c)
            elif expr == FactRef(f) and f not in _expr_facts(other) and not _expr_vars(other):
                # compared with facts of the case: a point once those are known
                pol.points.setdefault(f, set()).add(("expr", other))
            else:
                pol.opaque.add(f)


def _expr_facts(e: Expr) -> set[str]:
    facts: set[str] = set()
    _collect(e, {}, facts, set())
    return facts


def _expr_vars(e: Expr) -> bool:
    if isinstance(e, Var | AttrRef | Agg):
        return True
    if isinstance(e, Sum):
        return any(_expr_vars(t) for _, t in e.terms)
    if isinstance(e, Scale):
        return _expr_vars(e.inner)
    if isinstance(e, Call):
        return any(_expr_vars(a) for a in e.args)
    return False


def _candidates(fact: str, pol: _Polarity, call: _Call) -> list[Any] | None:
    spec = call.library.vocabulary[fact]
    if spec.type is FactType.BOOL:
        return [True, False]
    if spec.type is FactType.ENUM:
        return list(spec.values)
    if fact in pol.opaque:
        return None
    points: set[Any] = set()
    step: Any = (timedelta(days=1) if spec.type is FactType.DATE else
                 1 if spec.type in (FactType.DURATION, FactType.COUNT) else Decimal("0.01"))
    for c in pol.points.get(fact, ()):
        if isinstance(c, tuple):
            v = (call.param(c[1]) if c[0] == "param" else
                 _eval_expr(c[1], {}, call.facts.known, call))
            if isinstance(v, _NoParam | Interval) or _unk(v):
                return None  # compared with something unknown: not enumerable exactly
            c = v
        if spec.type is FactType.DATE:
            points.update((c - step, c, c + step))
        else:
            points.update(x for x in (c - step, c, c + step) if x >= 0)
    if spec.type is not FactType.DATE:
        points.add(0)
    return sorted(points) or [date(2000, 1, 1)]


_MAX_CASES = 512


def _refine(head: str, call: _Call) -> tuple[Tri, bool, list[str]]:
    """The exact verdict of an undetermined `head`: (verdict, exact, notes)."""
    pol = _polarity(head, call)
    if pol.heads & call.members_P.keys() or _uses_aggregates(pol.heads, call):
        return Tri.UNDETERMINED, False, [
            "the verdict depends on entities or computed values; their undetermined cases are "
            "not enumerated"]
    known = call.facts.known
    unknown = sorted(f for f in pol.facts if f not in known)
    inexact = [f for f in unknown if not pol.unate(f, call.library.vocabulary)]
    inactive = sorted(h for h in pol.heads if h not in call.active)
    if not inexact:
        return Tri.UNDETERMINED, True, []
    domains = []
    for f in inexact:
        cands = _candidates(f, pol, call)
        if cands is None:
            return Tri.UNDETERMINED, False, [
                f"{f} occurs in sums or in comparisons with other facts in a way Kleene's logic "
                "may misjudge; the verdict may be decidable from the given facts"]
        domains.append(cands)
    cases = 1
    for d in domains:
        cases *= len(d)
    if cases > _MAX_CASES:
        return Tri.UNDETERMINED, False, [
            f"{cases} cases over {', '.join(inexact)} exceed the limit of {_MAX_CASES}; "
            "not enumerated"]
    seen: set[Tri] = set()
    for combo in itertools.product(*domains):
        values = dict(known)
        values.update(zip(inexact, combo, strict=True))
        seen.add(_head_value(head, values, call, {}))
        if Tri.UNDETERMINED in seen or len(seen) > 1:
            return Tri.UNDETERMINED, not inactive, []
    (only,) = seen
    note = (f"decided by cases: every value of {', '.join(inexact)} (unknown) makes it "
            f"{only}")
    return only, True, [note]


# -- traces ---------------------------------------------------------------------------------


def _fmt(v: Any) -> str:
    if _unk(v):
        return "unknown"
    if isinstance(v, _NoParam):
        return f"no value of {v.name}"
    if isinstance(v, Decimal):
        return format(v.normalize(), "f")
    if isinstance(v, date):
        return v.isoformat()
    return str(v)


def _collect(e: Expr, env_src: Mapping[str, tuple[str, str]], facts: set[str],
             params: set[str]) -> None:
    if isinstance(e, FactRef):
        facts.add(e.name)
    elif isinstance(e, ParamRef):
        params.add(e.name)
    elif isinstance(e, Var) and e.name in env_src:
        kind, name = env_src[e.name]
        (facts if kind == "fact" else params).add(name)
    elif isinstance(e, Sum | Scale | Call):
        parts = ([t for _, t in e.terms] if isinstance(e, Sum) else
                 list(e.args) if isinstance(e, Call) else [e.inner])
        for t in parts:
            _collect(t, env_src, facts, params)


@dataclass
class _HeadTrace:
    rule: Rule
    value: Tri
    clauses: list[dict[str, Any]]
    premises: list[PremiseTrace]
    clause_values: list[Tri]


def _trace(head: str, call: _Call, traces: dict[str, _HeadTrace]) -> _HeadTrace | None:
    if head in traces:
        return traces[head]
    rule = call.active.get(head)
    if rule is None:
        return None
    if head in call.members_P:  # a predicate of entities: its members, not one clause trace
        traces[head] = _HeadTrace(rule, call.bounds[head], [], [], [])
        return traces[head]
    values = call.facts.known
    premises: list[PremiseTrace] = []
    clauses: list[dict[str, Any]] = []
    clause_values: list[Tri] = []
    for ci, clause in enumerate(rule.clauses, 1):
        g = call.ground.get(clause_id(rule, ci)) or _ground(clause, call)
        env = g.env
        reads = _comparison_reads(rule, ci, call.library)
        vals = []
        for pi, p in enumerate(clause.premises, 1):
            r = p.resolved
            kind = type(r)
            ground = g.values[pi - 1]
            if ground is None:
                assert isinstance(r, RPred)
                t = ~call.bounds[r.pred] if r.negated else call.bounds[r.pred]
            else:
                t = ground
            vals.append(t)
            pt = PremiseTrace(ci, pi, p.text, t, "constant", p.cite, p.source.line)
            if kind is RPred:
                sub = call.active.get(r.pred)
                pt.kind = "rule"
                pt.rule = ({"id": sub.id, "version": sub.version, "head": r.pred,
                            "verdict": str(call.bounds[r.pred])} if sub is not None else
                           {"id": None, "head": r.pred, "verdict": str(Tri.UNDETERMINED),
                            "in_force": False})
                if sub is None:
                    pt.detail = f"no rule defining {r.pred} is in force on {call.as_of}"
            elif kind is RBool:
                pt.kind = "fact"
                pt.facts = {r.fact: values.get(r.fact)}
                if r.fact in call.facts.derived:
                    pt.detail = "derived"
            elif kind is RBind:
                pt.kind = "binding"
                pt.facts = {r.fact: values.get(r.fact)}
                pt.detail = f"{r.var} = {_fmt(env.get(r.var))}"
            elif kind is RParam:
                pt.kind = "parameter"
                pt.parameters = {r.param: call.params[r.param].to_dict()}
                pt.detail = f"{r.var} = {_fmt(env.get(r.var))}"
            elif kind is RCompare:
                pt.kind = "comparison"
                fs, ps, heads, aggs = reads[pi]
                pt.facts = {f: values.get(f) for f in fs}
                for name in ps:
                    call.param(name)
                    pt.parameters[name] = call.params[name].to_dict()
                left, right = g.sides[pi - 1]
                pt.detail = f"{_fmt(left)} {r.op} {_fmt(right)}"
                for head in heads:
                    pt.detail += f"; {head}: {call.computed.get(head, '')}"
                    if pt.value is Tri.UNDETERMINED:
                        pt.facts.update(_value_inputs(head, call))
                for agg in aggs:
                    pt.detail += f"; {agg} = {call.computed.get(str(agg), '')}"
                    if pt.value is Tri.UNDETERMINED:
                        pt.facts.update(_entity_inputs(agg.cond.pred, call))
            premises.append(pt)
        cv = conj(vals)
        clause_values.append(cv)
        clauses.append({"clause": ci, "value": str(cv), "line": clause.line})
    value = disj(clause_values)
    traces[head] = _HeadTrace(rule, value, clauses, premises, clause_values)
    return traces[head]


_Reads = tuple[list[str], list[str], list[str], list[Agg]]


def _comparison_reads(rule: Rule, ci: int, library: Library) -> dict[int, _Reads]:
    """For each comparison premise of clause `ci` (by premise index): the facts and parameters
    it reads (through the clause's bindings), the value rules and the aggregates it uses. The
    clause's text fixes them: worked out once per library, not per question."""
    key = ("comparison reads", rule.key, ci)
    got = library.cache.get(key)
    if got is not None:
        return got
    clause = rule.clauses[ci - 1]
    env_src: dict[str, tuple[str, str]] = {}
    for p in clause.premises:
        if isinstance(p.resolved, RBind):
            env_src[p.resolved.var] = ("fact", p.resolved.fact)
        elif isinstance(p.resolved, RParam):
            env_src[p.resolved.var] = ("param", p.resolved.param)
    got = {}
    for pi, p in enumerate(clause.premises, 1):
        r = p.resolved
        if isinstance(r, RCompare):
            fs: set[str] = set()
            ps: set[str] = set()
            _collect(r.left, env_src, fs, ps)
            _collect(r.right, env_src, fs, ps)
            got[pi] = (sorted(fs), sorted(ps), _rule_values(r.left) + _rule_values(r.right),
                       _aggregates(r.left) + _aggregates(r.right))
    library.cache[key] = got
    return got


def _parts(e: Expr, kind: type) -> list[Any]:
    """The sub-expressions of type `kind` in `e` (sums, scalings and calls walked through)."""
    if isinstance(e, kind):
        return [e]
    if isinstance(e, Sum):
        return [x for _, t in e.terms for x in _parts(t, kind)]
    if isinstance(e, Scale):
        return _parts(e.inner, kind)
    if isinstance(e, Call):
        return [x for t in e.args for x in _parts(t, kind)]
    return []


def _rule_values(e: Expr) -> list[str]:
    """The value rules an expression uses."""
    return [v.head for v in _parts(e, RuleValue)]


def _value_inputs(head: str, call: _Call, seen: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The facts a value rule (and the value rules it uses) reads, with their values."""
    rule = call.active.get(head)
    if rule is None or rule.value is None or head in seen:
        return {}
    facts: set[str] = set()
    _collect(rule.value, {}, facts, set())
    out = {f: call.facts.known.get(f) for f in sorted(facts)}
    for sub in _rule_values(rule.value):
        out.update(_value_inputs(sub, call, seen | {head}))
    return out


def _uses_aggregates(heads: Iterable[str], call: _Call) -> bool:
    """Whether the rules use aggregates or values of value rules, whose unknown inputs the
    refinement does not enumerate."""
    key = ("aggregates", frozenset(heads), call.active_key)
    got = call.library.cache.get(key)
    if got is None:
        got = call.library.cache[key] = any(
            _aggregates(p.resolved.left) or _aggregates(p.resolved.right)
            or _rule_values(p.resolved.left) or _rule_values(p.resolved.right)
            for h in heads if h in call.active for c in call.active[h].clauses
            for p in c.premises if isinstance(p.resolved, RCompare))
    return got


def _aggregates(e: Expr) -> list[Agg]:
    return _parts(e, Agg)


def _entity_inputs(name: str, call: _Call) -> dict[str, Any]:
    """The user inputs that would decide which entities meet `name`: the unknown attributes
    (`payment2.payment_amount`) of those that may, and the complete list when it is open."""
    certain, possible, kind = call.members(name)
    attrs = [f.name for f in call.library.vocabulary.attributes(kind)]
    out: dict[str, Any] = {}
    for ent in call.listed(kind):
        if ent.id in possible and ent.id not in certain:
            out.update({f"{ent.id}.{a}": None for a in attrs if a not in ent.values})
    if call.is_open(kind):
        out[f"every {kind}"] = None
    return out


def _missing(head: str, call: _Call, traces: dict[str, _HeadTrace], facts: set[str],
             params: set[str], seen: set[str]) -> None:
    """Unknown facts (and parameters without value) in the undetermined premises of the
    undetermined clauses of `head`, through undetermined predicate premises."""
    if head in seen:
        return
    seen.add(head)
    tr = _trace(head, call, traces)
    if tr is None:
        return
    if head in call.members_P:
        facts.update(_entity_inputs(head, call))
        return
    for pt in tr.premises:
        undetermined = tr.clause_values[pt.clause - 1] is Tri.UNDETERMINED
        if pt.value is not Tri.UNDETERMINED or not undetermined:
            continue
        if pt.kind == "rule" and pt.rule and pt.rule.get("id"):
            _missing(pt.rule["head"], call, traces, facts, params, seen)
        for f, v in pt.facts.items():
            if v is None:
                facts.add(f)
        for name, rec in pt.parameters.items():
            if "no_value" in rec:
                params.add(name)


# -- the API --------------------------------------------------------------------------------


def _library_of(rules: Sequence[Rule], library: Library | None) -> Library:
    if library is not None:
        return library
    for r in rules:
        if r.library is not None:
            return r.library
    raise ValueError("evaluate: no rules given and no library")


def effective_as_of(facts: FactSet, as_of: date | None) -> tuple[date, str]:
    filing = facts.value("filing_date")
    if isinstance(filing, date):
        return filing, "filing_date"
    if as_of is None:
        raise ValueError("evaluate: no as_of date and no filing_date fact")
    return as_of, "as_of"


def _cone(heads: Iterable[str], active: Mapping[str, Rule], library: Library) -> frozenset[str]:
    """`heads` and every predicate their rules in force use, transitively."""
    key = ("cone", frozenset(heads), frozenset(r.key for r in active.values()))
    got = library.cache.get(key)
    if got is None:
        seen: set[str] = set()
        todo = list(heads)
        while todo:
            h = todo.pop()
            if h in seen:
                continue
            seen.add(h)
            rule = active.get(h)
            if rule is not None:
                todo += [p for p in rule.preds if p not in seen]
        got = library.cache[key] = frozenset(seen)
    return got


def _versions_key(active: Mapping[str, Rule]) -> tuple[str, ...]:
    """The rule versions in force, as a cache key."""
    key = getattr(active, "key", None)
    return key if key is not None else tuple(sorted(r.key for r in active.values()))


class _Active(dict[str, Rule]):
    """The version in force of each predicate on a day, with the set's key."""

    key: tuple[str, ...] = ()


def _active(library: Library, day: date) -> dict[str, Rule]:
    key = ("active", day)
    got = library.cache.get(key)
    if got is None:
        got = _Active()
        for head, versions in library.by_head.items():
            for r in versions:
                if r.in_force(day):
                    got[head] = r
                    break
        got.key = tuple(sorted(r.key for r in got.values()))
        got = library.cache.setdefault(("active set", got.key), got)  # one per set, not per day
        if len(library.cache) < 10_000:
            library.cache[key] = got
    return got


def evaluate(rules: Iterable[Rule], facts: Mapping[str, Any] | FactSet, as_of: date | None,
             *, library: Library | None = None, refine: bool = True) -> list[Verdict]:
    """Evaluate the rules (any versions: the one in force at the as-of date is used) for one
    query's facts. The as-of date is the case's `filing_date` when the facts give one."""
    rules = list(rules)
    lib = _library_of(rules, library)
    fs = validate_facts(facts, lib.vocabulary)
    day, day_source = effective_as_of(fs, as_of)
    ids = list(dict.fromkeys(r.id for r in rules))
    active = _active(lib, day)
    call = _Call(lib, fs, day, active, {})
    wanted = {r.head for i in ids for r in lib.versions(i)}
    cone = _cone(wanted, active, lib)
    program = _program(lib, active)
    entity_heads = [h for h in cone if h in active and _of_entities(active[h])]
    if entity_heads:
        _entity_phase(entity_heads, call, program)
    certain: set[str] = set()
    possible: set[str] = set()
    ground_T: set[str] = set()
    ground_P: set[str] = set()
    for head in cone:
        rule = active.get(head)
        if rule is None or head in call.members_P:
            continue
        for i, clause in enumerate(rule.clauses, 1):
            cid = clause_id(rule, i)
            g = call.ground[cid] = _ground(clause, call)
            sure, maybe, key = ((ground_T, ground_P, head) if _ground_only(clause) else
                                (certain, possible, cid))
            if g.value is Tri.TRUE:
                sure.add(key)
            if g.value is not Tri.FALSE:
                maybe.add(key)
    _TL.state = _State(frozenset(certain), frozenset(possible), frozenset(ground_T),
                       frozenset(ground_P),
                       frozenset(h for h in cone if h not in active), *call.entity_tables,
                       _open_kinds(call), call.members_T, call.members_P)
    try:
        hT, hP = program.ask()
    finally:
        _TL.state = None
    for head in cone:
        if head in call.members_P:
            call.bounds[head] = _entity_pred_value(RPred(head, arg="\x00none"), {}, call)
            continue
        call.bounds[head] = (Tri.TRUE if head in hT else
                             Tri.FALSE if head not in hP else Tri.UNDETERMINED)
    traces: dict[str, _HeadTrace] = {}
    verdicts: dict[str, Verdict] = {}
    return [_verdict_for(rule_id, call, traces, verdicts, refine, day_source) for rule_id in ids]


def _entity_verdict(rule: Rule, call: _Call, traces: dict[str, _HeadTrace],
                    verdicts: dict[str, Verdict], day_source: str) -> Verdict:
    """A predicate of entities: true when some listed entity certainly meets it, false when
    none may (and the list is complete); each entity's value is noted."""
    head, lib = rule.head, call.library
    certain, possible, kind = call.members(head)
    v = Verdict(rule.id, rule.version, head, rule.title, call.bounds[head], call.as_of,
                day_source, list(rule.cites), lib.relative(rule.file), rule.line, True,
                rule.effective_from, rule.effective_to)
    for ent in call.listed(kind):
        state = "true" if ent.id in certain else "undetermined" if ent.id in possible else "false"
        v.notes.append(f"{head}({ent.id}): {state}")
    if call.is_open(kind):
        v.notes.append(f"the {kind}s listed may not be all of them (open world)")
    if v.verdict is Tri.UNDETERMINED:
        facts: set[str] = set()
        _missing(head, call, traces, facts, set(), set())
        v.missing_facts = call.user_inputs(facts)
    verdicts[rule.id] = v
    return v


def _value_verdict(rule: Rule, call: _Call, verdicts: dict[str, Verdict],
                   day_source: str) -> Verdict:
    """A value rule: `true` with its value when every input is known, else `undetermined`
    with the inputs missing; the computation is its one premise's detail."""
    lib = call.library
    value = _rule_value(rule.head, call)
    known = not (_unk(value) or isinstance(value, _NoParam | Interval))
    assert rule.value is not None and rule.decl.value is not None
    v = Verdict(rule.id, rule.version, rule.head, rule.title,
                Tri.TRUE if known else Tri.UNDETERMINED, call.as_of, day_source,
                list(rule.cites), lib.relative(rule.file), rule.line, True, rule.effective_from,
                rule.effective_to, value=value if known else None)
    fs: set[str] = set()
    ps: set[str] = set()
    _collect(rule.value, {}, fs, ps)
    pt = PremiseTrace(1, 1, f"{rule.head} = {rule.decl.value.text}",
                      Tri.TRUE if known else Tri.UNDETERMINED, "value",
                      rule.decl.value.cite or (rule.cites[0] if rule.cites else ""),
                      rule.decl.value.line, _value_inputs(rule.head, call))
    for name in sorted(ps):
        call.param(name)
        pt.parameters[name] = call.params[name].to_dict()
    pt.detail = "; ".join([call.computed.get(rule.head, "")] + [
        f"{h}: {call.computed.get(h, '')}" for h in _rule_values(rule.value)])
    v.clauses = [{"clause": 1, "value": str(v.verdict), "line": rule.decl.value.line}]
    v.premises = [pt]
    if known:
        v.grounds = ["1.1"]
    else:
        v.blocked_by = ["1.1"]
        v.missing_facts = call.user_inputs(f for f, x in pt.facts.items() if x is None)
        v.missing_parameters = sorted(n for n, rec in pt.parameters.items() if "no_value" in rec)
    verdicts[rule.id] = v
    return v


def _open_kinds(call: _Call) -> frozenset[str]:
    return frozenset(k for k, spec in call.library.vocabulary.entities.items() if not spec.closed)


def _entity_ground(clause: RClause, ent: Entity, call: _Call) -> Tri:
    """The conjunction of an entity clause's ground premises for one entity."""
    values = call.facts.known
    env: dict[str, Any] = {**_env(clause, values, call), clause.arg or "": ent}
    return conj([_premise_value(p.resolved, env, values, call, _no_pred)
                 for p in clause.premises if not _is_pyd(p.resolved)])


def _references(call: _Call, mode: str) -> dict[str, frozenset[tuple[str, str]]]:
    """Entity references: the known links, and (possible) links to every listed entity of
    the kind where a reference is unknown."""
    out: dict[str, set[tuple[str, str]]] = {}
    vocab = call.library.vocabulary
    for spec in vocab.values():
        if spec.of is None or spec.refers_to is None:
            continue
        links = out.setdefault(spec.name, set())
        for ent in call.listed(spec.of):
            target = ent.values.get(spec.name)
            if target is not None:
                links.add((ent.id, str(target)))
            elif mode == "P":
                links.update((ent.id, t.id) for t in call.listed(spec.refers_to))
    return {k: frozenset(v) for k, v in out.items()}


def _entity_phase(heads: Sequence[str], call: _Call, program: _Program) -> None:
    """Predicates of entities first (pyDatalog joins the per-entity ground premises, the
    references and the other predicates of entities), so that aggregates can use them."""
    ent_T: dict[str, frozenset[str]] = {}
    ent_P: dict[str, frozenset[str]] = {}
    for head in heads:
        rule = call.active[head]
        for i, clause in enumerate(rule.clauses, 1):
            values = {e.id: _entity_ground(clause, e, call) for e in call.listed(clause.kind or "")}
            cid = clause_id(rule, i)
            ent_T[cid] = frozenset(k for k, v in values.items() if v is Tri.TRUE)
            ent_P[cid] = frozenset(k for k, v in values.items() if v is not Tri.FALSE)
    call.entity_tables = (ent_T, ent_P, _references(call, "T"), _references(call, "P"))
    for stratum in _strata(heads, call.active):
        _TL.state = _State(frozenset(), frozenset(), frozenset(), frozenset(), frozenset(),
                           *call.entity_tables,
                           _open_kinds(call), call.members_T, call.members_P)
        try:
            got = program.ask_entities(stratum)
        finally:
            _TL.state = None
        for head, (certain, possible) in got.items():
            call.members_T[head], call.members_P[head] = frozenset(certain), frozenset(possible)


def _members_oracle(heads: Iterable[str], call: _Call) -> dict[str, tuple[frozenset[str],
                                                                       frozenset[str]]]:
    """The members of predicates of entities computed in Python alone (the oracle the tests
    compare pyDatalog's answers with): strata in dependency order, each to its fixpoint."""
    active = call.active
    heads = [h for h in heads if h in active and _of_entities(active[h])]
    refs = {"T": _references(call, "T"), "P": _references(call, "P")}
    sets: dict[str, dict[str, set[str]]] = {"T": {h: set() for h in heads},
                                            "P": {h: set() for h in heads}}
    ground = {(h, i, e.id): _entity_ground(c, e, call)
              for h in heads for i, c in enumerate(active[h].clauses)
              for e in call.listed(c.kind or "")}

    def holds(r: RPred, eid: str, mode: str) -> bool:
        other = "P" if mode == "T" else "T"
        return (eid not in sets[other][r.pred]) if r.negated else eid in sets[mode][r.pred]

    def clause_holds(h: str, i: int, c: RClause, eid: str, mode: str) -> bool:
        g = ground[(h, i, eid)]
        if g is Tri.FALSE or (mode == "T" and g is not Tri.TRUE):
            return False
        envs = [{c.arg: eid}]
        for p in c.premises:
            r = p.resolved
            if isinstance(r, RRef):
                envs = [{**env, r.target: t} for env in envs
                        for x, t in refs[mode].get(r.fact, ()) if x == env.get(r.var)]
        return any(all(holds(r, env[r.arg], mode) for p in c.premises
                       if isinstance(r := p.resolved, RPred) and r.arg in env)
                   for env in envs)

    for stratum in _strata(heads, active):
        for mode in ("T", "P"):
            changed = True
            while changed:
                changed = False
                for h in stratum:
                    for i, c in enumerate(active[h].clauses):
                        for e in call.listed(c.kind or ""):
                            if e.id not in sets[mode][h] and clause_holds(h, i, c, e.id, mode):
                                sets[mode][h].add(e.id)
                                changed = True
    return {h: (frozenset(sets["T"][h]), frozenset(sets["P"][h])) for h in heads}


def _entity_deps(rules: Iterable[Rule], heads: Iterable[str]) -> dict[str, set[str]]:
    heads = set(heads)
    deps: dict[str, set[str]] = {h: set() for h in heads}
    for r in rules:
        if r.head in heads:
            deps[r.head] |= {p.resolved.pred for c in r.clauses for p in c.premises
                             if isinstance(p.resolved, RPred) and p.resolved.pred in heads}
    return deps


def _strata(heads: Sequence[str], active: Mapping[str, Rule]) -> list[list[str]]:
    """Strongly connected groups of the predicates of entities in force, dependencies first."""
    return _sccs(_entity_deps([active[h] for h in heads], heads))


def _sccs(deps: Mapping[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components, each after those it depends on."""
    heads = list(deps)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(h: str) -> None:
        index[h] = low[h] = len(index)
        stack.append(h)
        for d in deps[h]:
            if d not in index:
                visit(d)
                low[h] = min(low[h], low[d])
            elif d in stack:
                low[h] = min(low[h], index[d])
        if low[h] == index[h]:
            group = []
            while True:
                x = stack.pop()
                group.append(x)
                if x == h:
                    break
            out.append(group)

    for h in heads:
        if h not in index:
            visit(h)
    return out


def _oracle_call(facts: Mapping[str, Any] | FactSet, as_of: date | None,
                 library: Library) -> tuple[_Call, frozenset[str]]:
    fs = validate_facts(facts, library.vocabulary)
    day, _ = effective_as_of(fs, as_of)
    active = _active(library, day)
    return _Call(library, fs, day, active, {}), _cone(set(active), active, library)


def entity_members(facts: Mapping[str, Any] | FactSet, as_of: date | None, library: Library, *,
                   oracle: bool = False) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """Each predicate of entities in force: the entities for which it is certain and possible,
    as pyDatalog derives them, or (`oracle=True`) as the Python oracle does."""
    call, cone = _oracle_call(facts, as_of, library)
    heads = [h for h in cone if h in call.active and _of_entities(call.active[h])]
    if oracle:
        return _members_oracle(heads, call)
    if heads:
        _entity_phase(heads, call, _program(library, call.active))
    return {h: (call.members_T[h], call.members_P[h]) for h in heads}


def oracle_verdicts(rules: Iterable[Rule], facts: Mapping[str, Any] | FactSet,
                    as_of: date | None, library: Library) -> dict[str, Tri]:
    """Kleene's verdict of each rule computed in Python alone, without pyDatalog: the oracle
    `evaluate(..., refine=False)` must agree with on every scenario."""
    call, cone = _oracle_call(facts, as_of, library)
    heads = [h for h in cone if h in call.active and _of_entities(call.active[h])]
    for head, (certain, possible) in _members_oracle(heads, call).items():
        call.members_T[head], call.members_P[head] = certain, possible
    memo: dict[str, Tri] = {}
    out = {}
    for rule in rules:
        current = library.in_force(rule.id, call.as_of)
        if current is None:
            out[rule.id] = Tri.UNDETERMINED
        elif current.head in call.members_P:
            out[rule.id] = _entity_pred_value(RPred(current.head, arg="\x00none"), {}, call)
        elif current.value is not None:
            got = _rule_value(current.head, call)
            out[rule.id] = (Tri.UNDETERMINED if _unk(got) or isinstance(got, _NoParam | Interval)
                            else Tri.TRUE)
        else:
            out[rule.id] = _head_value(current.head, call.facts.known, call, memo)
    return out


def _verdict_for(rule_id: str, call: _Call, traces: dict[str, _HeadTrace],
                 verdicts: dict[str, Verdict], refine: bool, day_source: str) -> Verdict:
    if rule_id in verdicts:
        return verdicts[rule_id]
    lib = call.library
    rule = lib.in_force(rule_id, call.as_of)
    if rule is None:
        versions = lib.versions(rule_id)
        first = versions[0] if versions else None
        spans = ", ".join(f"v{r.version} {r.effective_from}..{r.effective_to or ''}"
                          for r in versions)
        v = Verdict(rule_id, None, first.head if first else "", first.title if first else "",
                    Tri.UNDETERMINED, call.as_of, day_source,
                    first.cites if first else [], lib.relative(first.file) if first else "",
                    first.line if first else 0, in_force=False)
        v.notes.append(f"no version of {rule_id} is in force on {call.as_of} ({spans or 'none'})")
        verdicts[rule_id] = v
        return v
    head = rule.head
    tr = _trace(head, call, traces)
    assert tr is not None
    if head in call.members_P:
        return _entity_verdict(rule, call, traces, verdicts, day_source)
    if rule.value is not None:
        return _value_verdict(rule, call, verdicts, day_source)
    if tr.value is not call.bounds[head]:
        raise EngineError(f"{rule.key}: pyDatalog gives {call.bounds[head]}, the trace {tr.value}")
    value, exact, notes = tr.value, True, []
    if value is Tri.UNDETERMINED and refine:
        value, exact, notes = _refine(head, call)
    v = Verdict(rule.id, rule.version, head, rule.title, value, call.as_of, day_source,
                list(rule.cites), lib.relative(rule.file), rule.line, True, rule.effective_from,
                rule.effective_to, tr.clauses, tr.premises, exact=exact, notes=list(notes))
    refs = [f"{p.clause}.{p.index}" for p in tr.premises]
    if value is Tri.TRUE and tr.value is Tri.TRUE:
        first = next(i for i, cv in enumerate(tr.clause_values, 1) if cv is Tri.TRUE)
        v.grounds = [r for r, p in zip(refs, tr.premises, strict=True)
                     if p.clause == first and p.kind != "binding"]
    elif value is Tri.FALSE and tr.value is Tri.FALSE:
        v.grounds = [r for r, p in zip(refs, tr.premises, strict=True) if p.value is Tri.FALSE]
    elif value is Tri.UNDETERMINED:
        v.blocked_by = [r for r, p in zip(refs, tr.premises, strict=True)
                        if p.value is Tri.UNDETERMINED
                        and tr.clause_values[p.clause - 1] is Tri.UNDETERMINED]
        facts: set[str] = set()
        params: set[str] = set()
        _missing(head, call, traces, facts, params, set())
        v.missing_facts = call.user_inputs(facts)
        v.missing_parameters = sorted(params)
        for name in v.missing_parameters:
            nv = call.params.get(name)
            if isinstance(nv, NoValue):
                v.notes.append(f"parameter {name} has no value on {call.as_of}: {nv.reason}")
    if call.facts.derived:
        used = _polarity(head, call).facts
        v.notes += [how for name, how in call.facts.derived.items() if name in used]
    verdicts[rule_id] = v
    for p in tr.premises:  # the rules its predicate premises used
        if p.kind == "rule" and p.rule and p.rule.get("id"):
            sub = _verdict_for(p.rule["id"], call, traces, verdicts, refine, day_source)
            v.supporting[sub.rule_id] = sub
            v.supporting.update(sub.supporting)
    return v
