"""The deterministic query parser: a question in, a typed `ParsedQuery` out. No model.

    parse_query(question, *, today=None, as_of=None, jurisdiction=None) -> ParsedQuery
    query_terms(parsed) -> str       # the text for the lexical and dense planes

Every extracted field keeps the [start, end) character span of the question it came from,
and `question[span[0]:span[1]] == text` holds for each of them. The parser is a fixed set of
regular expressions compiled at import; a typical question parses in well under 1 ms.

What it extracts
----------------
* jurisdiction (`JurisdictionInfo`): the caller's (`how="caller"`) overrides; else the first
  one named in the question ("Iowa" -> us-ia, "NY law" -> us-ny, "federal" -> us-federal,
  "CFPB"/"Regulation B/E/M" -> us-federal/cfpb; `how="explicit"`; when a named federal and a
  named CFPB mention both occur, the more specific us-federal/cfpb is taken); else the one of
  the first citation (U.S.C. -> us-federal; 12 CFR 1000-1099 -> us-federal/cfpb; "Iowa Code"
  -> us-ia; `how="inferred"`); else us-federal when the question uses bankruptcy words
  (bankruptcy is federal law; `how="inferred"`); else us-federal (`how="default"`).
* as-of date (`AsOf`): the caller's overrides; else the first date with an as-of cue ("as of
  June 1, 2016", "as of policy issuance on June 1, 2026", "effective ..."); else the first
  filing date ("a case filed on March 3, 2014", "filed in June 2011"); else the first other
  date ("on 2016-06-01", "in 2012"); else a transfer date; else `today`. Month and year
  granularity, modifiers and the midpoint choice ("June 2011" -> 2011-06-15, "in 2012" ->
  2012-07-01) are in `structfirst.engine.query_dates`.
* seed citations (`Citation`), normalized to canonical ids; see
  `structfirst.engine.query_citations` for the forms read and the rule that places a bare
  "§ 547" (Title 11 when the question is about bankruptcy or names no other title).
* facts (`QueryFact`), named in the rule engine's vocabulary `FACT_TYPES`. Where the words are
  ambiguous nothing is extracted: an amount or duration with a bound ("less than $7,575",
  "within 90 days", "more than a year") is no fact; two different values for one fact drop
  both (a warning says so); a yes/no question *about* a fact ("Was the debtor insolvent?",
  "Is the debtor's brother an insider?") does not assert it. Durations: weeks x 7, months x
  30 ("three months before the bankruptcy" -> 90, `approximate=True`), years x 365. A
  `filing_date`/`transfer_date` fact needs a single named day; when both are present and no
  duration is given, `days_before_filing` is derived (`derived=True`, spanning both).
  Relationship words (brother, director, ...) are read only in a bankruptcy question.
* predicates (`Predicate`), normalized to PREDICATES; `predicate` is the first one that fits
  the query type (see `_TYPE_PREDICATE`), else the first one found, else None.
* defined terms (`TermMention`): quoted terms ('insider', "consumer debt"), the X of "what
  does X mean", "definition of X", "meaning of X", "define X", and the TERM of "is X a/an
  TERM?" / "who is a/an TERM".

Query type (first rule that fires; `type_reason` names it)
----------------------------------------------------------
1. jurisdiction_comparison: a comparison cue ("compare", "differ", "difference", "versus",
   "vs.", "contrast", "what changed", "how has ... changed") or two different jurisdictions
   named (us-federal and us-federal/cfpb count as one).
2. exception_application: an application predicate (avoid, dischargeability, eligibility,
   priority, or "is it excepted", "does the exception apply") together with at least one fact.
3. definition: "what does X mean", "define", "definition of", "meaning of", "is X an
   insider?", "who is a relative", a quoted term after "what is".
4. multi_clause_synthesis: "all the requirements", "what must be shown", "elements", "what is
   required", "need to prove".
5. threshold_check: "minimum", "threshold", "limit", "maximum", "cap", "ceiling", "how much",
   "dollar amount", or a dollar-amount fact.
6. lookup: anything else.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field, fields, is_dataclass
from datetime import date, datetime
from functools import lru_cache
from typing import Any

from structfirst.engine.query_citations import (
    CFPB,
    DEFAULT_JURISDICTION,
    FEDERAL,
    REGULATION_NAME,
    Citation,
    JurisdictionMention,
    UnresolvedCitation,
    bankruptcy_cue,
    find_citations,
    find_jurisdictions,
    normalize_jurisdiction,
)
from structfirst.engine.query_dates import DateMention, QueryError, Span, find_dates

__all__ = [
    "FACT_TYPES",
    "MAX_QUESTION_CHARS",
    "PREDICATES",
    "QUERY_TYPES",
    "AsOf",
    "Citation",
    "DateMention",
    "JurisdictionInfo",
    "JurisdictionMention",
    "ParsedQuery",
    "Predicate",
    "QueryError",
    "QueryFact",
    "TermMention",
    "UnresolvedCitation",
    "parse_query",
    "query_terms",
]

MAX_QUESTION_CHARS = 10_000

# The facts the rule engine consumes: name -> type.
FACT_TYPES: dict[str, str] = {
    "transfer_amount": "amount",
    "days_before_filing": "days",
    "filing_date": "date",
    "transfer_date": "date",
    "creditor_is_insider": "bool",
    "debtor_consumer_debts": "bool",
    "debtor_kind": "enum",
    "debtor_insolvent": "bool",
    "antecedent_debt": "bool",
    "ordinary_course_payment": "bool",
    "relationship": "enum",
    "noncontingent_unsecured_debts": "amount",
    "secured_debts": "amount",
    "unsecured_claims_total": "amount",
    "wage_claim_amount": "amount",
    "days_wages_earned_before_filing": "days",
    "luxury_goods_amount": "amount",
    "cash_advance_amount": "amount",
    "days_luxury_before_relief": "days",
    "days_cash_advance_before_relief": "days",
    "petitioning_creditors": "count",
    "creditor_count": "count",
}
ENUM_VALUES: dict[str, tuple[str, ...]] = {
    "debtor_kind": ("individual", "corporation", "partnership", "municipality"),
    "relationship": (
        "relative",
        "general_partner",
        "director",
        "officer",
        "person_in_control",
        "affiliate",
        "none",
    ),
}
PREDICATES = (
    "avoid",
    "minimum",
    "definition",
    "threshold",
    "eligibility",
    "priority",
    "dischargeability",
    "requirement",
    "comparison",
    "lookup",
)
QUERY_TYPES = (
    "lookup",
    "definition",
    "exception_application",
    "threshold_check",
    "multi_clause_synthesis",
    "jurisdiction_comparison",
)
APPLICATION_PREDICATES = frozenset({"avoid", "dischargeability", "eligibility", "priority"})
_UNIT = {"amount": "USD", "days": "days"}


# --- result types -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class JurisdictionInfo:
    value: str  # "us-federal", "us-federal/cfpb", "us-ia", ...
    how: str  # "caller" | "explicit" | "inferred" | "default"
    span: Span | None  # None for caller and default
    text: str | None


@dataclass(frozen=True, slots=True)
class AsOf:
    value: date
    how: str  # "caller" | "explicit" | "filing_date" | "event_date" | "transfer_date" | "today"
    span: Span | None  # the date text; None for caller and the default today
    text: str | None
    granularity: str  # "day" | "month" | "year" | "today"
    period_start: date
    period_end: date  # inclusive


@dataclass(frozen=True, slots=True)
class QueryFact:
    name: str  # one of FACT_TYPES
    value: int | float | bool | str | date
    type: str  # "amount" | "days" | "date" | "bool" | "enum" | "count"
    span: Span
    text: str
    unit: str | None = None  # "USD" for amounts, "days" for durations
    approximate: bool = False  # a month or year converted to days
    derived: bool = False  # computed from other facts (days_before_filing from two dates)


@dataclass(frozen=True, slots=True)
class Predicate:
    name: str  # one of PREDICATES
    span: Span
    text: str


@dataclass(frozen=True, slots=True)
class TermMention:
    term: str  # lower-cased, whitespace collapsed, without quotes or articles
    span: Span
    text: str
    cue: str  # "quoted" | "mean" | "definition_of" | "is_a" | "who_is"


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    question: str
    jurisdiction: JurisdictionInfo
    as_of: AsOf
    citations: tuple[Citation, ...]
    facts: tuple[QueryFact, ...]
    predicate: Predicate | None
    query_type: str
    type_reason: str
    terms: tuple[TermMention, ...]
    predicates: tuple[Predicate, ...] = ()
    dates: tuple[DateMention, ...] = ()
    jurisdictions: tuple[JurisdictionMention, ...] = ()
    unresolved_citations: tuple[UnresolvedCitation, ...] = ()
    warnings: tuple[str, ...] = field(default=())

    @property
    def seeds(self) -> tuple[str, ...]:
        """Canonical ids of the cited provisions, in order, without repeats."""
        return tuple(dict.fromkeys(c.id for c in self.citations))

    def fact(self, name: str) -> QueryFact | None:
        return next((f for f in self.facts if f.name == name), None)

    def fact_values(self) -> dict[str, Any]:
        return {f.name: f.value for f in self.facts}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: dates as ISO strings, spans as [start, end] lists."""
        out = _jsonable(self)
        out["seeds"] = list(self.seeds)
        return out


