"""Fact declarations: reading the library's `facts.toml` files, and validating a query's facts.

The facts the rules are written against are declared in the library, beside the rules
(`facts.toml` or `*.facts.toml`; the format is described at the top of
`rules/library/us/usc/t11/facts.toml`). Each declaration gives the fact's name, type (bool,
amount, count, date, duration, enumeration with its values, entity reference), unit, meaning,
source clause, how it follows from other facts (`derived`), an optional closed-world default
(`assume`) and how a question states it (`stated`, patterns as data, read by the query
parser). The files are parsed, never executed; `read_fact_files` returns the `Vocabulary`
and an `Issue` (file, line, field) for each bad declaration.

A query carries facts by name. A value is *known* (true/false for a boolean, a number, a date,
one of an enumeration's values) or *unknown* (absent, or None / "unknown"). `validate_facts`
turns raw values into a `FactSet`, raising `FactError` that names every fact with a value of
the wrong type, then applies the declared derivations and closed-world defaults (marked as
derived, with how).
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from pathlib import Path
from typing import Any

from structfirst.rules.rule_syntax import Issue
from structfirst.rules.toml_file import read_toml

FACT_FILE_GLOBS = ("facts.toml", "*.facts.toml")


class FactType(StrEnum):
    BOOL = "bool"
    AMOUNT = "amount"  # a non-negative amount (unit USD)
    DURATION = "duration"  # a non-negative whole number of days
    COUNT = "count"  # a non-negative whole number
    DATE = "date"
    ENUM = "enumeration"
    ENTITY = "entity"  # a reference to an entity of the question (a name)

    @property
    def numeric(self) -> bool:
        return self in (FactType.AMOUNT, FactType.DURATION, FactType.COUNT)


_TYPE_WORDS = {
    FactType.BOOL: "true or false",
    FactType.AMOUNT: "an amount in USD",
    FactType.DURATION: "a whole number of days",
    FactType.COUNT: "a whole number",
    FactType.DATE: "a date (YYYY-MM-DD)",
    FactType.ENUM: "one of",
    FactType.ENTITY: "the name of an entity",
}
_DEFAULT_UNIT = {FactType.AMOUNT: "USD", FactType.DURATION: "days"}


@dataclass(frozen=True, slots=True)
class Derivation:
    """How a fact follows from others: the days between two dates, or a value when others
    have given values."""

    days_between: tuple[str, str] | None = None  # (earlier, later)
    value: Any = None
    when: tuple[tuple[str, Any], ...] = ()  # (fact, value) or (fact, Bound)

    def conditions(self) -> str:
        return " and ".join(f"{n} {v}" if isinstance(v, Bound) else f"{n} = {_shown(v)}"
                            for n, v in self.when)


BOUND_WORDS = {"less_than": "<", "at_most": "<=", "more_than": ">", "at_least": ">="}
_COMPLEMENT = {"less_than": "at_least", "at_least": "less_than", "at_most": "more_than",
               "more_than": "at_most"}


@dataclass(frozen=True, slots=True)
class Bound:
    """A condition on a number in a derivation: `when = { creditor_count = { less_than = 12 } }`."""

    op: str  # one of BOUND_WORDS
    limit: Any

    def __str__(self) -> str:
        return f"{BOUND_WORDS[self.op]} {_shown(self.limit)}"

    def holds(self, value: Any) -> bool:
        return {"less_than": value < self.limit, "at_most": value <= self.limit,
                "more_than": value > self.limit, "at_least": value >= self.limit}[self.op]


@dataclass(frozen=True, slots=True)
class FactSpec:
    name: str
    type: FactType
    description: str  # the one-line meaning
    values: tuple[str, ...] = ()  # the allowed values of an enumeration
    unit: str | None = None
    source: str = ""  # the clause the fact comes from
    value_meanings: Mapping[str, str] = field(default_factory=dict)
    derived: tuple[Derivation, ...] = ()
    assume: Any = None  # closed-world default when unknown (None: open world)
    stated: Mapping[str, Any] = field(default_factory=dict)  # how a question states it
    file: str = ""
    line: int | None = None
    of: str | None = None  # the entity whose attribute this is (one value per entity)
    refers_to: str | None = None  # an entity reference: the kind of entity it names

    @property
    def days_between(self) -> tuple[str, str] | None:
        """(earlier, later) when the fact is declared as the days between two dates."""
        return next((d.days_between for d in self.derived if d.days_between), None)

    def expected(self) -> str:
        if self.type is FactType.ENUM:
            return "one of " + ", ".join(self.values)
        return _TYPE_WORDS[self.type]


@dataclass(frozen=True, slots=True)
class ShorthandSpec:
    """One abbreviation a question may use for words (`[shorthand]`: "payment" = ["pmt"]):
    the query parser reads the words in its place."""

    abbreviation: str  # lower-cased, whitespace collapsed
    means: str
    file: str = ""
    line: int | None = None


@dataclass(frozen=True, slots=True)
class EntitySpec:
    """A kind of entity a question may list (`[entity.payment]`): each listed one has the
    attributes declared with `of = "payment"`. `closed = true` says the list is complete (the
    statute means "no other such payment"); otherwise more may exist (open world)."""

    name: str
    description: str
    source: str = ""
    closed: bool = False
    file: str = ""
    line: int | None = None


@dataclass(frozen=True)
class Vocabulary:
    """The declared facts by name, in declaration order, the declared entities, and the
    shorthand a question may use (abbreviation, lower-cased -> the words it stands for)."""

    facts: Mapping[str, FactSpec]
    entities: Mapping[str, EntitySpec] = field(default_factory=dict)
    shorthand: Mapping[str, str] = field(default_factory=dict)

    def attributes(self, entity: str) -> list[FactSpec]:
        return [f for f in self.facts.values() if f.of == entity]

    def __contains__(self, name: object) -> bool:
        return name in self.facts

    def __getitem__(self, name: str) -> FactSpec:
        return self.facts[name]

    def get(self, name: str) -> FactSpec | None:
        return self.facts.get(name)

    def names(self) -> list[str]:
        return list(self.facts)

    def values(self) -> Iterable[FactSpec]:
        return self.facts.values()

    def inputs(self, name: str) -> tuple[str, ...]:
        """The facts that settle `name` whatever their values, by its declared derivations:
        the two dates of `days_between`, or the one fact whose conditions cover every value
        it can take (true and false, each value of an enumeration, both sides of one bound).
        Empty when no such facts exist (a fact only sometimes implied by another is itself an
        input the user supplies)."""
        return self._inputs.get(name, ())

    @functools.cached_property
    def _inputs(self) -> dict[str, tuple[str, ...]]:
        return {name: self._settled_by(spec) for name, spec in self.facts.items()}

    def _settled_by(self, spec: FactSpec) -> tuple[str, ...]:
        if spec.days_between is not None:
            return spec.days_between
        sources = {n for d in spec.derived for n, _ in d.when}
        if len(sources) != 1 or any(len(d.when) != 1 for d in spec.derived):
            return ()
        (source,) = sources
        conds = [d.when[0][1] for d in spec.derived]
        src = self.facts.get(source)
        if src is None:
            return ()
        if src.type is FactType.BOOL:
            covered = {True, False} <= {c for c in conds if isinstance(c, bool)}
        elif src.type is FactType.ENUM:
            covered = set(src.values) <= {c for c in conds if isinstance(c, str)}
        else:
            bounds = {(b.op, b.limit) for b in conds if isinstance(b, Bound)}
            covered = any((op, limit) in bounds and (_COMPLEMENT[op], limit) in bounds
                          for op, limit in bounds)
        return (source,) if covered else ()


def fact_files(root: Path) -> list[Path]:
    """The fact declaration files under a library root, in path order."""
    found = {p for g in FACT_FILE_GLOBS for p in root.rglob(g)} if root.is_dir() else set()
    return sorted(found)


_KEYS = {"type", "unit", "meaning", "source", "values", "derived", "assume", "stated", "of",
         "entity"}
_ENTITY_KEYS = {"meaning", "source", "closed"}
_STATED_KEYS = {"hints", "values", "after", "before", "keywords", "default", "patterns", "role",
                "context", "less", "less_before", "total", "unknown", "period_end",
                "earliest"}


def _header_lines(text: str) -> dict[str, int]:
    """Line of each `[fact.NAME]` table (or of the first `[fact.NAME.x]` sub-table)."""
    out: dict[str, int] = {}
    for i, line in enumerate(text.splitlines(), 1):
        m = re.match(r"\s*\[(?:fact|entity)\.([A-Za-z_][\w]*)", line)
        if m:
            out.setdefault(m.group(1), i)
    return out


def read_fact_file(path: Path) -> tuple[list[FactSpec | EntitySpec | ShorthandSpec],
                                        list[Issue]]:
    """The declarations of one file; each bad one is left out with an Issue (file, line)."""
    got = read_toml(path, "fact-syntax")
    if isinstance(got, Issue):
        return [], [got]
    text, data = got
    file, lines = str(path), _header_lines(text)
    issues: list[Issue] = []
    unknown_top = [k for k in data if k not in ("fact", "entity", "macro", "shorthand")]
    for k in unknown_top:
        issues.append(Issue("error", "fact-declaration",
                            f"unknown table [{k}]: declarations are [fact.NAME], "
                            "[entity.NAME], [macro] and [shorthand] tables", file,
                            _line_of(text, k)))
    macros, problem = _file_macros(data.get("macro", {}))
    if problem:
        issues.append(Issue("error", "fact-declaration", f"[macro] {problem}", file,
                            _line_of(text, "macro")))
    specs: list[FactSpec | EntitySpec | ShorthandSpec] = []
    shorthand, problem = _file_shorthand(data.get("shorthand", {}), file,
                                         _line_of(text, "shorthand"))
    if problem:
        issues.append(Issue("error", "fact-declaration", f"[shorthand] {problem}", file,
                            _line_of(text, "shorthand")))
    specs += shorthand
    for name, body in (data.get("entity") or {}).items():
        line = lines.get(name)
        problem = _entity_problem(name, body)
        if problem:
            issues.append(Issue("error", "fact-declaration", f"entity {name}: {problem}", file,
                                line))
            continue
        specs.append(EntitySpec(name, " ".join(body["meaning"].split()), body.get("source", ""),
                                bool(body.get("closed", False)), file, line))
    for name, body in (data.get("fact") or {}).items():
        line = lines.get(name)
        body, problem = _with_macros(body, macros)
        problem = problem or _spec_problem(name, body)
        if problem:
            issues.append(Issue("error", "fact-declaration", f"fact {name}: {problem}", file, line))
            continue
        specs.append(_spec(name, body, file, line))
    return specs, issues


def _file_shorthand(table: Any, file: str, line: int | None
                    ) -> tuple[list[ShorthandSpec], str | None]:
    """A file's `[shorthand]` table ("words" = ["abbreviation", ...]), or why it is bad."""
    if not isinstance(table, dict):
        return [], "expected a table of \"words\" = [\"abbreviation\", ...]"
    out: list[ShorthandSpec] = []
    for means, abbreviations in table.items():
        if (not isinstance(abbreviations, list) or not abbreviations
                or not all(isinstance(a, str) and a.strip() for a in abbreviations)):
            return [], f"{means}: a list of abbreviations (non-empty strings)"
        out += [ShorthandSpec(" ".join(a.lower().split()), means, file, line)
                for a in abbreviations]
    return out, None


