"""Name resolution and static checks of parsed rules: what each premise means, and whether it
is well formed (known predicates, facts and parameters; safe variables; matching types).

A resolved premise is one of:

- `RPred(pred, negated)`: a predicate defined by a rule.
- `RBool(fact, negated)`: a true/false fact of the query.
- `RBind(fact, var)`: `fact(X)`, binds X to the fact's value (always holds: every completion
  of an unknown fact has some value).
- `RParam(param, var)`: `Param(name, X)`, binds X to the parameter's value at the as-of date.
- `RCompare(op, left, right)`: a comparison; negation is folded into the operator, and
  `fact(value)` and `Within(x, n)` (x <= n; facts of days are never negative) become one.
- `RTruth(value)`: `true` / `false`.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from structfirst.rules.fact_schema import FactType, Vocabulary
from structfirst.rules.functions import FUNCTIONS
from structfirst.rules.rule_syntax import (
    NEGATED_OP,
    Agg,
    Atom,
    AttrRef,
    Call,
    Compare,
    DateLit,
    Expr,
    FactRef,
    Issue,
    Name,
    Not,
    Num,
    ParamRef,
    Premise,
    RuleDecl,
    RuleValue,
    Scale,
    Span,
    Sum,
    Sym,
    Truth,
    Var,
)


@dataclass(frozen=True, slots=True)
class RPred:
    pred: str
    negated: bool = False
    arg: str | None = None  # the entity variable of a predicate of entities


@dataclass(frozen=True, slots=True)
class REntity:
    """`payment(P)`: P ranges over the listed entities of a kind."""

    kind: str
    var: str


@dataclass(frozen=True, slots=True)
class RAttr:
    """`payment_to_insider(P)`: a true/false attribute of the entity P."""

    fact: str
    var: str
    negated: bool = False


@dataclass(frozen=True, slots=True)
class RRef:
    """`payment_payee(P, C)`: the entity P's attribute names the entity C (a join)."""

    fact: str
    var: str
    target: str


@dataclass(frozen=True, slots=True)
class RBool:
    fact: str
    negated: bool = False


@dataclass(frozen=True, slots=True)
class RBind:
    fact: str
    var: str


@dataclass(frozen=True, slots=True)
class RParam:
    param: str
    var: str


@dataclass(frozen=True, slots=True)
class RCompare:
    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class RTruth:
    value: bool


Resolved = RPred | RBool | RBind | RParam | RCompare | RTruth | REntity | RAttr | RRef


@dataclass(frozen=True, slots=True)
class RPremise:
    resolved: Resolved
    source: Premise  # as written (text, line, citation)
    cite: str  # the premise's own citation, else the rule's main citation

    @property
    def text(self) -> str:
        return self.source.text


@dataclass(frozen=True, slots=True)
class RClause:
    head: str
    premises: tuple[RPremise, ...]
    line: int
    arg: str | None = None  # the head's entity variable
    kind: str | None = None  # the kind of entity it ranges over

    @property
    def never(self) -> bool:
        return any(isinstance(p.resolved, RTruth) and not p.resolved.value for p in self.premises)


@dataclass
class Resolution:
    clauses: list[RClause] = field(default_factory=list)
    value: Expr | None = None  # the expression of a value rule
    value_type: object = None
    facts: set[str] = field(default_factory=set)
    params: set[str] = field(default_factory=set)
    preds: set[str] = field(default_factory=set)
    issues: list[Issue] = field(default_factory=list)


# types of terms: a FactType, "number" (a literal), "symbol", "date", or "param:<unit>"
_UNIT_TYPES = {"usd": FactType.AMOUNT, "days": FactType.DURATION, "count": FactType.COUNT}


def _near(name: str, pool: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(pool), n=1)
    return f" (did you mean {close[0]}?)" if close else ""