def _jsonable(obj: Any) -> Any:
    if is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: _jsonable(getattr(obj, f.name)) for f in fields(obj)}
    if isinstance(obj, date):
        return obj.isoformat()
    if isinstance(obj, (list, tuple)):
        return [_jsonable(x) for x in obj]
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    return obj


# --- numbers --------------------------------------------------------------------------------

_SMALL = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_W_SMALL = "|".join(sorted(_SMALL, key=len, reverse=True))
_W_TENS = "|".join(_TENS)
_W_99 = rf"(?:(?:{_W_TENS})(?:[\s-](?:{_W_SMALL}))?|{_W_SMALL})"
NUM = rf"(?:\d{{1,3}}(?:,\d{{3}})+|\d+|(?:a|an|one|two|three)\s+hundred(?:\s+(?:and\s+)?{_W_99})?|{_W_99}|an?)"  # noqa: E501


def _num(text: str) -> int:
    t = " ".join(text.lower().replace("-", " ").split())
    if re.fullmatch(r"[\d,]+", t):
        return int(t.replace(",", ""))
    if t in ("a", "an"):
        return 1
    total = 0
    words = t.split()
    if "hundred" in words:
        i = words.index("hundred")
        head = words[:i]
        total = 100 * (1 if head in (["a"], ["an"]) else _SMALL[head[0]])
        words = [w for w in words[i + 1 :] if w != "and"]
    for w in words:
        total += _TENS.get(w, 0) + _SMALL.get(w, 0)
    return total


def _wrx(pattern: str) -> re.Pattern[str]:
    """Compile with a leading word-start lookahead outside the alternation (every alternative
    starts a word), so that the engine skips other positions quickly."""
    return re.compile(r"(?=\b\w)(?:" + pattern + ")", re.I)


# Cheap substring prefilters (on the lower-cased question): a pattern runs only when one of
# its hints occurs. A hint list must be a superset of what the pattern can match.
_HINTS: dict[str, tuple[str, ...]] = {
    "petitioning_creditors": ("creditor",),
    "creditor_count": ("creditor",),
    "creditor_is_insider": ("insider", "outside", "unrelated", "arm", "unaffiliated"),
    "debtor_consumer_debts": ("consumer", "business"),
    "debtor_insolvent": ("solvent", "insolvency"),
    "ordinary_course_payment": ("ordinary", "regular", "routine", "unusual", "irregular"),
    "debtor_kind": (
        "individual",
        "corporat",
        "llc",
        "partnership",
        "municipal",
        "chapter",
        "limited liability",
    ),
    "comparison": ("compar", "differ", "versus", "vs", "contrast", "chang"),
    "avoid": ("avoid", "recover", "claw", "set aside", "preferen", "excepted", "exception"),
    "dischargeability": ("discharg",),
    "eligibility": ("eligib", "qualif", "debtor", "file", "involuntary"),
    "priority": ("priorit",),
    "requirement": ("must", "require", "element", "condition", "need", "have to"),
    "minimum": ("minimum", "at least"),
    "threshold": ("threshold", "limit", "cap", "ceiling", "maxim", "how much", "amount", "dollar"),
    "lookup": ("what does", "what do", "text of"),
}


def _hinted(name: str, low: str) -> bool:
    hints = _HINTS.get(name)
    return hints is None or any(h in low for h in hints)


# --- fact patterns ----------------------------------------------------------------------

_APOS = "['’]"
_BOUND = re.compile(
    r"(?:less\s+than|more\s+than|fewer\s+than|greater\s+than|at\s+least|at\s+most|up\s+to|"
    r"no\s+more\s+than|no\s+less\s+than|not\s+more\s+than|not\s+less\s+than|under|over|"
    r"below|above|within|exceeding|exceeds?|maximum\s+of|minimum\s+of|about|approximately|"
    r"around|roughly|nearly|almost|<|>|≤|≥)\s*$",
    re.I,
)
# "does it need three petitioning creditors?": the rule's number, not a fact
_RULE_LEAD = re.compile(r"\b(?:need|needs|require|requires|required|must\s+(?:have|be))\s+$", re.I)
_BOUND_AFTER = re.compile(r"\s*(?:or\s+(?:more|less|fewer|greater|over|under|longer|so)|\+)", re.I)

