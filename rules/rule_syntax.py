"""The rule-file language: a small Datalog written for lawyers, parsed here and never executed.

A rule file (`rules/library/**/<group>.rules`) holds one provision group. Example::

    # 11 U.S.C. § 547 — preferences
    base /us/usc/t11/s547

    rule s547.c.9
      title     "Small transfers by a debtor whose debts are not primarily consumer debts"
      version   2
      cites     c/9
      effective from 2005-10-17
      keywords  small transfer, de minimis, preference
      ExceptedSmallTransfer <=
            ~debtor_consumer_debts                     @ c/9
          & transfer_amount < param(s547_c_9)          @ c/9

Lines:

- `base CITE` (once, before the rules): relative citations (`c/9`) are read against it.
- `rule ID` starts a rule; it runs to the next `rule` line or the end of the file.
- Directives: `title "..."`, `version N`, `cites C, C, ...` (the clauses the rule formalizes;
  the first is its main citation), `effective from DATE [to DATE]` (the case filing dates it
  governs, `to` exclusive), `keywords w, w, ...`, `note "..."`.
- A clause: `Head <= premise & premise & ...`; continuation lines start with `&`. Several
  clauses with the same head mean "or". Each premise may end with `@ CITE`, the clause of
  the statute it comes from.

Premises:

- `Name` (capitalized): a predicate defined by another rule; `~Name` its negation.
- `fact_name`: a true/false fact of the query (`~fact_name` when it is false).
- `fact_name(X)` binds variable `X` to the fact's value; `fact_name(value)` tests it.
- Comparisons `<  <=  >  >=  ==  !=` between terms: numbers (`90`, `$600`, `$1,580,125`),
  dates (`2005-10-17`), fact names (their values), variables (capitalized), enumeration
  values (`corporation`), `param(name)` (a dated parameter at the case's as-of date), and
  sums/differences of those. `~(a < b)` negates a comparison.
- Built-ins: `Within(days, N)` (0 <= days <= N), `Param(name, X)` (binds X to a parameter).
- `true`, `false`: a clause that always/never holds (`Head <= false`: the test did not exist).
- Calendar spans `8 years`, `6 months`, `30 days`, `10 business days` added to or subtracted
  from dates; `3 * x` (a number written in the rule times a value); functions
  (`years_between`, `days_between`, `business_days_between`, `months_between`, `min`, `max`).
- Entities: `Head(P) <= payment(P) & payment_payee(P, C) & Insider(C)`, aggregates
  `sum(payment_amount(P) : Head(P))`, `count(P : payment(P))`, `min(...)`, `max(...)`.
- A value rule `Head = expression`: a rule that returns a number or a date.

Nothing in a rule file is handed to Python's parser or `exec`: a file containing Python
(`import`, `lambda`, dunder names, ...) is rejected with an error naming file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from pathlib import Path

# -- diagnostics ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Issue:
    """One problem found in the rule library; `str()` is `file:line: rule R: message`."""

    severity: str  # "error" | "warning" | "note" (what lint did not check)
    code: str  # e.g. "syntax", "python", "unknown-predicate", "overlap"
    message: str
    file: str | None = None
    line: int | None = None
    rule_id: str | None = None

    def __str__(self) -> str:
        where = self.file or "<library>"
        if self.line:
            where += f":{self.line}"
        rule = f" rule {self.rule_id}:" if self.rule_id else ""
        return f"{where}:{rule} {self.severity}: {self.message} [{self.code}]"

    def to_dict(self) -> dict[str, object]:
        return {"severity": self.severity, "code": self.code, "message": self.message,
                "file": self.file, "line": self.line, "rule": self.rule_id}


# -- AST ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Var:
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class Num:
    value: int | Decimal
    text: str = ""

    def __str__(self) -> str:
        return self.text or str(self.value)


@dataclass(frozen=True, slots=True)
class DateLit:
    value: date

    def __str__(self) -> str:
        return self.value.isoformat()


@dataclass(frozen=True, slots=True)
class Name:
    """A lowercase name in a term: a fact (its value) or an enumeration value; resolved later."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class FactRef:
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class Sym:
    value: str

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class ParamRef:
    name: str

    def __str__(self) -> str:
        return f"param({self.name})"