def _file_macros(table: Any) -> tuple[dict[str, str], str | None]:
    """A file's `[macro]` table (NAME = 'pattern', NAME in capitals), or why it is bad."""
    if not isinstance(table, dict):
        return {}, "expected a table of NAME = 'pattern'"
    for name, pattern in table.items():
        if not re.fullmatch(r"[A-Z][A-Z0-9_]*", name) or f"{{{name}}}" in MACROS:
            return {}, (f"{name}: a macro name is in capitals and is none of "
                        f"{', '.join(MACROS)}")
        if not isinstance(pattern, str):
            return {}, f"{name}: a macro is one pattern (a string)"
        try:
            re.compile(expand_pattern(pattern))
        except re.error as exc:
            return {}, f"{name}: bad pattern {pattern!r}: {exc}"
    return dict(table), None


def _with_macros(body: Any, macros: dict[str, str]) -> tuple[Any, str | None]:
    """A fact's declaration with the file's macros put into its `stated` patterns, or why not
    (a {NAME} in capitals that is neither the file's macro nor a shared one)."""
    if not isinstance(body, dict) or not isinstance(body.get("stated"), dict):
        return body, None
    problem: list[str] = []

    def put(pattern: Any) -> Any:
        if not isinstance(pattern, str):
            return pattern
        for name in re.findall(r"\{([A-Z][A-Z0-9_]*)\}", pattern):
            if name in macros:
                pattern = pattern.replace(f"{{{name}}}", macros[name])
            elif f"{{{name}}}" not in MACROS:
                problem.append(f"field stated: unknown macro {{{name}}} (declare it in [macro])")
        return pattern

    def put_all(value: Any) -> Any:
        if isinstance(value, list):
            return [put(p) for p in value]
        if isinstance(value, dict):  # `values`: each value's patterns
            return {k: put_all(v) for k, v in value.items()}
        return value

    stated = {k: put_all(v) for k, v in body["stated"].items()}
    return {**body, "stated": stated}, (problem[0] if problem else None)