AMOUNT_RE = re.compile(
    r"(?<![\w$])(?:\$|USD\s?)\s?(?P<num>\d{1,3}(?:,\d{3})+|\d+)(?P<dec>\.\d{1,2})?"
    r"(?:\s*(?P<mult>k|thousand|million|mm|m|billion|bn)\b)?"
    r"|(?<![\w$.,])(?P<num2>\d{1,3}(?:,\d{3})+|\d+)(?P<dec2>\.\d{1,2})?\s+(?:dollars|USD)\b",
    re.I,
)
_MULT = {
    "k": 1_000,
    "thousand": 1_000,
    "m": 1_000_000,
    "mm": 1_000_000,
    "million": 1_000_000,
    "billion": 1_000_000_000,
    "bn": 1_000_000_000,
}

# what an amount is of: the words right after it (tighter), else the words right before it
_AMOUNT_AFTER: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(rx, re.I))
    for name, rx in (
        ("luxury_goods_amount", r"\s*(?:(?:worth|in|of|for|on)\s+)?(?:\w+\s+){0,2}?luxur(?:y|ies)"),
        ("cash_advance_amount", r"\s*(?:(?:in|of|for)\s+)?(?:an?\s+)?cash\s+advances?"),
        (
            "wage_claim_amount",
            r"\s*(?:(?:in|of|for)\s+)?(?:unpaid\s+|earned\s+|back\s+|owed\s+)?"
            r"(?:wages?|salar(?:y|ies)|commissions|wage\s+claims?)\b",
        ),
        (
            "noncontingent_unsecured_debts",
            r"\s*(?:(?:in|of)\s+)?(?:non-?contingent|liquidated)[\w\s,-]{0,30}?unsecured\s+debts?",
        ),
        ("noncontingent_unsecured_debts", r"\s*(?:(?:in|of)\s+)?unsecured\s+debts?"),
        (
            "secured_debts",
            r"\s*(?:(?:in|of)\s+)?(?:(?:non-?contingent|liquidated),?\s+){0,2}secured\s+debts?",
        ),
        ("unsecured_claims_total", r"\s*(?:(?:in|of)\s+)?(?:[\w,-]+\s+){0,3}?unsecured\s+claims?"),
        (
            "transfer_amount",
            r"\s*(?:invoices?|bills?|payments?|transfers?|preferen(?:ce|tial\s+payment)|"
            r"repayments?|loan\s+repayment|check|wire)\b",
        ),
    )
)
_AMOUNT_BEFORE: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(r"(?:" + rx + r")\s*$", re.I))
    for name, rx in (
        (
            "luxury_goods_amount",
            r"\bluxur(?:y|ies)(?:\s+goods)?(?:\s+or\s+services)?\s+(?:worth|totall?ing|valued\s+at|"
            r"costing|of|for|amounting\s+to)",
        ),
        ("cash_advance_amount", r"\bcash\s+advances?\s+(?:totall?ing|worth|of|for|amounting\s+to)"),
        (
            "wage_claim_amount",
            r"\b(?:wages?|salar(?:y|ies)|commissions|wage\s+claims?)\s+(?:totall?ing|of|worth|"
            r"amounting\s+to)",
        ),
        (
            "noncontingent_unsecured_debts",
            r"\bunsecured\s+debts?\s+(?:totall?ing|of|amounting\s+to|aggregating)",
        ),
        (
            "secured_debts",
            r"(?<!un)\bsecured\s+debts?\s+(?:totall?ing|of|amounting\s+to|aggregating)",
        ),
        (
            "unsecured_claims_total",
            r"\bunsecured\s+claims?\s+(?:totall?ing|of|amounting\s+to|aggregating|in\s+the\s+"
            r"aggregate\s+of)",
        ),
        (
            "transfer_amount",
            r"\b(?:paid|pays|repaid|prepaid|transferred|paying)(?:\s+[\w'’-]+){0,3}|"
            r"\b(?:transfer|payment|preference|repayment)\s+of",
        ),
    )
)

# words one of which each `_AMOUNT_BEFORE` pattern must contain (a superset): a pattern runs
# only when its window holds one
_AMOUNT_BEFORE_HINTS: dict[str, tuple[str, ...]] = {
    "luxury_goods_amount": ("luxur",),
    "cash_advance_amount": ("cash",),
    "wage_claim_amount": ("wage", "salar", "commission"),
    "noncontingent_unsecured_debts": ("unsecured",),
    "secured_debts": ("secured",),
    "unsecured_claims_total": ("unsecured",),
    "transfer_amount": ("pai", "pay", "transfer", "preference"),
}

DURATION_RE = re.compile(
    rf"\b(?P<n>{NUM})[\s-]+(?P<unit>days?|weeks?|months?|years?)\s+"
    r"(?:(?P<rel>before|prior\s+to|preceding|ahead\s+of)\s+(?P<anchor>"
    r"(?:the\s+|an?\s+|its\s+|his\s+|her\s+|their\s+|the\s+debtor" + _APOS + r"?s\s+)?"
    r"(?:(?P<relief>(?:entry\s+of\s+the\s+)?order\s+for\s+relief)|"
    r"(?:(?:bankruptcy|chapter\s+\d+)\s+)?(?:filing(?:\s+date)?|petition(?:\s+date)?|"
    r"bankruptcy(?:\s+(?:filing|petition|case))?|case\s+(?:was\s+)?filed|"
    r"date\s+of\s+(?:the\s+)?(?:filing|petition)(?:\s+of\s+the\s+petition)?|"
    r"commencement\s+of\s+the\s+case|"
    r"(?:it|he|she|they|the\s+debtor|the\s+company|the\s+debtors)\s+filed)))"
    r"|(?P<pre>pre-?petition|before\s+bankruptcy))",
    re.I,
)
_DURATION_HINT = re.compile(r"(?:day|week|month|year)s?\s+(?:before|prior|preced|ahead|pre)")
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
_DAYS_KEYWORDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "days_wages_earned_before_filing",
        re.compile(r"\b(?:wages?|earned|salar(?:y|ies)|commissions)\b", re.I),
    ),
    ("days_luxury_before_relief", re.compile(r"\bluxur(?:y|ies)\b", re.I)),
    ("days_cash_advance_before_relief", re.compile(r"\bcash\s+advances?\b", re.I)),
)

COUNT_RES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "petitioning_creditors",
        _wrx(
            rf"(?P<n>{NUM})\s+(?:petitioning\s+creditors|creditors\s+(?:filed|joined|signed|"
            r"petitioned|file|join|sign|filing|joining|signing)\b)"
            rf"|\b(?:filed|signed|brought|joined|commenced)\s+by\s+(?P<n2>{NUM})\s+creditors\b"
            rf"|(?P<n3>{NUM})\s+creditors\b(?=[^.;?]{{0,80}}?\b(?:file|files|filed|filing|join|joins|"
            r"joined|bring|brings|brought|commence|commenced)\s+(?:an?\s+|the\s+)?involuntary\b)"
        ),
    ),
    (
        "creditor_count",
        _wrx(
            rf"\b(?:has|have|had|with|owes\s+money\s+to|owing\s+money\s+to|total\s+of)\s+"
            rf"(?P<n>{NUM})\s+(?:(?:total|different|separate)\s+)?(?:creditors|holders\s+of\s+"
            r"claims)\b(?!\s+(?:filed|joined|signed|petitioned|file|join|sign))"
            rf"|(?P<n2>{NUM})\s+creditors\s+in\s+(?:total|all)\b"
        ),
    ),
)