class _Resolver:
    def __init__(self, decl: RuleDecl, heads: Mapping[str, str | None],
                 params: Mapping[str, str], vocabulary: Vocabulary) -> None:
        self.decl = decl
        self.vocab = vocabulary
        self.heads = dict(heads)  # predicate -> the kind of entity it takes, or None
        self.ent_vars: dict[str, str] = {}  # entity variable -> kind (in the current clause)
        self.head_arg: str | None = None
        self.values: dict[str, object] = {}  # value rule -> the type of its value
        self.params = dict(params)  # name -> unit
        self.out = Resolution()
        self.var_types: dict[str, object] = {}

    def issue(self, message: str, line: int, code: str = "semantic",
              severity: str = "error") -> None:
        self.out.issues.append(Issue(severity, code, message, self.decl.file, line, self.decl.id))

    def run(self) -> Resolution:
        main = self.decl.cites[0] if self.decl.cites else ""
        if self.decl.value is not None:
            v = self.decl.value
            premise = Premise(Truth(True), v.cite, v.line, v.text)
            self.var_types, self.ent_vars, self.head_arg = {}, {}, None
            self.out.value = self.expr(v.expr, premise, {})
            if self.out.value is not None:
                self.out.value_type = self.type_of(self.out.value)
                if isinstance(self.out.value_type, str) and self.out.value_type == "symbol":
                    self.issue(f"{v.head} = {v.text}: a value rule returns a number or a date",
                               v.line, "type")
                    self.out.value = None
        for clause in self.decl.clauses:
            self.var_types = {}
            bound: dict[str, int] = {}
            self.ent_vars = entity_vars(clause.premises, self.heads, self.vocab)
            self.head_arg = clause.args[0] if clause.args else None
            kind = self.ent_vars.get(self.head_arg) if self.head_arg else None
            if self.head_arg and kind is None:
                self.issue(f"the head's variable {self.head_arg} must range over an entity: "
                           f"add a premise such as payment({self.head_arg})", clause.line,
                           "unsafe-variable")
                continue
            # first pass: bindings
            for p in clause.premises:
                lit = p.literal
                if (isinstance(lit, Atom) and len(lit.args) == 1 and lit.pred in self.vocab
                        and self.vocab[lit.pred].of is None
                        and isinstance(lit.args[0], Var)):
                    spec = self.vocab[lit.pred]
                    if spec.type is FactType.BOOL:
                        continue
                    self._bind(lit.args[0].name, spec.type, p, bound)
                elif isinstance(lit, Atom) and lit.pred == "Param" and len(lit.args) == 2 \
                        and isinstance(lit.args[1], Var):
                    pname = str(lit.args[0])
                    unit = self.params.get(pname)
                    self._bind(lit.args[1].name, _param_type(unit), p, bound)
            premises = []
            for p in clause.premises:
                r = self.premise(p, bound)
                if r is not None:
                    premises.append(RPremise(r, p, p.cite or main))
            used = set()
            for rp in premises:
                used |= _vars_of(rp.resolved, uses_only=True)
            for var, line in bound.items():
                if var not in used:
                    self.issue(f"variable {var} is bound but never used", line, "unused-variable",
                               "warning")
            self.out.clauses.append(RClause(clause.head, tuple(premises), clause.line,
                                            self.head_arg, kind))
        return self.out

    def _bind(self, var: str, typ: object, p: Premise, bound: dict[str, int]) -> None:
        if var in bound:
            self.issue(f"variable {var} is bound twice; compare with == instead", p.line,
                       "unsafe-variable")
        bound[var] = p.line
        self.var_types[var] = typ

    def premise(self, p: Premise, bound: dict[str, int]) -> Resolved | None:
        lit = p.literal
        negated = False
        if isinstance(lit, Not):
            negated, lit = True, lit.inner
        if isinstance(lit, Truth):
            return RTruth(lit.value)
        if isinstance(lit, Compare):
            op = NEGATED_OP[lit.op] if negated else lit.op
            left, right = self.expr(lit.left, p, bound), self.expr(lit.right, p, bound)
            if left is None or right is None:
                return None
            self.check_compare(op, left, right, p)
            return RCompare(op, left, right)
        assert isinstance(lit, Atom)
        name, args = lit.pred, lit.args
        entity = self.entity_premise(name, args, negated, p)
        if entity is not False:
            return entity
        if name == "Within":
            if len(args) != 2:
                self.issue("Within takes two arguments: Within(days, N)", p.line)
                return None
            left, right = self.expr(args[0], p, bound), self.expr(args[1], p, bound)
            if left is None or right is None:
                return None
            op = ">" if negated else "<="
            self.check_compare(op, left, right, p)
            return RCompare(op, left, right)
        if name == "Param":
            if negated:
                self.issue("Param(...) cannot be negated", p.line, "unsafe-variable")
                return None
            if len(args) != 2 or not isinstance(args[0], Name) or not isinstance(args[1], Var):
                self.issue("Param takes a parameter name and a variable: Param(s547_c_9, Limit)",
                           p.line)
                return None
            if args[0].name not in self.params:
                self.issue(f"unknown parameter {args[0].name}{_near(args[0].name, self.params)}",
                           p.line, "unknown-parameter")
                return None
            self.out.params.add(args[0].name)
            return RParam(args[0].name, args[1].name)
        if name[0].isupper():
            if args:
                self.issue(f"{name} is a rule predicate and takes no arguments", p.line)
                return None
            if self.heads.get(name) is not None:
                self.issue(f"{name} is a predicate of each {self.heads[name]}: write "
                           f"{name}(P) with P a {self.heads[name]}", p.line, "type")
                return None
            if name not in self.heads:
                self.issue(f"unknown predicate {name}{_near(name, self.heads)}", p.line,
                           "unknown-predicate")
                return None
            if self.head_arg is not None:
                self.issue(f"{name} is a predicate of the case; a rule of entities uses the "
                           "entity's attributes, the case's facts and predicates of entities",
                           p.line, "type")
                return None
            self.out.preds.add(name)
            return RPred(name, negated)
        spec = self.vocab.get(name)
        if spec is None:
            self.issue(f"unknown predicate or fact {name}: no rule defines it and no facts.toml "
                       f"of the library declares it{_near(name, self.vocab.names())}", p.line,
                       "unknown-predicate")
            return None
        self.out.facts.add(name)
        if spec.type is FactType.BOOL:
            if args:
                self.issue(f"{name} is true or false: write {name} or ~{name}", p.line, "type")
                return None
            return RBool(name, negated)
        if not args:
            self.issue(f"{name} is {spec.expected()}: write {name}(X) to bind it, or compare it "
                       f"(e.g. {name} < ...)", p.line, "type")
            return None
        if len(args) != 1:
            self.issue(f"{name} takes one argument", p.line)
            return None
        arg = args[0]
        if isinstance(arg, Var):
            if negated:
                self.issue(f"~{name}({arg.name}) leaves {arg.name} unbound (unsafe negation)",
                           p.line, "unsafe-variable")
                return None
            return RBind(name, arg.name)
        right = self.expr(arg, p, bound)
        if right is None:
            return None
        op = "!=" if negated else "=="
        left = FactRef(name)
        self.check_compare(op, left, right, p)
        return RCompare(op, left, right)

    def entity_premise(self, name: str, args: tuple[Expr, ...], negated: bool,
                       p: Premise) -> Resolved | None | bool:
        """An entity, attribute or entity-predicate premise; False when `name` is none."""
        spec = self.vocab.get(name)
        is_entity = name in self.vocab.entities
        is_attr = spec is not None and spec.of is not None
        is_epred = name[0].isupper() and self.heads.get(name) is not None and bool(args)
        if not (is_entity or is_attr or is_epred):
            return False
        vars_ = [a.name for a in args if isinstance(a, Var)]
        if is_entity:
            if len(args) != 1 or len(vars_) != 1:
                self.issue(f"{name}(P): an entity takes one variable", p.line)
                return None
            if negated:
                self.issue(f"~{name}({vars_[0]}) leaves {vars_[0]} unbound (unsafe negation)",
                           p.line, "unsafe-variable")
                return None
            return REntity(name, vars_[0])
        if is_epred:
            kind = self.heads[name]
            if len(args) != 1 or len(vars_) != 1 or self.ent_vars.get(vars_[0]) != kind:
                self.issue(f"{name} takes one {kind}: {name}(P) with P a {kind} (e.g. "
                           f"{kind}(P))", p.line, "type")
                return None
            if negated and vars_[0] != self.head_arg and vars_[0] not in self.ref_targets():
                self.issue(f"~{name}({vars_[0]}) leaves {vars_[0]} unbound (unsafe negation)",
                           p.line, "unsafe-variable")
                return None
            self.out.preds.add(name)
            return RPred(name, negated, vars_[0])
        assert spec is not None and spec.of is not None
        if spec.type is FactType.ENTITY and len(args) == 2 and len(vars_) == 2:
            if negated:
                self.issue(f"~{name}(...) cannot be negated (it binds {vars_[1]})", p.line,
                           "unsafe-variable")
                return None
            if self.ent_vars.get(vars_[0]) != spec.of:
                self.issue(f"{name}({vars_[0]}, ...): {vars_[0]} must be a {spec.of}", p.line,
                           "type")
                return None
            self.out.facts.add(name)
            return RRef(name, vars_[0], vars_[1])
        if spec.type is FactType.BOOL and len(args) == 1 and len(vars_) == 1:
            if self.ent_vars.get(vars_[0]) != spec.of or vars_[0] != self.head_arg:
                self.issue(f"{name}({vars_[0]}): {vars_[0]} must be the {spec.of} of the "
                           "rule's head", p.line, "type")
                return None
            self.out.facts.add(name)
            return RAttr(name, vars_[0], negated)
        shape = (f"{name}(P, C)" if spec.type is FactType.ENTITY else f"{name}(P)"
                 if spec.type is FactType.BOOL else f"{name}(P) in a comparison, e.g. "
                 f"{name}(P) > ...")
        self.issue(f"{name} is an attribute of each {spec.of}: write {shape}", p.line, "type")
        return None

    def ref_targets(self) -> set[str]:
        return {a.args[1].name for a in self._clause_atoms()
                if len(a.args) == 2 and isinstance(a.args[1], Var)}

    def _clause_atoms(self) -> list[Atom]:
        return [p.literal for c in self.decl.clauses for p in c.premises
                if isinstance(p.literal, Atom)]

    def expr(self, e: Expr, p: Premise, bound: dict[str, int]) -> Expr | None:
        if isinstance(e, Var) and e.name not in bound and e.name in self.values:
            self.out.preds.add(e.name)
            return RuleValue(e.name)
        if isinstance(e, Var):
            if e.name not in bound and e.name in self.heads:
                self.issue(f"{e.name} is a predicate (true or false) and has no value to "
                           "compare", p.line, "type")
                return None
            if e.name not in bound:
                self.issue(f"variable {e.name} is not bound by a positive fact(X) or Param(..., X) "
                           "premise (unsafe variable)", p.line, "unsafe-variable")
                return None
            return e
        if isinstance(e, Name):
            if e.name in self.vocab:
                spec = self.vocab[e.name]
                if spec.type is FactType.BOOL:
                    self.issue(f"{e.name} is true or false and cannot be compared", p.line, "type")
                    return None
                self.out.facts.add(e.name)
                return FactRef(e.name)
            return Sym(e.name)
        if isinstance(e, ParamRef):
            if e.name not in self.params:
                self.issue(f"unknown parameter {e.name}{_near(e.name, self.params)}", p.line,
                           "unknown-parameter")
                return None
            self.out.params.add(e.name)
            return e
        if isinstance(e, Sum):
            terms = []
            for sign, term in e.terms:
                r = self.expr(term, p, bound)
                if r is None:
                    return None
                terms.append((sign, r))
            out = Sum(tuple(terms))
            typ, problem = _sum_type([(sign, self.type_of(t), t) for sign, t in terms])
            if problem:
                self.issue(problem, p.line, "type")
                return None
            return out
        if isinstance(e, Scale):
            inner = self.expr(e.inner, p, bound)
            if inner is None:
                return None
            t = self.type_of(inner)
            if not _numeric(t):
                self.issue(f"only amounts and numbers can be multiplied: {inner} is {_word(t)}",
                           p.line, "type")
                return None
            return Scale(e.factor, inner)
        if isinstance(e, Call) and e.func in self.vocab and self.vocab[e.func].of is not None:
            return self.attr_ref(e, p)
        if isinstance(e, Call):
            return self.call(e, p, bound)
        if isinstance(e, Agg):
            return self.aggregate(e, p, bound)
        return e

    def attr_ref(self, e: Call, p: Premise) -> Expr | None:
        spec = self.vocab[e.func]
        var = e.args[0].name if len(e.args) == 1 and isinstance(e.args[0], Var) else None
        if var is None or self.ent_vars.get(var) != spec.of:
            self.issue(f"{e.func}(P) takes one {spec.of} variable", p.line, "type")
            return None
        if var != self.head_arg and var not in self.agg_vars:
            self.issue(f"{e}: only the attributes of the head's {spec.of} can be compared here; "
                       f"outside an entity rule use sum/count/min/max over {spec.of}s",
                       p.line, "unsafe-variable")
            return None
        self.out.facts.add(e.func)
        return AttrRef(e.func, var)

    agg_vars: frozenset[str] = frozenset()

    def aggregate(self, e: Agg, p: Premise, bound: dict[str, int]) -> Expr | None:
        name = e.cond.pred
        kind = name if name in self.vocab.entities else self.heads.get(name)
        if kind is None:
            self.issue(f"{e.func}(... : {e.cond}): {name} is neither an entity nor a predicate "
                       "of entities", p.line, "unknown-predicate")
            return None
        if name[0].isupper():
            self.out.preds.add(name)
        outer, outer_vars = dict(self.ent_vars), self.agg_vars
        self.ent_vars[e.var] = kind
        self.agg_vars = outer_vars | {e.var}
        try:
            if e.func == "count" and isinstance(e.term, Var):
                term: Expr | None = e.term
                if e.term.name != e.var:
                    self.issue(f"count({e.term.name} : ...) counts {e.var}", p.line)
                    term = None
            else:
                term = self.expr(e.term, p, bound)
                if term is not None and not _numeric(self.type_of(term)) \
                        and self.type_of(term) is not FactType.DATE:
                    self.issue(f"{e.func} of {term}: {_word(self.type_of(term))} is not a number",
                               p.line, "type")
                    term = None
        finally:
            self.ent_vars, self.agg_vars = outer, outer_vars
        return None if term is None else Agg(e.func, term, e.var, e.cond)

    def call(self, e: Call, p: Premise, bound: dict[str, int]) -> Expr | None:
        fn = FUNCTIONS.get(e.func)
        if fn is None:
            if e.func in self.vocab:
                self.issue(f"{e.func} is a fact, not a function: use its value directly "
                           f"(e.g. {e.func} > ...)", p.line, "unknown-function")
            else:
                self.issue(f"unknown function {e.func}{_near(e.func, FUNCTIONS)} (the functions "
                           f"are {', '.join(sorted(FUNCTIONS))})", p.line, "unknown-function")
            return None
        if fn.args and len(e.args) != len(fn.args) or not fn.args and len(e.args) < 2:
            want = f"{len(fn.args)} arguments" if fn.args else "two or more arguments"
            self.issue(f"{fn.name} takes {want}, found {len(e.args)}", p.line, "type")
            return None
        args = []
        for i, arg in enumerate(e.args):
            r = self.expr(arg, p, bound)
            if r is None:
                return None
            t = self.type_of(r)
            if fn.args and fn.args[i] == "date" and t is not FactType.DATE:
                self.issue(f"{fn.name}: argument {i + 1} ({r}) must be a date, it is {_word(t)}",
                           p.line, "type")
                return None
            args.append(r)
        if not fn.args:
            typ, problem = _sum_type([("+", self.type_of(a), a) for a in args],
                                     what=f"{fn.name} of")
            if problem:
                self.issue(problem, p.line, "type")
                return None
        return Call(fn.name, tuple(args))

    def type_of(self, e: Expr) -> object:
        if isinstance(e, RuleValue):
            return self.values.get(e.head, "number")
        return expr_type(e, self.vocab, self.params, {**self.var_types, **{
            k: v for k, v in self.values.items()}})

    def check_compare(self, op: str, left: Expr, right: Expr, p: Premise) -> None:
        lt, rt = self.type_of(left), self.type_of(right)
        for side, t, other in ((left, lt, right), (right, rt, left)):
            if t == "symbol":
                assert isinstance(side, Sym)
                ot = self.type_of(other)
                if ot is FactType.ENUM and isinstance(other, FactRef | AttrRef):
                    fact = other.name if isinstance(other, FactRef) else other.fact
                    values = self.vocab[fact].values
                    if side.value not in values:
                        self.issue(f"{side.value!r} is not a value of {fact} "
                                   f"(one of {', '.join(values)})", p.line, "type")
                    elif op not in ("==", "!="):
                        self.issue(f"{fact} can only be compared with == or !=", p.line, "type")
                    return
                self.issue(f"unknown name {side.value}"
                           f"{_near(side.value, self.vocab.names())}", p.line, "unknown-predicate")
                return
        if lt is FactType.ENUM or rt is FactType.ENUM:
            self.issue(f"{left} {op} {right}: an enumeration compares only with one of its values",
                       p.line, "type")
            return
        if (lt is FactType.DATE) != (rt is FactType.DATE):
            self.issue(f"{left} {op} {right} compares {_word(lt)} with {_word(rt)}", p.line, "type")
            return
        for side, t in ((left, lt), (right, rt)):
            if isinstance(t, str) and t.startswith("span:"):
                self.issue(f"{left} {op} {right}: {side} is a calendar span, not a number of "
                           "days; add it to a date and compare dates (e.g. transfer_date >= "
                           f"filing_date - {side})", p.line, "type")
                return
        if _numeric(lt) and _numeric(rt) and "number" not in (lt, rt) and lt != rt:
            self.issue(f"{left} {op} {right} compares {_word(lt)} with {_word(rt)}", p.line, "type")