def _table_problem(what: str, name: str, body: Any, keys: Iterable[str]) -> str | None:
    """The name's form, the body a table, and no field outside `keys` (an entity's or a
    fact's declaration)."""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        return f"{what} name is lower case: letters, digits and _"
    if not isinstance(body, dict):
        return "expected a table"
    extra = sorted(set(body) - set(keys))
    if extra:
        return f"unknown field(s) {', '.join(extra)} (known: {', '.join(sorted(keys))})"
    return None


def _entity_problem(name: str, body: Any) -> str | None:
    problem = _table_problem("an entity", name, body, _ENTITY_KEYS)
    if problem:
        return problem
    if not isinstance(body.get("meaning"), str) or not body["meaning"].strip():
        return "field meaning: a one-line meaning is required"
    if not isinstance(body.get("closed", False), bool):
        return "field closed: true (the question lists them all) or false"
    return None


def _line_of(text: str, key: str) -> int | None:
    for i, line in enumerate(text.splitlines(), 1):
        if re.match(rf"\s*\[?\[?{re.escape(key)}\b", line):
            return i
    return None


def _spec_problem(name: str, body: Any) -> str | None:
    problem = _table_problem("a fact", name, body, _KEYS)
    if problem:
        return problem
    try:
        ftype = FactType(body.get("type"))
    except ValueError:
        return (f"field type: {body.get('type')!r} is not one of "
                f"{', '.join(t.value for t in FactType)}")
    if not isinstance(body.get("meaning"), str) or not body["meaning"].strip():
        return "field meaning: a one-line meaning is required"
    for key in ("of", "entity"):
        if key in body and not (isinstance(body[key], str) and body[key].strip()):
            return f"field {key}: the name of a declared entity"
    if "entity" in body and ftype is not FactType.ENTITY:
        return 'field entity: only a fact of type = "entity" refers to an entity'
    values = body.get("values")
    if ftype is FactType.ENUM:
        if not isinstance(values, dict) or not values:
            return "field values: an enumeration lists its values (value = \"meaning\")"
    elif values is not None:
        return "field values: only an enumeration has values"
    stated = body.get("stated", {})
    if not isinstance(stated, dict):
        return "field stated: expected a table"
    extra = sorted(set(stated) - _STATED_KEYS)
    if extra:
        return f"field stated: unknown key(s) {', '.join(extra)}"
    if "total" in stated and ftype is not FactType.AMOUNT:
        return "field stated.total: only an amount is a total of parts"
    if "period_end" in stated and (ftype is not FactType.DATE
                                   or not isinstance(stated["period_end"], bool)):
        return "field stated.period_end: true or false, and only for a date"
    if "earliest" in stated and (ftype is not FactType.DATE
                                 or not isinstance(stated["earliest"], bool)):
        return "field stated.earliest: true or false, and only for a date"
    for key, pats in _patterns(stated):
        try:
            rx = re.compile(expand_pattern(pats))
        except re.error as exc:
            return f"field stated.{key}: bad pattern {pats!r}: {exc}"
        if key == "patterns" and not {"n", "others"} & set(rx.groupindex):
            return f"field stated.patterns: {pats!r} has no group (?P<n>...) or (?P<others>...)"
        if key == "less" and ftype is FactType.COUNT and "n" not in rx.groupindex:
            return f"field stated.less: {pats!r} has no group (?P<n>...) (the number taken off)"
    for derived in _derivations(body):
        if not (isinstance(derived, dict) and (
                _pair(derived.get("days_between")) or ("value" in derived
                                                       and isinstance(derived.get("when"), dict)))):
            return ("field derived: write days_between = [EARLIER, LATER] or "
                    "value = V, when = { FACT = VALUE } (or a list of them)")
        for fact, cond in (derived.get("when") or {}).items():
            if isinstance(cond, dict) and (len(cond) != 1 or set(cond) - set(BOUND_WORDS)):
                return (f"field derived.when.{fact}: a bound is one of "
                        f"{{ {' | '.join(f'{w} = N' for w in BOUND_WORDS)} }}")
    return None