@dataclass(frozen=True, slots=True)
class Sum:
    """`a + b - c ...`: the terms with their signs ("+" or "-"), kept flat (a sum of 400 terms
    is one node, so nothing recurses per term)."""

    terms: tuple[tuple[str, Expr], ...]

    def __str__(self) -> str:
        out = []
        for i, (sign, term) in enumerate(self.terms):
            text = f"({term})" if isinstance(term, Sum) else str(term)
            out.append(text if i == 0 and sign == "+" else f"{sign} {text}")
        return " ".join(out)


@dataclass(frozen=True, slots=True)
class Scale:
    """`3 * x` or `x * 0.5`: a value multiplied by a constant."""

    factor: Num
    inner: Expr

    def __str__(self) -> str:
        inner = f"({self.inner})" if isinstance(self.inner, Sum) else str(self.inner)
        return f"{self.factor} * {inner}"


SPAN_UNITS = {"day": "days", "days": "days", "month": "months", "months": "months",
              "year": "years", "years": "years"}


@dataclass(frozen=True, slots=True)
class Span:
    """A calendar duration: `90 days`, `8 years`, `6 months`, `10 business days`."""

    count: int
    unit: str  # "days" | "business_days" | "months" | "years"

    def __str__(self) -> str:
        return f"{self.count} {self.unit.replace('_', ' ')}"


@dataclass(frozen=True, slots=True)
class Call:
    """A function applied to values in a comparison: `years_between(a, b)`, `max(a, b)`."""

    func: str
    args: tuple[Expr, ...]

    def __str__(self) -> str:
        return f"{self.func}({', '.join(map(str, self.args))})"


@dataclass(frozen=True, slots=True)
class Agg:
    """`sum(payment_amount(P) : InsiderPayment(P))`, `count(P : payment(P))`: a value over the
    entities P for which the condition holds."""

    func: str  # "sum" | "count" | "min" | "max"
    term: Expr
    var: str
    cond: Atom

    def __str__(self) -> str:
        return f"{self.func}({self.term} : {self.cond})"


@dataclass(frozen=True, slots=True)
class AttrRef:
    """`payment_amount(P)`: the value of an attribute of the entity bound to P (resolved)."""

    fact: str
    var: str

    def __str__(self) -> str:
        return f"{self.fact}({self.var})"


@dataclass(frozen=True, slots=True)
class RuleValue:
    """The number (or date) a value rule returns, used in another rule: `HomesteadExemption`."""

    head: str

    def __str__(self) -> str:
        return self.head


@dataclass(frozen=True, slots=True)
class ValueDef:
    """`Head = expression @ cite`: a rule that returns a number (or a date)."""

    head: str
    expr: Expr
    cite: str | None
    line: int
    text: str


AGGREGATES = ("sum", "count", "min", "max")

Expr = (Var | Num | DateLit | Name | FactRef | Sym | ParamRef | Sum | Scale | Span | Call | Agg
        | AttrRef | RuleValue)


@dataclass(frozen=True, slots=True)
class Atom:
    pred: str
    args: tuple[Expr, ...] = ()

    def __str__(self) -> str:
        return self.pred + (f"({', '.join(map(str, self.args))})" if self.args else "")


@dataclass(frozen=True, slots=True)
class Compare:
    op: str
    left: Expr
    right: Expr

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}"


@dataclass(frozen=True, slots=True)
class Not:
    inner: Atom | Compare

    def __str__(self) -> str:
        return f"~({self.inner})" if isinstance(self.inner, Compare) else f"~{self.inner}"


@dataclass(frozen=True, slots=True)
class Truth:
    value: bool

    def __str__(self) -> str:
        return "true" if self.value else "false"


Literal = Atom | Compare | Not | Truth

NEGATED_OP = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}
BUILTINS = {"Within": 2, "Param": 2}


@dataclass(frozen=True, slots=True)
class Premise:
    literal: Literal
    cite: str | None  # canonical id (relative cites already resolved against `base`)
    line: int
    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class Clause:
    head: str
    premises: tuple[Premise, ...]
    line: int
    args: tuple[str, ...] = ()  # the head's variable (an entity), if any