def expr_type(e: Expr, vocab: Vocabulary, params: Mapping[str, str],
              var_types: Mapping[str, object]) -> object:
    """The type of a resolved term (a FactType, "number", "symbol" or "span:<unit>")."""
    if isinstance(e, FactRef):
        return vocab[e.name].type
    if isinstance(e, ParamRef):
        return _param_type(params.get(e.name))
    if isinstance(e, Num):
        return "number"
    if isinstance(e, DateLit):
        return FactType.DATE
    if isinstance(e, Sym):
        return "symbol"
    if isinstance(e, Var):
        return var_types.get(e.name, "number")
    if isinstance(e, RuleValue):
        return var_types.get(e.head, "number")
    if isinstance(e, Span):
        return FactType.DURATION if e.unit == "days" else f"span:{e.unit}"
    if isinstance(e, AttrRef):
        return vocab[e.fact].type
    if isinstance(e, Agg):
        return FactType.COUNT if e.func == "count" else expr_type(e.term, vocab, params,
                                                                     var_types)
    if isinstance(e, Scale):
        return expr_type(e.inner, vocab, params, var_types)
    if isinstance(e, Sum | Call) and not (isinstance(e, Call) and FUNCTIONS[e.func].args):
        terms = e.terms if isinstance(e, Sum) else [("+", a) for a in e.args]
        typ, _ = _sum_type([(s, expr_type(t, vocab, params, var_types), t) for s, t in terms])
        return typ
    if isinstance(e, Call):
        return FactType(FUNCTIONS[e.func].result)
    return "number"