def _derivations(body: dict[str, Any]) -> list[Any]:
    derived = body.get("derived")
    return [] if derived is None else derived if isinstance(derived, list) else [derived]


def _pair(x: Any) -> bool:
    return isinstance(x, list) and len(x) == 2 and all(isinstance(v, str) for v in x)


def _patterns(stated: Mapping[str, Any]) -> Iterable[tuple[str, str]]:
    for key in ("after", "before", "less", "less_before", "total", "unknown", "keywords",
                "patterns"):
        for p in stated.get(key, ()) or ():
            yield key, p
    for value, pats in (stated.get("values") or {}).items():
        for p in pats:
            yield f"values.{value}", p


# pattern macros shared by every declaration: a number in digits or words, a negation, an
# apostrophe
# the number words, each at its value: zero to nineteen, and the tens from twenty
NUMBER_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
                "fourteen fifteen sixteen seventeen eighteen nineteen").split()
TENS_WORDS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_SMALL_WORDS = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))  # "seventeen" before "seven"
# a number from zero to ninety-nine in words
W99 = rf"(?:(?:{'|'.join(TENS_WORDS)})(?:[\s-](?:{_SMALL_WORDS}))?|{_SMALL_WORDS})"
MACROS = {
    "{NUM}": rf"(?:\d{{1,3}}(?:,\d{{3}})+|\d+|(?:an?|{W99})[\s-]hundred"
             rf"(?:\s+(?:and\s+)?{W99})?|{W99}|an?)",
    # (texted without the apostrophe too: "dont", "wasnt", "cant")
    "{NEG}": r"(?:not|\w*n['’]t|(?:do|does|did|is|was|are|were|has|have|had|ca|could|would|should|"
             r"wo)nt\b|never|neither|nor)",
    "{APOS}": "['’]",
}