@dataclass
class RuleDecl:
    id: str
    file: str
    line: int
    version: int | None = None
    title: str = ""
    cites: list[str] = field(default_factory=list)
    effective_from: date | None = None
    effective_to: date | None = None
    keywords: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    clauses: list[Clause] = field(default_factory=list)
    source: str = ""  # the rule's text as written
    value: ValueDef | None = None  # a rule that returns a number instead of true/false

    @property
    def head(self) -> str | None:
        if self.value is not None:
            return self.value.head
        return self.clauses[0].head if self.clauses else None

    @property
    def key(self) -> str:
        return f"{self.id}@{self.version}"


@dataclass
class RuleFile:
    path: str
    base: str | None = None
    rules: list[RuleDecl] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)
    rejected: bool = False  # the whole file was refused (Python in it)
    failed: list[FailedRule] = field(default_factory=list)  # rules left out, with the cause


@dataclass(frozen=True, slots=True)
class FailedRule:
    """A rule left out of the library: its id, the predicate it meant to define (when its
    text shows one) and the first error, the root cause of everything that depends on it."""

    rule_id: str
    head: str | None
    cause: Issue
    source: str = ""  # the rule's text as written


# -- lexer ----------------------------------------------------------------------------------

_PYTHON = [
    (re.compile(r"\bimport\b"), "import"),
    (re.compile(r"__\w*__"), "a dunder name"),
    (re.compile(r"\blambda\b"), "lambda"),
    (re.compile(r"\b(exec|eval|compile|open|getattr|setattr|globals|locals|vars)\s*\("),
     "a call to a Python built-in"),
    (re.compile(r"\b(os|sys|subprocess|builtins|pyDatalog|shutil)\s*\."), "a Python module"),
    (re.compile(r"^\s*(def|class)\s+\w+"), "a Python definition"),
    (re.compile(r"^\s*(print|assert|raise|return|yield|with|for|while|try|except)\b"),
     "a Python statement"),
    (re.compile(r";"), "';' (Python statement separator)"),
    (re.compile(r"\w\.\w+\s*\("), "a method call"),
]

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<date>\d{4}-\d{2}-\d{2})(?![\w-])
  | (?P<money>\$\s?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)
  | (?P<number>\d+(?:\.\d+)?)(?![\w])
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op><=|>=|==|!=|:-|[<>&~(),+\-*=|@:])
    """,
    re.VERBOSE,
)

_DIRECTIVES = {"title", "version", "cites", "effective", "keywords", "note"}
_RULE_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_.\-]*$")
_CITE = re.compile(r"^[A-Za-z0-9_./\-]+$")


@dataclass(frozen=True, slots=True)
class Tok:
    kind: str
    text: str
    line: int
    col: int


def _strip_comment(line: str) -> str:
    out, quoted = [], False
    for ch in line:
        if ch == '"':
            quoted = not quoted
        if ch == "#" and not quoted:
            break
        out.append(ch)
    return "".join(out)


def _without_strings(line: str) -> str:
    return re.sub(r'"[^"]*"', '""', line)


def find_python(text: str) -> tuple[int, str] | None:
    """The first line (1-based) that looks like Python, and what was found there."""
    for n, raw in enumerate(text.splitlines(), 1):
        code = _without_strings(_strip_comment(raw))
        for pattern, what in _PYTHON:
            if pattern.search(code):
                return n, what
    return None


def _tokenize(text: str, line: int, col0: int = 0) -> list[Tok]:
    toks: list[Tok] = []
    pos = 0
    while pos < len(text):
        if text[pos] == "@":  # a citation: the run of characters after '@'
            m = re.compile(r"@\s*([^\s&]+)").match(text, pos)
            if not m:
                raise _err(line, col0 + pos, "'@' must be followed by a citation, e.g. '@ b/4/A'")
            toks.append(Tok("cite", m.group(1), line, col0 + pos))
            pos = m.end()
            continue
        m = _TOKEN.match(text, pos)
        if not m:
            raise _err(line, col0 + pos, f"unexpected character {text[pos]!r}")
        kind = m.lastgroup or ""
        if kind != "ws":
            toks.append(Tok(kind, m.group(), line, col0 + pos))
        pos = m.end()
    return toks


class _ParseError(Exception):
    def __init__(self, line: int, col: int, message: str) -> None:
        super().__init__(message)
        self.line, self.col, self.message = line, col, message


def _err(line: int, col: int, message: str) -> _ParseError:
    return _ParseError(line, col, message)


# -- parser ---------------------------------------------------------------------------------


def resolve_cite(cite: str, base: str | None) -> str:
    """`c/9` against base `/us/usc/t11/s547` is `/us/usc/t11/s547/c/9`; absolute ids stay."""
    cite = cite.strip().rstrip(",")
    if cite.startswith("/"):
        return cite.rstrip("/")
    if cite.startswith("./"):
        cite = cite[2:]
    if not base:
        raise ValueError(f"relative citation {cite!r} but the file has no 'base' line")
    return base.rstrip("/") + "/" + cite.strip("/")


def _number(tok: Tok) -> Num:
    text = tok.text.replace("$", "").replace(",", "").strip()
    value: int | Decimal = int(text) if re.fullmatch(r"\d+", text) else Decimal(text)
    return Num(value, tok.text)


class _Clauses:
    """Recursive-descent parser of one clause's tokens."""

    def __init__(self, toks: list[Tok], base: str | None, line: int) -> None:
        self.toks, self.i, self.base = toks, 0, base
        self.line, self.depth = line, 0

    def peek(self, k: int = 0) -> Tok | None:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def next(self) -> Tok:
        tok = self.peek()
        if tok is None:
            last = self.toks[-1] if self.toks else None
            raise _err(last.line if last else self.line, (last.col + len(last.text)) if last else 0,
                       "unexpected end of clause")
        self.i += 1
        return tok

    def expect(self, text: str) -> Tok:
        tok = self.next()
        if tok.text != text:
            raise _err(tok.line, tok.col, f"expected {text!r}, found {tok.text!r}")
        return tok

    def value_def(self) -> ValueDef:
        """`Head = expression [@ cite]`."""
        head = self.next()
        self.expect("=")
        expr = _value(self.expr())
        cite = None
        tok = self.peek()
        if tok is not None and tok.kind == "cite":
            self.i += 1
            try:
                cite = resolve_cite(tok.text, self.base)
            except ValueError as exc:
                raise _err(tok.line, tok.col, str(exc)) from None
        tok = self.peek()
        if tok is not None:
            raise _err(tok.line, tok.col, f"unexpected {tok.text!r} after the value")
        return ValueDef(head.text, expr, cite, head.line, str(expr))

    def clause(self) -> Clause:
        head = self.next()
        if head.kind != "ident":
            raise _err(head.line, head.col,
                       f"a clause starts with a rule head, found {head.text!r}")
        if head.text[0].islower():
            raise _err(head.line, head.col,
                       f"rule heads are capitalized ({head.text!r} looks like a fact name)")
        nxt = self.peek()
        args: tuple[str, ...] = ()
        if nxt is not None and nxt.text == "(":
            self.i += 1
            var, close = self.next(), self.next()
            if var.kind != "ident" or not var.text[0].isupper() or close.text != ")":
                raise _err(nxt.line, nxt.col, "a rule head takes at most one argument, a "
                                              "variable for an entity: Head(P) <= payment(P) & ...")
            args = (var.text,)
        arrow = self.next()
        if arrow.text not in ("<=", ":-"):
            raise _err(arrow.line, arrow.col, f"expected '<=' after the head, found {arrow.text!r}")
        premises = [self.premise()]
        while self.peek() is not None:
            tok = self.next()
            if tok.text == "|":
                raise _err(tok.line, tok.col,
                           "no '|' in a clause body: write a second clause with the same head")
            if tok.text != "&":
                raise _err(tok.line, tok.col, f"expected '&' between premises, found {tok.text!r}")
            premises.append(self.premise())
        return Clause(head.text, tuple(premises), head.line, args)

    def premise(self) -> Premise:
        start = self.peek()
        if start is None:
            raise _err(self.line, 0, "a premise is missing after '&' or '<='")
        lit = self.literal()
        cite = None
        tok = self.peek()
        if tok is not None and tok.kind == "cite":
            self.i += 1
            if not _CITE.match(tok.text):
                raise _err(tok.line, tok.col, f"malformed citation {tok.text!r}")
            try:
                cite = resolve_cite(tok.text, self.base)
            except ValueError as exc:
                raise _err(tok.line, tok.col, str(exc)) from None
        return Premise(lit, cite, start.line, str(lit))

    def literal(self) -> Literal:
        tok = self.peek()
        assert tok is not None
        if tok.text == "~":
            self.i += 1
            nxt = self.peek()
            if nxt is not None and nxt.text == "(":
                self.i += 1
                inner = self.literal()
                self.expect(")")
                if isinstance(inner, Not | Truth):
                    raise _err(nxt.line, nxt.col, "double negation: write the premise plainly")
                return Not(inner)
            inner = self.literal()
            if isinstance(inner, Compare):
                raise _err(tok.line, tok.col, "to negate a comparison write ~(a < b)")
            if isinstance(inner, Not | Truth):
                raise _err(tok.line, tok.col, "double negation: write the premise plainly")
            return Not(inner)
        if tok.kind == "ident" and tok.text in ("true", "false"):
            nxt = self.peek(1)
            if nxt is None or nxt.text in ("&",) or nxt.kind == "cite":
                self.i += 1
                return Truth(tok.text == "true")
        left = self.expr()
        op = self.peek()
        if op is not None and op.text in NEGATED_OP:
            self.i += 1
            right = self.expr()
            nxt = self.peek()
            if nxt is not None and nxt.text in NEGATED_OP:
                raise _err(nxt.line, nxt.col, "chained comparisons: write a < b & b < c")
            for side in (left, right):
                if isinstance(side, Atom) and side.pred[0].isupper():
                    raise _err(tok.line, tok.col, f"{side.pred} is a predicate (true or false) "
                                                  "and has no value to compare")
            return Compare(op.text, _value(left), _value(right))
        if op is not None and op.text == "=":
            raise _err(op.line, op.col, "use '==' to compare")
        if isinstance(left, Span):
            raise _err(tok.line, tok.col, f"{left} is a duration, not a premise: compare it, e.g. "
                                          f"days_before_filing <= {left}")
        if isinstance(left, Atom):
            return left
        if isinstance(left, Name):
            return Atom(left.name)
        if isinstance(left, Var):
            if left.name in BUILTINS:
                raise _err(tok.line, tok.col, f"{left.name} needs arguments, e.g. Within(days, 90)")
            return Atom(left.name)
        raise _err(tok.line, tok.col, f"{tok.text!r} is not a premise (expected a predicate, "
                                      "a fact or a comparison)")

    def expr(self) -> Expr | Atom:
        first = self.product()
        terms: list[tuple[str, Expr | Atom]] = [("+", first)]
        while True:
            tok = self.peek()
            if tok is None or tok.text not in ("+", "-"):
                break
            self.i += 1
            terms.append((tok.text, self.product()))
        if len(terms) == 1:
            return first
        for _, t in terms:
            if isinstance(t, Atom) and t.pred[0].isupper():
                raise _err(self.line, 0, f"only values can be added or subtracted, not {t.pred}")
        return Sum(tuple((sign, _value(t)) for sign, t in terms))

    def product(self) -> Expr | Atom:
        left = self.term()
        while True:
            tok = self.peek()
            if tok is None or tok.text != "*":
                return left
            self.i += 1
            right = self.term()
            if isinstance(left, Num):
                left = Scale(left, _value(right))
            elif isinstance(right, Num):
                left = Scale(right, _value(left))
            else:
                raise _err(tok.line, tok.col, f"{left} * {right}: one side of '*' must be a "
                                              "number written in the rule (e.g. 2 * amount)")

    def term(self) -> Expr | Atom:
        tok = self.next()
        if tok.kind == "number" or tok.kind == "money":
            num = _number(tok)
            unit = self.peek()
            if unit is not None and unit.kind == "ident" and (
                    unit.text in SPAN_UNITS or unit.text == "business"):
                return self.span(num, tok)
            return num
        if tok.kind == "date":
            try:
                return DateLit(date.fromisoformat(tok.text))
            except ValueError:
                raise _err(tok.line, tok.col, f"not a calendar date: {tok.text}") from None
        if tok.kind == "ident":
            nxt = self.peek()
            if nxt is not None and nxt.text == "(":
                self.i += 1
                args: list[Expr] = []
                if self.peek() is not None and self.peek().text == ")":  # type: ignore[union-attr]
                    self.i += 1
                else:
                    while True:
                        arg = self.expr()
                        sep = self.peek()
                        if tok.text in AGGREGATES and not args and sep is not None \
                                and sep.text == ":":
                            return self.aggregate(tok, arg)
                        if isinstance(arg, Atom):
                            if arg.pred == "param" and len(arg.args) == 1:
                                arg = ParamRef(str(arg.args[0]))
                            elif arg.pred[0].islower():
                                arg = Call(arg.pred, arg.args)
                            else:
                                raise _err(tok.line, tok.col, f"{arg} cannot be an argument")
                        args.append(arg)
                        sep = self.next()
                        if sep.text == ")":
                            break
                        if sep.text != ",":
                            raise _err(sep.line, sep.col,
                                       f"expected ',' or ')', found {sep.text!r}")
                if tok.text == "param":
                    if len(args) != 1 or not isinstance(args[0], Name | Var):
                        raise _err(tok.line, tok.col,
                                   "param takes one parameter name: param(s547_c_9)")
                    return ParamRef(str(args[0]))
                return Atom(tok.text, tuple(args))
            if tok.text[0].isupper() or tok.text[0] == "_":
                return Var(tok.text)
            if tok.text in SPAN_UNITS or tok.text == "business":
                raise _err(tok.line, tok.col, f"{tok.text!r} must follow a whole number "
                                              "(e.g. 8 years, 90 days, 10 business days)")
            return Name(tok.text)
        if tok.text == "(":
            self.depth += 1
            if self.depth > _MAX_DEPTH:
                raise _err(tok.line, tok.col, f"parentheses nested more than {_MAX_DEPTH} deep")
            inner = self.expr()
            self.expect(")")
            self.depth -= 1
            return inner
        raise _err(tok.line, tok.col, f"unexpected {tok.text!r}")

    def aggregate(self, tok: Tok, term: Expr | Atom) -> Agg:
        """The rest of `func(TERM : Cond(P))` after TERM."""
        self.expect(":")
        cond = self.term()
        self.expect(")")
        if not (isinstance(cond, Atom) and len(cond.args) == 1 and isinstance(cond.args[0], Var)):
            raise _err(tok.line, tok.col, f"{tok.text}(... : Cond(P)): the condition is one "
                                          "predicate or entity of one variable, e.g. "
                                          f"{tok.text}(payment_amount(P) : InsiderPayment(P))")
        var = cond.args[0].name
        value = _value(term)
        return Agg(tok.text, value, var, cond)

    def span(self, num: Num, tok: Tok) -> Span:
        unit = self.next()
        word = unit.text
        if word == "business":
            days = self.next()
            if days.text not in ("day", "days"):
                raise _err(days.line, days.col, "expected 'business days'")
            word = "business_days"
        else:
            word = SPAN_UNITS[word]
        if not isinstance(num.value, int) or "$" in tok.text:
            raise _err(tok.line, tok.col, f"a duration counts whole {word.replace('_', ' ')}: "
                                          f"{tok.text} is not a whole number")
        return Span(num.value, word)