# bool and enum facts: (name, regex with one named group per value)
_NEG = r"(?:not|\w*n" + _APOS + r"t|never)"
BOOL_RES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "creditor_is_insider",
        _wrx(
            r"(?P<false>\bnon[\s-]?insiders?\b|" + _NEG + r"\s+(?:an?\s+)?insiders?\b|"
            r"\boutside\s+(?:vendor|supplier|lender|creditor|contractor|company|business)s?\b|"
            r"\bunrelated\s+(?:vendor|supplier|creditor|lender|third[\s-]party|party|company|"
            r"business|trade\s+creditor)s?\b|\barm" + _APOS + r"?s?[\s-]length\b|"
            r"\bunaffiliated\s+(?:vendor|supplier|creditor|lender|party|company)s?\b)"
            r"|(?P<true>\binsiders?\b(?!\s+(?:exception|preference\s+period)))"
        ),
    ),
    (
        "debtor_consumer_debts",
        _wrx(
            r"(?P<false>\bnon[\s-]?consumer\s+(?:debtor|debts?|case)\b|\bbusiness\s+debtor\b|"
            r"\b(?:debts\s+(?:are|were)\s+)?" + _NEG + r"\s+primarily\s+consumer\s+debts?\b|"
            r"\bprimarily\s+business\s+debts?\b|\bdebts\s+(?:are|were)\s+business\s+debts\b)"
            r"|(?P<true>\bconsumer\s+debtor\b|\b(?:debts\s+(?:are|were)\s+)?primarily\s+consumer"
            r"(?:\s+debts?)?\b|\bdebts\s+(?:are|were)\s+consumer\s+debts\b)"
        ),
    ),
    (
        "debtor_insolvent",
        _wrx(
            r"(?P<false>" + _NEG + r"\s+insolvent\b|\bsolvent\b)"
            r"|(?P<true>"
            + _NEG
            + r"\s+solvent\b|\binsolvent\b|\binsolvency\b(?=\s+of\s+the\s+debtor))"
        ),
    ),
    (
        "antecedent_debt",
        _wrx(
            r"(?P<false>" + _NEG + r"\s+(?:on\s+account\s+of|for)\s+an?\s+antecedent\s+debt|"
            r"\bno\s+antecedent\s+debt\b|\bprepaid\b|\bpaid\s+in\s+advance\b|"
            r"\bcash\s+on\s+delivery\b|\bC\.?O\.?D\.?(?!\w))"
            r"|(?P<true>\b(?:paid|repaid|pays)\s+(?:[\w$,.'’-]+\s+){0,4}?(?:invoices?|bills?|loans?|"
            r"debts?|balances?|notes?|arrears|arrearages)\b|"
            r"\b(?:on\s+account\s+of|for|toward|towards|to\s+pay|to\s+repay|in\s+payment\s+of)\s+"
            r"(?:an?|the|its|his|her|their)\s+(?:existing|antecedent|prior|pre-?existing|"
            r"past[\s-]due|old|outstanding|earlier|overdue)\s+(?:debts?|obligations?|loans?|"
            r"invoices?|bills?)\b|\bantecedent\s+debt\b|\bpast[\s-]due\s+(?:invoices?|bills?|debts?|"
            r"balances?)\b)"
        ),
    ),
    (
        "ordinary_course_payment",
        _wrx(
            r"(?P<false>\b(?:outside|out)\s+(?:of\s+)?the\s+ordinary\s+course\b|"
            + _NEG
            + r"\s+(?:made\s+)?in\s+the\s+ordinary\s+course\b|"
            r"\b(?:unusual|extraordinary|irregular)\s+payments?\b|"
            + _NEG
            + r"\s+(?:made\s+)?according\s+to\s+ordinary\s+business\s+terms\b)"
            r"|(?P<true>\bin\s+the\s+ordinary\s+course(?>(?:\s+of\s+(?:the\s+)?(?:debtor"
            + _APOS
            + r"?s?\s+)?(?:business(?:\s+or\s+financial\s+affairs)?|financial\s+affairs)"
            r"(?:\s+of\s+the\s+debtor)?)?)(?!\s+(?:exception|defen[cs]e))|"
            r"\baccording\s+to\s+ordinary\s+business\s+terms\b|"
            r"\b(?:regular|routine)\s+(?:monthly\s+|weekly\s+)?payments?\b)"
        ),
    ),
)
ENUM_RES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "debtor_kind",
        _wrx(
            r"(?P<individual>\bindividual\s+debtors?\b|\bdebtor\s+(?:is|was)\s+an\s+individual\b|"
            r"\ban\s+individual(?=\s+(?:debtor|who|whose|with|filed|files|filing|has|had|owes|"
            r"owing)\b))"
            r"|(?P<corporation>\bcorporate\s+debtors?\b|\bdebtor\s+(?:is|was)\s+an?\s+"
            r"(?:corporation|limited\s+liability\s+company|LLC)\b|\ban?\s+(?:corporation|LLC)"
            r"(?=\s+(?:filed|files|debtor|that\s+filed|in\s+(?:bankruptcy|chapter))\b)|"
            r"(?<=insider\s)of\s+an?\s+(?:corporation|corporate\s+debtor)\b)"
            r"|(?P<partnership>\bpartnership\s+debtors?\b|\bdebtor\s+(?:is|was)\s+a\s+"
            r"partnership\b|\ba\s+partnership(?=\s+(?:filed|files|debtor|in\s+(?:bankruptcy|"
            r"chapter))\b)|(?<=insider\s)of\s+a\s+partnership\b)"
            r"|(?P<municipality>\bmunicipal(?:ity)?\s+debtors?\b|\bdebtor\s+(?:is|was)\s+a\s+"
            r"municipality\b|\ba\s+municipality(?=\s+(?:filed|files|in\s+(?:bankruptcy|"
            r"chapter))\b)|\bchapter\s+9\s+debtors?\b)"
        ),
    ),
    (
        "relationship",
        _wrx(
            r"(?P<affiliate>\baffiliates?\b|\bparent\s+(?:company|corporation)\b|"
            r"\bsubsidiar(?:y|ies)\b|\bsister\s+(?:company|companies|corporation|entity)\b)"
            r"|(?P<general_partner>\bgeneral\s+partners?\b)"
            r"|(?P<person_in_control>\bpersons?\s+in\s+control\b|\bcontrolling\s+(?:shareholder|"
            r"stockholder|member|owner|person|interest)\b|\bcontrols\s+the\s+debtor\b)"
            r"|(?P<officer>\bchief\s+\w+\s+officer\b|\bofficers?\b|\b(?:CEO|CFO|COO)\b|"
            r"\b(?:vice[\s-])?president\b|\btreasurer\b)"
            r"|(?P<director>\bdirectors?\b|\bboard\s+members?\b)"
            r"|(?P<relative>\brelatives?\b|\bbrothers?\b|\bsisters?\b|\bmother\b|\bfather\b|"
            r"\bparents?\b|\bsons?\b|\bdaughters?\b|\bchild(?!\s+support)\b|\bchildren\b|"
            r"\bspouse\b|\bwife\b|\bhusband\b|\buncle\b|\baunt\b|\bcousin\b|\bnephew\b|\bniece\b|"
            r"\bgrand(?:mother|father|parent|son|daughter|child)s?\b|\b\w+-in-law\b|"
            r"\bsiblings?\b|\bstep(?:son|daughter|father|mother|child)\b)"
            r"|(?P<none>\bunrelated\b|\bnot\s+related\b|\bno\s+(?:relationship|relation)\b|"
            r"\barm" + _APOS + r"?s?[\s-]length\b|\bunaffiliated\b)"
        ),
    ),
)
# "Was the debtor insolvent?": a yes/no question about the fact asserts nothing
_YESNO_LEAD = re.compile(
    r"^\s*(?:is|was|were|are|am)\b(?:(?!\b(?:when|while|after|before|because|if|since|"
    r"that|which|who|whom|where|whose)\b)[^,;:]){0,80}$",
    re.I,
)
_YESNO_TAIL = re.compile(
    r"\s*(?:(?:of|under|for|to|within|as|when|at|in|with|by|because|given)\b[^?]{0,120})?\?",
    re.I,
)
_COMPLEMENT_LEAD = re.compile(r"\b(?:an?|the|considered|deemed|treated\s+as)\s+$", re.I)
_SENTENCE_BREAK = re.compile(r"[?!;]|\.(?=\s+[A-Z])|\n")