def expand_pattern(pattern: str) -> str:
    """A declared pattern with its macros ({NUM}, {NEG}, {APOS}) replaced."""
    for k, v in MACROS.items():
        pattern = pattern.replace(k, v)
    return pattern


def _spec(name: str, body: dict[str, Any], file: str, line: int | None) -> FactSpec:
    ftype = FactType(body["type"])
    values = body.get("values") or {}
    deriv = tuple(Derivation(days_between=tuple(d["days_between"])) if "days_between" in d
                  else Derivation(value=d["value"], when=tuple(
                      (k, Bound(*next(iter(v.items()))) if isinstance(v, dict) else v)
                      for k, v in d["when"].items()))
                  for d in _derivations(body))
    return FactSpec(name, ftype, " ".join(body["meaning"].split()), tuple(values),
                    body.get("unit", _DEFAULT_UNIT.get(ftype)), body.get("source", ""),
                    dict(values), deriv, body.get("assume"), dict(body.get("stated") or {}),
                    file, line, body.get("of"), body.get("entity"))


def read_fact_files(paths: Iterable[Path]) -> tuple[Vocabulary, list[Issue]]:
    """The vocabulary declared by `paths`; a name declared twice is an error (the first wins),
    and a derivation or default must name declared facts and fit their types."""
    facts: dict[str, FactSpec] = {}
    entities: dict[str, EntitySpec] = {}
    shorthand: dict[str, ShorthandSpec] = {}
    issues: list[Issue] = []
    for path in paths:
        specs, found = read_fact_file(path)
        issues += found
        for spec in specs:
            if isinstance(spec, ShorthandSpec):
                first_s = shorthand.setdefault(spec.abbreviation, spec)
                if first_s.means != spec.means:
                    issues.append(Issue("error", "fact-declaration",
                                        f"shorthand {spec.abbreviation!r} means "
                                        f"{first_s.means!r} (at {first_s.file}:{first_s.line}) "
                                        f"and {spec.means!r}", spec.file, spec.line))
                continue
            if isinstance(spec, EntitySpec):
                if spec.name in entities:
                    first_e = entities[spec.name]
                    issues.append(Issue("error", "fact-declaration",
                                        f"entity {spec.name} is declared twice (first at "
                                        f"{first_e.file}:{first_e.line})", spec.file, spec.line))
                else:
                    entities[spec.name] = spec
                continue
            if spec.name in facts:
                first = facts[spec.name]
                issues.append(Issue("error", "fact-declaration",
                                    f"fact {spec.name} is declared twice (first at "
                                    f"{first.file}:{first.line})", spec.file, spec.line))
                continue
            facts[spec.name] = spec
    for spec in list(facts.values()):
        problem = _entity_link_problem(spec, entities) or _derivation_problem(spec, facts)
        if problem:
            issues.append(Issue("error", "fact-declaration", f"fact {spec.name}: {problem}",
                                spec.file, spec.line))
            del facts[spec.name]
    for name in set(entities) & set(facts):
        issues.append(Issue("error", "fact-declaration", f"{name} is both a fact and an entity",
                            entities[name].file, entities[name].line))
    return Vocabulary(facts, entities, {a: sp.means for a, sp in shorthand.items()}), issues