def _sum_type(terms: list[tuple[str, object, Expr]],
              what: str = "") -> tuple[object, str | None]:
    """The type of `+ a - b ...` (or of min/max of the values) and the problem with it."""
    dates = [(s, x) for s, t, x in terms if t is FactType.DATE]
    if dates:
        if len(dates) > 1:
            a, b = dates[0][1], dates[1][1]
            return None, (f"{a} and {b} are dates and cannot be added or subtracted; write "
                          f"days_between({b}, {a}) or years_between({b}, {a})")
        if what:
            if len(dates) == len(terms):
                return FactType.DATE, None
            return None, f"{what} a date and other values"
        if dates[0][0] == "-":
            return None, f"a date cannot be subtracted: -{dates[0][1]}"
        for _, t, x in terms:
            if t is not FactType.DATE and not (t is FactType.DURATION
                                               or isinstance(t, str) and t.startswith("span:")):
                return None, (f"a date plus {x} ({_word(t)}): add a duration written with its "
                              "unit (30 days, 8 years, 6 months, 10 business days)")
        return FactType.DATE, None
    typ: object = "number"
    for _, t, x in terms:
        if isinstance(t, str) and t.startswith("span:"):
            return None, f"{x} is a calendar span: add it to or subtract it from a date"
        if not _numeric(t):
            verb = what or "only amounts and numbers can be added:"
            return None, f"{verb} {x} is {_word(t)}"
        if t != "number":
            if typ != "number" and typ != t:
                return None, f"{_word(typ)} and {_word(t)} cannot be added ({x})"
            typ = t
    return typ, None