# --- predicates ---------------------------------------------------------------------------

_DEF_TERMS = (
    r"insiders?|relatives?|affiliates?|insolvent|consumer\s+debts?|consumer\s+debtor|"
    r"household\s+goods|luxury\s+goods(?:\s+or\s+services)?|small\s+business\s+debtor|"
    r"family\s+farmer|family\s+fisherman|single\s+asset\s+real\s+estate|transfers?|"
    r"corporations?|partnerships?|persons?|entit(?:y|ies)|governmental\s+units?|"
    r"municipalit(?:y|ies)|individuals?|consumer\s+leases?|lessors?|lessees?|applicants?|"
    r"access\s+devices?|electronic\s+fund\s+transfers?|creditors?|debtors?|"
    r"domestic\s+support\s+obligations?|new\s+value|antecedent\s+debt|claims?|"
    r"contemporaneous\s+exchange|ordinary\s+course"
)
# "is the debtor's brother an insider?", "was the debtor insolvent?", "is an LLC a
# corporation?": the term after a/an (or "insolvent"), then only a short tail before the "?"
_IS_A_TERM = (
    r"(?:(?!\b(?:is|are|was|were)\b)[^?.;,]){1,80}?\s+"
    r"(?:(?:considered|treated\s+as|deemed)\s+)?(?:(?:an?\s+)(?P<t>" + _DEF_TERMS + r")|"
    r"(?P<t2>insolvent))\b(?=\s*(?:(?:of|under|for|within|in|as\s+defined)\b[^?]{0,80})?\?)"
)
PREDICATE_RES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, _wrx(rx))
    for name, rx in (
        (
            "comparison",
            r"\bcompar(?:e|es|ed|ing|ison)\b|\bdiffer(?:s|ed|ent|ence|ences)?\b|\bversus\b|"
            r"\bvs\.?(?=\s)|\bcontrast\b|\bwhat\s+changed\b|\bhow\s+(?:has|have|did)\b[^?.;]{0,60}"
            r"\bchang(?:e|ed)\b",
        ),
        (
            "definition",
            r"\bwhat\s+(?:does|do|did)\s+[^?]{1,80}?\s+mean\b|\bmeaning\s+of\b|\bdefin(?:e|es|ition|"
            r"itions)\b|\bwhat\s+(?:is|are)\s+(?:an?\s+|the\s+)?[\"“'‘][^\"”'’]{1,60}[\"”'’]|"
            r"\bwhat\s+(?:counts|qualifies)\s+as\b|"
            r"\bwho\s+(?:is|are|counts\s+as|qualifies\s+as)\s+(?:an?\s+)?(?:" + _DEF_TERMS + r")\b|"
            r"\b(?:is|are|was|were)\s+" + _IS_A_TERM,
        ),
        (
            "avoid",
            r"\b(?:can|could|may|might|will|would)\s+(?:the\s+)?(?:trustee|debtor[\s-]in[\s-]"
            r"possession|DIP|estate)\s+(?:avoid|recover|claw\s*back|set\s+aside)\b|"
            r"\b(?:is|was|are|were)\s+(?:this|the|that|it|these|those)\s+(?:\w+\s+)?"
            r"(?:avoidable|preferential|a\s+preference)\b|\bavoid(?:able|ance|ed|ing|s)?\b|"
            r"\bclaw\s*-?\s*back\b|\bpreferential\s+transfers?\b|\bexcepted\s+from\s+avoidance\b|"
            r"\bis\s+(?:it|this|that|the\s+\w+)\s+excepted\b(?!\s+from\s+(?:the\s+)?discharge)|"
            r"\bdoes\s+(?:the\s+)?(?:[\w()§.\s-]{0,40}?\s)?exception\s+apply\b",
        ),
        (
            "dischargeability",
            r"\b(?:non-?)?discharge?able\b|\b(?:non-?)?dischargeability\b|\bexcepted\s+from\s+"
            r"(?:the\s+)?discharge\b|\bdischarged?\b|\bpresum(?:ed|ption)\s+(?:of\s+)?"
            r"nondischargeab",
        ),
        (
            "eligibility",
            r"\beligib(?:le|ility)\b|\bqualif(?:y|ies|ied)\s+(?:for|as)\s+(?:a\s+)?(?:chapter|debtor)"
            r"|\bmay\s+be\s+a\s+debtor\b|\bcan\s+(?:\w+\s+){0,3}?file\s+(?:for|under)\s+chapter\b|"
            r"\bwho\s+(?:can|may)\s+(?:file|be\s+a\s+debtor)\b|\b(?:can|may|could)\b[^?.;]{0,80}?"
            r"\b(?:file|commence|bring)\s+an?\s+involuntary\b",
        ),
        ("priority", r"\bentitled\s+to\s+priority\b|\bpriorit(?:y|ies|ized|ised)\b"),
        (
            "requirement",
            r"\bwhat\s+must\s+(?:be\s+(?:shown|proved|proven|established)|\w+\s+(?:show|prove|"
            r"establish))\b|\b(?:all\s+(?:of\s+)?the\s+)?requirements?\b|\belements\b|"
            r"\bwhat\s+(?:is|are)\s+required\b|\bconditions\s+(?:for|to)\b|\bneeds?\s+to\s+"
            r"(?:show|prove|establish)\b|\bwhat\s+(?:does|do)\s+\w+\s+(?:need|have)\s+to\s+"
            r"(?:show|prove|establish)\b",
        ),
        (
            "minimum",
            r"\bwhat\s+(?:is|was|are|were)\s+the\s+(?:[\w'’-]+\s+){0,4}?minimums?\b|\bminimums?\b|"
            r"\bat\s+least\s+how\s+much\b",
        ),
        (
            "threshold",
            r"\bwhat\s+(?:is|was|are|were)\s+the\s+(?:[\w§().'’-]+\s+){0,4}?(?:thresholds?|limits?|"
            r"caps?|ceilings?|maximums?|dollar\s+amounts?|amounts?)\b|\bthresholds?\b|"
            r"\b(?:debt\s+)?limits?\b|\bmaximums?\b|\bcap(?:ped|s)?\b|\bceilings?\b|\bhow\s+much\b|"
            r"\bdollar\s+(?:amount|figure|limit)s?\b|\badjusted\s+(?:dollar\s+)?amounts?\b",
        ),
        (
            "lookup",
            r"\bwhat\s+does\s+(?:section|§|the\s+(?:statute|regulation|rule|code|provision))"
            r"[^?]{0,40}?\s+(?:say|provide|state|require)\b|\bwhat\s+(?:does|do)\s+\d+\s+"
            r"(?:U\.?S\.?C|C\.?F\.?R)[^?]{0,40}?\s+(?:say|provide|state|require)\b|"
            r"\bwhat\s+(?:is|was)\s+the\s+text\s+of\b",
        ),
    )
)
_TYPE_PREDICATE = {
    "jurisdiction_comparison": ("comparison",),
    "exception_application": tuple(APPLICATION_PREDICATES),
    "definition": ("definition",),
    "multi_clause_synthesis": ("requirement",),
    "threshold_check": ("minimum", "threshold"),
}