_MAX_DEPTH = 32


def _value(t: Expr | Atom) -> Expr:
    """A term used as a value: `f(x)` in a sum or product is a function call."""
    return Call(t.pred, t.args) if isinstance(t, Atom) else t


def parse_rules(text: str, path: str | Path = "<string>") -> RuleFile:
    """Parse a rule file. Problems become `Issue`s on the result; a rule with a syntax error is
    left out (the others still load); a file with Python in it is rejected as a whole."""
    path = str(path)
    out = RuleFile(path)
    py = find_python(text)
    if py is not None:
        line, what = py
        out.rejected = True
        out.issues.append(Issue(
            "error", "python",
            f"rule files may not contain Python (found {what}); they are parsed, never executed, "
            "and this file was not loaded",
            path, line,
        ))
        return out
    lines = text.splitlines()
    current: RuleDecl | None = None
    broken = False  # the current rule had an error: skip to the next `rule` line
    first_issue = 0  # the current rule's issues start here
    pending: list[tuple[int, str]] = []  # physical lines of the clause being read
    seen_rule = False

    def flush_clause() -> None:
        nonlocal broken
        if not pending or current is None:
            pending.clear()
            return
        try:
            toks: list[Tok] = []
            for n, segment in pending:
                toks += _tokenize(segment, n)
            parser = _Clauses(toks, out.base, pending[0][0])
            if len(toks) > 1 and toks[1].text == "=":
                if current.value is not None or current.clauses:
                    raise _err(pending[0][0], 0, "a rule returns one value (one 'Head = ...' "
                                                 "line) or defines clauses, not both")
                current.value = parser.value_def()
            else:
                if current.value is not None:
                    raise _err(pending[0][0], 0, "a rule returns one value (one 'Head = ...' "
                                                 "line) or defines clauses, not both")
                current.clauses.append(parser.clause())
        except _ParseError as exc:
            out.issues.append(Issue("error", "syntax", exc.message, path, exc.line, current.id))
            broken = True
        pending.clear()

    def close_rule() -> None:
        nonlocal current, broken, first_issue
        flush_clause()
        if current is not None:
            if not broken:
                problems = _check_decl(current)
                for message, line in problems:
                    out.issues.append(Issue("error", "syntax", message, path, line, current.id))
                if not problems:
                    out.rules.append(current)
            if len(out.issues) > first_issue:
                head = current.head or _head_in(current.source)
                out.failed.append(FailedRule(current.id, head, out.issues[first_issue],
                                              current.source))
        current, broken = None, False
        first_issue = len(out.issues)

    for n, raw in enumerate(lines, 1):
        code = _strip_comment(raw).rstrip()
        if not code.strip():
            continue
        stripped = code.strip()
        word = stripped.split()[0]
        if word == "rule":
            close_rule()
            seen_rule = True
            parts = stripped.split()
            if len(parts) != 2 or not _RULE_ID.match(parts[1]):
                out.issues.append(Issue("error", "syntax",
                                        "expected 'rule ID' (letters, digits, '.', '_', '-')",
                                        path, n))
                current, broken = RuleDecl(parts[1] if len(parts) > 1 else "?", path, n), True
                continue
            current = RuleDecl(parts[1], path, n)
            current.source = raw + "\n"
            continue
        if word == "base" and not seen_rule:
            parts = stripped.split()
            if len(parts) != 2 or not parts[1].startswith("/"):
                out.issues.append(Issue("error", "syntax", "expected 'base /canonical/id'",
                                        path, n))
            else:
                out.base = parts[1].rstrip("/")
            continue
        if current is None:
            out.issues.append(Issue("error", "syntax",
                                    f"expected a 'rule ID' line before {stripped[:30]!r}", path, n))
            continue
        current.source += raw + "\n"
        if broken:
            continue
        continues = bool(pending) and re.search(r"(<=|:-|&|[=+*,(-])\s*$",
                                                pending[-1][1]) is not None
        if stripped.startswith("&") or continues:
            if not pending:
                out.issues.append(Issue("error", "syntax",
                                        "a line starting with '&' must continue a clause", path, n,
                                        current.id))
                broken = True
                continue
            pending.append((n, code))
            continue
        if word in _DIRECTIVES and not re.match(r"^\w+\s*(<=|:-)", stripped):
            flush_clause()
            try:
                _directive(current, word, stripped[len(word):].strip(), out.base, n)
            except _ParseError as exc:
                out.issues.append(Issue("error", "syntax", exc.message, path, exc.line, current.id))
                broken = True
            continue
        flush_clause()
        if broken:
            continue
        if re.match(r"^\s*[A-Za-z_]\w*\s*\((?!\s*[A-Z]\w*\s*\))[^)]*\)\s*(<=|:-)", code):
            out.issues.append(Issue(
                "error", "syntax", f"a rule head takes at most one argument, a variable for an "
                f"entity: write '{word.split('(')[0]} <= ...' or "
                f"'{word.split('(')[0]}(P) <= payment(P) & ...'", path, n, current.id))
            broken = True
            continue
        if not re.match(r"^\s*[A-Za-z_]\w*\s*(?:\(\s*[A-Z]\w*\s*\)\s*)?(<=|:-|=(?!=))",
                        code):
            out.issues.append(Issue(
                "error", "syntax",
                f"expected a directive ({', '.join(sorted(_DIRECTIVES))}) or a clause "
                "'Head <= ...' (continuation lines start with '&')", path, n, current.id))
            broken = True
            continue
        pending.append((n, code))
    close_rule()
    return out