def _numeric(t: object) -> bool:
    return t == "number" or (isinstance(t, FactType) and t.numeric)


def _word(t: object) -> str:
    if isinstance(t, FactType):
        return {"amount": "an amount in USD", "duration": "a number of days", "count": "a count",
                "date": "a date", "bool": "true/false", "enumeration": "an enumeration",
                "entity": "an entity"}[t.value]
    if isinstance(t, str) and t.startswith("span:"):
        return f"a calendar span in {t[5:].replace('_', ' ')}"
    return {"number": "a number", "symbol": "a name"}.get(str(t), str(t))


def _param_type(unit: str | None) -> object:
    return _UNIT_TYPES.get((unit or "").lower(), "number")


def _vars_of(r: Resolved, uses_only: bool = False) -> set[str]:
    if isinstance(r, RCompare):
        return _expr_vars(r.left) | _expr_vars(r.right)
    if isinstance(r, RBind | RParam) and not uses_only:
        return {r.var}
    return set()


def _expr_vars(e: Expr) -> set[str]:
    if isinstance(e, Var):
        return {e.name}
    if isinstance(e, Sum):
        return set().union(*(_expr_vars(t) for _, t in e.terms))
    if isinstance(e, Scale):
        return _expr_vars(e.inner)
    if isinstance(e, Call):
        return set().union(*(_expr_vars(a) for a in e.args))
    return set()