# --- defined terms -------------------------------------------------------------------------

_QUOTED_RE = re.compile(
    r"(?<![\w])(?:\"(?P<a>[^\"\n]{1,60})\"|“(?P<b>[^”\n]{1,60})”|'(?P<c>[^'\n]{1,60})'(?!\w)|"
    r"‘(?P<d>[^’\n]{1,60})’(?!\w))"
)
_TERM_STOP = (
    r"(?=\s*(?:[?.,;:!]|$|\s(?:under|in|for|as\s+used|within|according|mean|means|"
    r"in\s+the|of\s+the\s+(?:Bankruptcy|Code|Regulation|statute)|per|when|if)\b))"
)
_TERM_CUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "mean",
        re.compile(
            r"\bwhat\s+(?:does|do|did)\s+(?:the\s+(?:term|phrase|word|words)\s+)?(?P<t>[^?]{1,80}?)"
            r"\s+mean\b",
            re.I,
        ),
    ),
    (
        "definition_of",
        re.compile(
            r"\b(?:definition|meaning|defin(?:e|es))\s+(?:of\s+)?(?:the\s+(?:term|phrase|word)\s+)?"
            r"(?P<t>[^?.,;:]{1,60}?)" + _TERM_STOP,
            re.I,
        ),
    ),
    (
        "who_is",
        re.compile(
            r"\bwho\s+(?:is|are|counts\s+as|qualifies\s+as)\s+(?:an?\s+)?(?P<t>"
            + _DEF_TERMS
            + r")\b",
            re.I,
        ),
    ),
    ("is_a", re.compile(r"\b(?:is|are|was|were)\s+" + _IS_A_TERM, re.I)),
)
_LEAD_ARTICLE = re.compile(r"^(?:the|an?|term|phrase|word)\s+", re.I)


_STRONG_BANKRUPTCY = re.compile(r"\bBankruptcy\s+Code\b|\bbankrupt(?:cy|cies)?\b", re.I)


# --- parsing --------------------------------------------------------------------------------


@lru_cache(maxsize=16)
def _sentence_ends(q: str) -> tuple[int, ...]:
    """The end of every sentence break in `q`, found once per question (breaks are one
    character each, so scanning the whole question finds the same ones as any part of it)."""
    return tuple(m.end() for m in _SENTENCE_BREAK.finditer(q))


def _sentence_bounds(q: str, pos: int) -> tuple[int, int]:
    """[start, end) of the sentence holding `pos`, by bisection: linear time over a question's
    matches, where a scan from the start per match was quadratic."""
    ends = _sentence_ends(q)
    i = bisect_right(ends, pos)
    return (ends[i - 1] if i else 0), (ends[i] if i < len(ends) else len(q))


# patterns anchored at a match's start (`...\s*$`) look back this many characters at most
_LOOKBACK = 120


def _asked_not_asserted(q: str, span: Span, *, complement_only: bool = False) -> bool:
    """True when the phrase is the thing a yes/no question asks about ("Was X insolvent?").
    With `complement_only` the phrase must also follow "a/an/the/considered" directly ("Is
    the debtor a corporation?"), so that "Is a director an insider of a corporation?" still
    says the debtor is a corporation."""
    s0, _ = _sentence_bounds(q, span[0])
    if not (_YESNO_LEAD.match(q, s0, span[0]) and _YESNO_TAIL.match(q, span[1])):
        return False
    lead = max(s0, span[0] - _LOOKBACK)
    return not complement_only or bool(_COMPLEMENT_LEAD.search(q, lead, span[0]))


_BOUND_HINT = re.compile(r"[a-z<>≤≥]", re.I)  # every `_BOUND` phrase holds one of these
_WORD_NEXT = re.compile(r"\s*\w")  # every `_AMOUNT_AFTER` pattern starts so


def _bounded(q: str, span: Span) -> bool:
    lead = max(0, span[0] - 30)
    before = _BOUND_HINT.search(q, lead, span[0]) and _BOUND.search(q, lead, span[0])
    return bool(before or _BOUND_AFTER.match(q, span[1]))


def _amount_value(m: re.Match[str]) -> int | float:
    num, dec, mult = (m["num"], m["dec"], m["mult"]) if m["num"] else (m["num2"], m["dec2"], None)
    value = float(num.replace(",", "") + (dec or ""))
    if mult:
        value *= _MULT[mult.lower()]
    value = round(value, 2)
    return int(value) if value == int(value) else value


class _Facts:
    def __init__(self, question: str, excluded: list[Span]):
        self.q = question
        self.excluded = excluded
        self.items: list[QueryFact] = []

    def add(self, name: str, value: Any, span: Span, **kw: Any) -> None:
        if any(span[0] < b and a < span[1] for a, b in self.excluded):
            return
        ftype = FACT_TYPES[name]
        self.items.append(
            QueryFact(name, value, ftype, span, self.q[span[0] : span[1]], _UNIT.get(ftype), **kw)
        )