def _head_in(source: str) -> str | None:
    """The predicate a rule's text defines, read from its first clause line (for a rule that
    failed to parse)."""
    m = re.search(r"^\s*([A-Z]\w*)\s*(?:\([^)]*\))?\s*(?:<=|:-|=(?!=))", source, re.MULTILINE)
    return m.group(1) if m else None


def _directive(rule: RuleDecl, word: str, rest: str, base: str | None, line: int) -> None:
    if word == "title" or word == "note":
        m = re.fullmatch(r'"([^"]*)"', rest)
        if not m:
            raise _err(line, 0, f'{word} takes a quoted text: {word} "..."')
        if word == "title":
            rule.title = m.group(1)
        else:
            rule.notes.append(m.group(1))
    elif word == "version":
        if not re.fullmatch(r"\d+", rest):
            raise _err(line, 0, f"version takes a whole number, found {rest!r}")
        if rule.version is not None:
            raise _err(line, 0, "version given twice")
        rule.version = int(rest)
    elif word == "cites":
        items = [c for c in re.split(r"[,\s]+", rest) if c]
        if not items:
            raise _err(line, 0, "cites takes one or more citations")
        for item in items:
            if not _CITE.match(item):
                raise _err(line, 0, f"malformed citation {item!r}")
            try:
                rule.cites.append(resolve_cite(item, base))
            except ValueError as exc:
                raise _err(line, 0, str(exc)) from None
    elif word == "effective":
        m = re.fullmatch(r"from\s+(\S+)(?:\s+to\s+(\S+))?", rest)
        if not m:
            raise _err(line, 0, "expected 'effective from YYYY-MM-DD [to YYYY-MM-DD]'")
        try:
            rule.effective_from = date.fromisoformat(m.group(1))
            rule.effective_to = date.fromisoformat(m.group(2)) if m.group(2) else None
        except ValueError:
            raise _err(line, 0, f"not a date in {rest!r} (expected YYYY-MM-DD)") from None
        if rule.effective_to is not None and rule.effective_to <= rule.effective_from:
            raise _err(line, 0, "the effective period ends before it starts")
    elif word == "keywords":
        rule.keywords += [k.strip().lower() for k in rest.split(",") if k.strip()]