def entity_vars(premises: Iterable[Premise], heads: Mapping[str, str | None],
                vocabulary: Vocabulary) -> dict[str, str]:
    """The entity variables of a clause and their kinds: from `payment(P)`, from entity
    references `payment_payee(P, C)` and from predicates of entities `Insider(C)`."""
    out: dict[str, str] = {}
    for p in premises:
        lit = p.literal.inner if isinstance(p.literal, Not) else p.literal
        if not isinstance(lit, Atom) or not lit.args or not isinstance(lit.args[-1], Var):
            continue
        name, last = lit.pred, lit.args[-1].name
        spec = vocabulary.get(name)
        if name in vocabulary.entities and len(lit.args) == 1:
            out.setdefault(last, name)
        elif spec is not None and spec.refers_to and len(lit.args) == 2:
            out.setdefault(last, spec.refers_to)
            if isinstance(lit.args[0], Var) and spec.of:
                out.setdefault(lit.args[0].name, spec.of)
        elif heads.get(name) and len(lit.args) == 1:
            out.setdefault(last, heads[name])  # type: ignore[arg-type]
    return out


def head_kinds(decls: Iterable[RuleDecl], vocabulary: Vocabulary) -> dict[str, str | None]:
    """Each predicate's kind of entity (None for a predicate of the case), read from the
    entity premises of its first clause with an argument."""
    out: dict[str, str | None] = {}
    for d in decls:
        for c in d.clauses:
            if not c.args:
                out.setdefault(c.head, None)
                continue
            kinds = entity_vars(c.premises, {}, vocabulary)
            if c.args[0] in kinds:
                out[c.head] = kinds[c.args[0]]
                break
            out.setdefault(c.head, "?")
    return out


def resolve_rule(decl: RuleDecl, heads: Mapping[str, str | None] | Iterable[str],
                 params: Mapping[str, str], vocabulary: Vocabulary,
                 values: Mapping[str, object] | None = None) -> Resolution:
    """Resolve `decl` against the predicates defined in the library (`heads`: predicate ->
    its kind of entity or None), the parameters (name -> unit) and the declared facts; errors
    are returned as issues."""
    if not isinstance(heads, Mapping):
        heads = dict.fromkeys(heads)
    resolver = _Resolver(decl, heads, params, vocabulary)
    resolver.values = dict(values or {})
    return resolver.run()