def _extract_facts(
    q: str, dates: list[DateMention], excluded: list[Span], bankruptcy: bool
) -> tuple[list[QueryFact], list[str]]:
    facts = _Facts(q, excluded)
    warnings: list[str] = []
    low = q.lower()

    # amounts
    for m in AMOUNT_RE.finditer(q):
        span = m.span()
        if _bounded(q, span):
            continue
        value = _amount_value(m)
        s0, _ = _sentence_bounds(q, span[0])
        lead = max(s0, span[0] - _LOOKBACK)
        name = None
        if _WORD_NEXT.match(q, span[1]):
            name = next((n for n, rx in _AMOUNT_AFTER if rx.match(q, span[1])), None)
        if name is None:
            window = q[lead : span[0]].lower()
            name = next(
                (
                    n
                    for n, rx in _AMOUNT_BEFORE
                    if any(h in window for h in _AMOUNT_BEFORE_HINTS[n])
                    and rx.search(q, lead, span[0])
                ),
                None,
            )
        if name is not None:
            facts.add(name, value, span)

    # durations before filing / the order for relief
    durations = DURATION_RE.finditer(q) if _DURATION_HINT.search(low) else ()
    keywords: dict[str, list[tuple[int, int]]] = {}  # found once, not once per duration
    for m in durations:
        if not keywords:
            keywords = {k: [km.span() for km in rx.finditer(q)] for k, rx in _DAYS_KEYWORDS}
        span = m.span()
        if _bounded(q, span):
            continue
        n = _num(m["n"])
        unit = m["unit"].lower().rstrip("s")
        days = n * _UNIT_DAYS[unit]
        s0, s1 = _sentence_bounds(q, span[0])
        name, best = "days_before_filing", None
        for kname, _ in _DAYS_KEYWORDS:  # nearest keyword before, else after, in the sentence
            found = keywords[kname]
            i = bisect_right(found, (span[0], span[0])) - 1
            while i >= 0 and found[i][1] > span[0]:
                i -= 1
            if i >= 0 and found[i][0] >= s0 and (best is None or found[i][0] > best[1]):
                best = ("before", found[i][0], kname)
        if best is None:
            for kname, _ in _DAYS_KEYWORDS:
                found = keywords[kname]
                i = bisect_left(found, (span[1], span[1]))
                km = found[i] if i < len(found) and found[i][1] <= s1 else None
                if km and (best is None or km[0] < best[1]):
                    best = ("after", km[0], kname)
        if best is not None:
            name = best[2]
        facts.add(name, days, span, approximate=unit in ("month", "year"))

    # counts
    for name, rx in COUNT_RES:
        if not _hinted(name, low):
            continue
        for m in rx.finditer(q):
            grp = next(g for g in ("n", "n2", "n3") if g in rx.groupindex and m[g])
            if (
                _bounded(q, m.span(grp))
                or _BOUND_AFTER.match(q, m.end())
                or _RULE_LEAD.search(q, max(0, m.start() - 30), m.start())
            ):
                continue
            facts.add(name, _num(m[grp]), m.span())

    # booleans and enums
    for name, rx in BOOL_RES:
        if not _hinted(name, low):
            continue
        for m in rx.finditer(q):
            if _asked_not_asserted(q, m.span()):
                continue
            facts.add(name, m.lastgroup == "true", m.span())
    for name, rx in ENUM_RES:
        if (name == "relationship" and not bankruptcy) or not _hinted(name, low):
            continue
        for m in rx.finditer(q):
            if _asked_not_asserted(q, m.span(), complement_only=True):
                continue
            facts.add(name, m.lastgroup, m.span())

    # dates
    for d in dates:
        if not d.exact:
            continue
        if d.role == "filing":
            facts.add("filing_date", d.value, d.span)
        elif d.role == "transfer":
            facts.add("transfer_date", d.value, d.span)

    # one value per fact: repeats of the same value keep the first, conflicts drop all
    kept: list[QueryFact] = []
    by_name: dict[str, list[QueryFact]] = {}
    for f in sorted(facts.items, key=lambda f: f.span):
        by_name.setdefault(f.name, []).append(f)
    for name, group in by_name.items():
        values = {f.value for f in group}
        if len(values) > 1:
            shown = ", ".join(f"{f.text!r}={f.value}" for f in group)
            warnings.append(f"conflicting values for {name} ({shown}): none taken")
            continue
        kept.append(group[0])

    names = {f.name for f in kept}
    if {"filing_date", "transfer_date"} <= names and "days_before_filing" not in names:
        fd = next(f for f in kept if f.name == "filing_date")
        td = next(f for f in kept if f.name == "transfer_date")
        assert isinstance(fd.value, date) and isinstance(td.value, date)
        lo, hi = min(fd.span[0], td.span[0]), max(fd.span[1], td.span[1])
        kept.append(
            QueryFact(
                "days_before_filing",
                (fd.value - td.value).days,
                "days",
                (lo, hi),
                q[lo:hi],
                "days",
                derived=True,
            )
        )
    kept.sort(key=lambda f: (f.span, f.name))
    return kept, warnings


def _extract_terms(q: str) -> list[TermMention]:
    out: list[TermMention] = []
    seen: set[str] = set()

    def add(span: Span, cue: str) -> None:
        a, b = span
        text = q[a:b]
        stripped = text.strip().strip("\"'“”‘’").strip()
        lead = _LEAD_ARTICLE.match(stripped)
        while lead:
            stripped = stripped[lead.end() :]
            lead = _LEAD_ARTICLE.match(stripped)
        if not stripped or len(stripped.split()) > 6 or stripped[0] in "§0123456789$":
            return
        a = q.index(stripped, a)
        b = a + len(stripped)
        term = " ".join(stripped.lower().split())
        if term in seen:
            return
        seen.add(term)
        out.append(TermMention(term, (a, b), q[a:b], cue))

    for m in _QUOTED_RE.finditer(q):
        grp = m.lastgroup
        assert grp is not None
        add(m.span(grp), "quoted")
    for cue, rx in _TERM_CUES:
        for m in rx.finditer(q):
            add(m.span("t") if m["t"] is not None else m.span("t2"), cue)
    out.sort(key=lambda t: t.span)
    return out


def _extract_predicates(q: str) -> list[Predicate]:
    out: list[Predicate] = []
    low = q.lower()
    for name, rx in PREDICATE_RES:
        if not _hinted(name, low):
            continue
        for m in rx.finditer(q):
            out.append(Predicate(name, m.span(), m.group(0)))
    out.sort(key=lambda p: (p.span[0], -p.span[1]))
    # drop a predicate inside a longer one of the same name
    kept: list[Predicate] = []
    for p in out:
        if any(
            k.name == p.name and k.span[0] <= p.span[0] and p.span[1] <= k.span[1] for k in kept
        ):
            continue
        kept.append(p)
    return kept