def _check_decl(rule: RuleDecl) -> list[tuple[str, int]]:
    problems = []
    if rule.version is None:
        problems.append(("missing 'version N'", rule.line))
    if not rule.cites:
        problems.append(("missing 'cites ...' (the clauses this rule formalizes)", rule.line))
    if rule.effective_from is None:
        problems.append(("missing 'effective from YYYY-MM-DD'", rule.line))
    if not rule.clauses and rule.value is None:
        problems.append(("no clauses: write 'Head <= ...' (or 'Head <= false'), or a value "
                         "'Head = ...'", rule.line))
    heads = {c.head for c in rule.clauses}
    if len({len(c.args) for c in rule.clauses}) > 1:
        problems.append((f"the clauses of {rule.head} differ in their arguments: all take an "
                         "entity variable or none does", rule.clauses[-1].line))
    if rule.value is not None and not rule.value.head[0].isupper():
        problems.append((f"a value rule's name is capitalized: {rule.value.head}",
                         rule.value.line))
    if len(heads) > 1:
        problems.append((f"one rule defines one predicate, found {', '.join(sorted(heads))}",
                         rule.clauses[1].line))
    return problems


def parse_file(path: Path) -> RuleFile:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        out = RuleFile(str(path))
        out.issues.append(Issue("error", "io", f"cannot read: {exc}", str(path)))
        return out
    return parse_rules(text, path)