def _entity_link_problem(spec: FactSpec, entities: Mapping[str, EntitySpec]) -> str | None:
    if spec.of is not None and spec.of not in entities:
        return f"of: no [entity.{spec.of}] is declared"
    if spec.type is FactType.ENTITY and spec.refers_to not in entities:
        return (f"entity: an entity reference names the kind it refers to "
                f"(entity = \"...\"), one of: {', '.join(sorted(entities)) or 'none declared'}")
    if spec.of is not None and (spec.derived or spec.assume is not None):
        return "an attribute of an entity can be neither derived nor assumed"
    return None


def _derivation_problem(spec: FactSpec, facts: Mapping[str, FactSpec]) -> str | None:
    for d in spec.derived:
        if d.days_between is not None:
            bad = [n for n in d.days_between
                   if n not in facts or facts[n].type is not FactType.DATE]
            if bad or spec.type is not FactType.DURATION:
                return "derived.days_between needs two date facts and a duration fact"
        else:
            try:
                coerce(spec, d.value)
                for other, value in d.when:
                    if other not in facts:
                        return f"derived.when: unknown fact {other}"
                    if isinstance(value, Bound):
                        if value.op not in BOUND_WORDS or not facts[other].type.numeric:
                            return (f"derived.when.{other}: a bound is one of "
                                    f"{', '.join(BOUND_WORDS)} on a number")
                        coerce(facts[other], value.limit)
                    else:
                        coerce(facts[other], value)
            except ValueError as exc:
                return f"derived: {exc}"
    if spec.assume is not None:
        try:
            coerce(spec, spec.assume)
        except ValueError as exc:
            return f"assume: {exc}"
    return None


UNKNOWN_WORDS = frozenset({"unknown", "undetermined", "?", ""})
_TRUE = frozenset({"true", "yes", "y", "1"})
_FALSE = frozenset({"false", "no", "n", "0"})
_AMOUNT_RE = re.compile(r"^\$?\s*(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$")