def _jurisdiction(
    q: str, caller: str | None, named: list[JurisdictionMention], citations: list[Citation]
) -> tuple[JurisdictionInfo, list[JurisdictionMention]]:
    mentions = list(named)
    for c in citations:
        mentions.append(JurisdictionMention(c.jurisdiction, c.span, c.text, "inferred"))
    mentions.sort(key=lambda j: j.span)
    if caller is not None:
        return JurisdictionInfo(normalize_jurisdiction(caller), "caller", None, None), mentions
    if named:
        first = named[0]
        if first.value == FEDERAL:  # "federal" with a CFPB mention: take the specific one
            cfpb = next((j for j in named if j.value == CFPB), None)
            if cfpb is not None:
                first = cfpb
        return JurisdictionInfo(first.value, "explicit", first.span, first.text), mentions
    if citations:
        c = citations[0]
        return JurisdictionInfo(c.jurisdiction, "inferred", c.span, c.text), mentions
    cue = _STRONG_BANKRUPTCY.search(q) or bankruptcy_cue(q)
    if cue:
        mentions.append(JurisdictionMention(FEDERAL, cue.span(), cue.group(0), "inferred"))
        return JurisdictionInfo(FEDERAL, "inferred", cue.span(), cue.group(0)), mentions
    return JurisdictionInfo(DEFAULT_JURISDICTION, "default", None, None), mentions


def _as_of(caller: date | None, today: date, dates: list[DateMention]) -> AsOf:
    if caller is not None:
        return AsOf(caller, "caller", None, None, "day", caller, caller)
    for role, how in (
        ("as_of", "explicit"),
        ("filing", "filing_date"),
        ("generic", "event_date"),
        ("transfer", "transfer_date"),
    ):
        d = next((d for d in dates if d.role == role), None)
        if d is not None:
            if role == "generic" and d.granularity == "today":
                how = "explicit"
            return AsOf(d.value, how, d.span, d.text, d.granularity, d.period_start, d.period_end)
    return AsOf(today, "today", None, None, "today", today, today)


def _query_type(
    preds: list[Predicate], facts: list[QueryFact], named: list[JurisdictionMention]
) -> tuple[str, str]:
    names = {p.name for p in preds}
    tops = {j.value.split("/")[0] for j in named}
    if "comparison" in names:
        return "jurisdiction_comparison", "comparison cue"
    if len(tops) >= 2:
        return "jurisdiction_comparison", "two jurisdictions named"
    if names & APPLICATION_PREDICATES and facts:
        return "exception_application", "application predicate with facts"
    if "definition" in names:
        return "definition", "definition cue"
    if "requirement" in names:
        return "multi_clause_synthesis", "requirements cue"
    if names & {"minimum", "threshold"}:
        return "threshold_check", "threshold cue"
    if any(f.type == "amount" for f in facts):
        return "threshold_check", "dollar amount fact"
    return "lookup", "no other cue"


def _check_question(question: object) -> str:
    if not isinstance(question, str):
        raise QueryError(f"the question must be a string, not {type(question).__name__}")
    if len(question) > MAX_QUESTION_CHARS:
        raise QueryError(
            f"the question is {len(question):,} characters long; the limit is "
            f"{MAX_QUESTION_CHARS:,} characters"
        )
    if not question.strip():
        raise QueryError("the question is empty: give a question with some words in it")
    return question


def parse_query(
    question: str,
    *,
    today: date | None = None,
    as_of: date | None = None,
    jurisdiction: str | None = None,
) -> ParsedQuery:
    """Parse `question`; raises QueryError (a ValueError) for one that cannot be read."""
    q = _check_question(question)
    if isinstance(today, datetime):
        today = today.date()
    if isinstance(as_of, datetime):
        as_of = as_of.date()
    if as_of is not None and not isinstance(as_of, date):
        raise QueryError(f"as_of must be a date, not {type(as_of).__name__}")
    today = today or date.today()
    caller_juris = normalize_jurisdiction(jurisdiction) if jurisdiction is not None else None

    dates = find_dates(q, today)
    named = find_jurisdictions(q)
    state_ctx = None
    for value in ([caller_juris] if caller_juris else []) + [j.value for j in named]:
        if value.startswith("us-") and "/" not in value and value != FEDERAL:
            state_ctx = value[3:]
            break
    citations, unresolved = find_citations(q, state_context=state_ctx)
    juris, mentions = _jurisdiction(q, caller_juris, named, citations)

    preds = _extract_predicates(q)
    terms = _extract_terms(q)
    excluded = [t.span for t in terms if t.cue != "is_a"]
    bankruptcy = bool(bankruptcy_cue(q)) or any(c.id.startswith("/us/usc/t11/") for c in citations)
    facts, warnings = _extract_facts(q, dates, excluded, bankruptcy)
    qtype, reason = _query_type(preds, facts, named)
    wanted = _TYPE_PREDICATE.get(qtype, ())
    predicate = next((p for p in preds if p.name in wanted), None)
    if predicate is None:  # e.g. a comparison by two named jurisdictions: the first cue
        predicate = preds[0] if preds else None
    for u in unresolved:
        warnings.append(f"citation {u.text!r} at {u.span[0]}-{u.span[1]} not placed: {u.reason}")

    return ParsedQuery(
        question=q,
        jurisdiction=juris,
        as_of=_as_of(as_of, today, dates),
        citations=tuple(citations),
        facts=tuple(facts),
        predicate=predicate,
        query_type=qtype,
        type_reason=reason,
        terms=tuple(terms),
        predicates=tuple(preds),
        dates=tuple(dates),
        jurisdictions=tuple(mentions),
        unresolved_citations=tuple(unresolved),
        warnings=tuple(warnings),
    )


def query_terms(parsed: ParsedQuery) -> str:
    """The text for the lexical and dense planes: the question, then the canonical forms of
    its citations that it does not already spell out (and a regulation's part number or
    letter), so that "Regulation M" also matches "1013" and "§547(c)(9)" matches "547(c)(9)"."""
    extra: list[str] = []
    low = parsed.question.lower()
    for c in parsed.citations:
        forms = [c.canonical]
        if c.kind == "cfr_part" and c.id.startswith("/us/cfr/t12/p"):
            part = int(c.id.rsplit("p", 1)[1])
            if part in REGULATION_NAME:
                forms.append(f"Regulation {REGULATION_NAME[part]}")
        if c.kind == "cfr_section" and c.id.startswith("/us/cfr/t12/"):
            part = int(c.id.split("/s", 1)[1].split(".", 1)[0])
            if part in REGULATION_NAME:
                forms.append(f"Regulation {REGULATION_NAME[part]}")
        for form in forms:
            if form.lower() not in low and form not in extra:
                extra.append(form)
    return parsed.question if not extra else parsed.question + " " + " ".join(extra)