class FactError(ValueError):
    """Facts of the wrong type or unknown names; `problems` lists one message per fact."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("invalid facts: " + "; ".join(problems))
        self.problems = problems


Value = bool | int | Decimal | date | str


def normalize_number(value: int | float | Decimal) -> int | Decimal:
    """Ints stay ints; floats become exact Decimals (pyDatalog rounds floats to 8 digits)."""
    if isinstance(value, bool):
        raise TypeError("a boolean is not a number")
    if isinstance(value, int):
        return value
    dec = value if isinstance(value, Decimal) else Decimal(repr(value))
    return int(dec) if dec == dec.to_integral_value() else dec


def coerce(spec: FactSpec, raw: Any) -> Value | None:
    """`raw` as a value of `spec`'s type, None for unknown; ValueError says what is wrong."""
    if raw is None or (isinstance(raw, str) and raw.strip().lower() in UNKNOWN_WORDS):
        return None
    kind = spec.type
    shown = f"{type(raw).__name__} {raw!r}" if not isinstance(raw, date) else f"date {raw}"
    if kind is FactType.BOOL:
        if isinstance(raw, bool):
            return raw
        if isinstance(raw, str) and raw.strip().lower() in _TRUE | _FALSE:
            return raw.strip().lower() in _TRUE
        raise ValueError(f"{spec.name}: expected {spec.expected()}, got {shown}")
    if kind is FactType.DATE:
        if isinstance(raw, datetime):
            return raw.date()
        if isinstance(raw, date):
            return raw
        if isinstance(raw, str):
            try:
                return date.fromisoformat(raw.strip())
            except ValueError:
                pass
        raise ValueError(f"{spec.name}: expected {spec.expected()}, got {shown}")
    if kind is FactType.ENTITY:
        if isinstance(raw, str) and re.fullmatch(r"[A-Za-z_][\w.-]*", raw.strip()):
            return raw.strip()
        raise ValueError(f"{spec.name}: expected {spec.expected()}, got {shown}")
    if kind is FactType.ENUM:
        if isinstance(raw, str) and raw.strip() in spec.values:
            return raw.strip()
        raise ValueError(f"{spec.name}: expected {spec.expected()}, got {shown}")
    # numeric kinds
    number: int | Decimal | None = None
    if isinstance(raw, bool) or isinstance(raw, date):
        number = None
    elif isinstance(raw, int | float | Decimal):
        if isinstance(raw, float) and raw != raw:  # NaN
            number = None
        else:
            number = normalize_number(raw)
    elif isinstance(raw, str) and _AMOUNT_RE.match(raw.strip()):
        try:
            number = normalize_number(Decimal(raw.strip().lstrip("$").strip().replace(",", "")))
        except InvalidOperation:
            number = None
    if number is None:
        raise ValueError(f"{spec.name}: expected {spec.expected()}, got {shown}")
    if number < 0:
        raise ValueError(f"{spec.name}: expected {spec.expected()}, got a negative number {raw!r}")
    if kind in (FactType.DURATION, FactType.COUNT) and number != int(number):
        raise ValueError(f"{spec.name}: expected {spec.expected()}, got {raw!r}")
    return int(number) if kind in (FactType.DURATION, FactType.COUNT) else number


@dataclass(frozen=True, slots=True)
class Entity:
    """One listed entity of a question: its id and its known attribute values."""

    kind: str
    id: str
    values: Mapping[str, Value]


@dataclass(frozen=True)
class FactSet:
    """The facts of one query: known values by name; every other declared name is unknown."""

    known: Mapping[str, Value]
    derived: Mapping[str, str] = field(default_factory=dict)  # derived name -> how
    entities: Mapping[str, tuple[Entity, ...]] = field(default_factory=dict)  # kind -> listed

    def value(self, name: str) -> Value | None:
        return self.known.get(name)


def validate_facts(raw: Mapping[str, Any] | FactSet, vocabulary: Vocabulary, *,
                   strict_names: bool = True) -> FactSet:
    """Check and coerce a query's facts against the declarations, then apply the declared
    derivations and closed-world defaults; FactError lists every problem at once."""
    if isinstance(raw, FactSet):
        return raw
    problems: list[str] = []
    known: dict[str, Value] = {}
    entities: dict[str, tuple[Entity, ...]] = {}
    for name, value in raw.items():
        if name in vocabulary.entities:
            entities[name] = _entities(name, value, vocabulary, problems)
            continue
        spec = vocabulary.get(name)
        if spec is not None and spec.of is not None:
            problems.append(f"{name}: an attribute of each {spec.of}; give it inside "
                            f"{spec.of} = [{{ {name} = ... }}, ...]")
            continue
        if spec is None:
            if strict_names:
                problems.append(f"{name}: not a declared fact ({_near(name, vocabulary)})")
            continue
        try:
            coerced = coerce(spec, value)
        except ValueError as exc:
            problems.append(str(exc))
            continue
        if coerced is not None:
            known[name] = coerced
    derived: dict[str, str] = {}
    for spec in vocabulary.values():
        if spec.days_between is None:
            continue
        a, b = (known.get(n) for n in spec.days_between)
        if not (isinstance(a, date) and isinstance(b, date)):
            continue
        days = (b - a).days
        earlier, later = spec.days_between
        if days < 0:
            problems.append(f"{earlier}: {a} is after {later} {b}")
        elif spec.name in known and known[spec.name] != days:
            problems.append(f"{spec.name}: given {known[spec.name]}, but {earlier} {a} and "
                            f"{later} {b} are {days} days apart")
        elif spec.name not in known:
            known[spec.name] = days
            derived[spec.name] = f"{spec.name} = {days}, from {earlier} and {later}"
    for _ in range(2):  # a derived value may meet another declaration's condition
        for spec in vocabulary.values():
            for d in spec.derived:
                if d.days_between is not None or spec.name in known:
                    continue
                if all(name in known and (v.holds(known[name]) if isinstance(v, Bound) else
                                          known[name] == coerce(vocabulary[name], v))
                       for name, v in d.when):
                    known[spec.name] = coerce(spec, d.value)  # type: ignore[assignment]
                    derived[spec.name] = (f"{spec.name} = {_shown(d.value)}, since "
                                          f"{d.conditions()}")
    for spec in vocabulary.values():
        if spec.assume is not None and spec.name not in known:
            known[spec.name] = coerce(spec, spec.assume)  # type: ignore[assignment]
            derived[spec.name] = (f"{spec.name} = {_shown(spec.assume)}, assumed (closed world) "
                                  "since the facts do not state it")
    ids = {kind: {e.id for e in listed} for kind, listed in entities.items()}
    for listed in entities.values():
        for e in listed:
            for attr, v in e.values.items():
                target = vocabulary[attr].refers_to
                if target is not None and v not in ids.get(target, ()):
                    problems.append(f"{e.id}.{attr}: {v!r} is not a listed {target}")
    if problems:
        raise FactError(problems)
    return FactSet(known, derived, entities)


def _entities(kind: str, raw: Any, vocabulary: Vocabulary,
              problems: list[str]) -> tuple[Entity, ...]:
    """The listed entities of one kind: a list of tables of attributes (and an optional id)."""
    if not isinstance(raw, list | tuple) or not all(isinstance(r, Mapping) for r in raw):
        problems.append(f"{kind}: expected a list of tables, e.g. {kind} = [{{ ... }}, ...]")
        return ()
    attrs = {f.name: f for f in vocabulary.attributes(kind)}
    out = []
    for i, record in enumerate(raw, 1):
        eid = str(record.get("id", f"{kind}{i}"))
        values: dict[str, Value] = {}
        for name, value in record.items():
            if name == "id":
                continue
            spec = attrs.get(name)
            if spec is None:
                problems.append(f"{eid}.{name}: not an attribute of {kind} (attributes: "
                                f"{', '.join(attrs) or 'none declared'})")
                continue
            try:
                coerced = coerce(spec, value)
            except ValueError as exc:
                problems.append(f"{eid}.{exc}")
                continue
            if coerced is not None:
                values[name] = coerced
        out.append(Entity(kind, eid, values))
    if len({e.id for e in out}) != len(out):
        problems.append(f"{kind}: two entities with the same id")
    return tuple(out)


def _shown(v: Any) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


def _near(name: str, vocabulary: Vocabulary) -> str:
    close = difflib.get_close_matches(name, vocabulary.names(), n=1)
    if close:
        return f"did you mean {close[0]}?"
    return "facts are declared in the library's facts.toml files; see `structfirst rules facts`"
