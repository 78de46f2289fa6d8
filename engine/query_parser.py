"""The deterministic query parser: a question in, a typed `ParsedQuery` out. No model.

    parse_query(question, *, today=None, as_of=None, jurisdiction=None) -> ParsedQuery
    query_terms(parsed) -> str       # the text for the lexical and dense planes

Every extracted field keeps the [start, end) character span of the question it came from,
and `question[span[0]:span[1]] == text` holds for each of them. The parser is a fixed set of
regular expressions compiled at import; a typical question parses in well under 1 ms.

What it extracts
----------------
* jurisdiction (`JurisdictionInfo`): the caller's (`how="caller"`) overrides; else federal law
  when the question names it, other than to set it aside ("setting aside the federal rules")
  ("federal" -> us-federal, "CFPB"/"Regulation B/E/M" -> us-federal/cfpb, the more specific
  one when both occur; `how="explicit"`), even beside a state: federal law decides how a
  state's law relates to it ("Texas law caps a cardholder's loss below the federal limits");
  else a state (`how="explicit"`) when its own law is the subject: the state named as a source
  of law ("the Iowa Code", "under Ohio's lending statutes", "Utah's exemption", "the Maine
  Consumer Credit Act"; not "Oregon's counties"), else the first state named when the question
  has no federal citation, bankruptcy words or words of Regulations B, E and M ("debit card",
  "car lease"); else the one of the first citation, federal when a state is named only as a
  place (U.S.C. -> us-federal; 12 CFR 1000-1099 -> us-federal/cfpb; "Iowa Code" -> us-ia;
  `how="inferred"`); else us-federal when the question uses bankruptcy words, or
  consumer-finance words beside a state (bankruptcy is federal law: "a Delaware corporation
  filed chapter 11"; `how="inferred"`); else the default (`how="default"`).
* as-of date (`AsOf`): the caller's overrides; else the first date with an as-of cue ("as of
  June 1, 2016", "as of policy issuance on June 1, 2026", "effective ..."); else the first
  filing date ("a case filed on March 3, 2014", "filed in June 2011"); else the first other
  date ("on 2016-06-01", "in 2012"); else a transfer date; else `today`. Month and year
  granularity, modifiers and the midpoint choice ("June 2011" -> 2011-06-15, "in 2012" ->
  2012-07-01) are in `structfirst.engine.query_dates`.
* seed citations (`Citation`), normalized to canonical ids; see
  `structfirst.engine.query_citations` for the forms read and the rule that places a bare
  "§ 547" (Title 11 when the question is about bankruptcy or names no other title).
* facts (`QueryFact`), the facts the rule library declares, read as its declarations say a
  question states them (`structfirst.engine.query_facts`). Where the words are ambiguous
  nothing is extracted: an amount or duration with a bound ("less than $7,575", "within 90
  days") is no fact; two different values for one fact drop both (a warning says so); a
  yes/no question *about* a fact ("Was the debtor insolvent?") does not assert it.
* predicates (`Predicate`), normalized to PREDICATES; `predicate` is the first one that fits
  the query type (see `_TYPE_PREDICATE`), else the first one found, else None.
* defined terms (`TermMention`): quoted terms ('insider', "consumer debt"), the X of "what
  does X mean", "definition of X", "meaning of X", "define X", and the TERM of "is X a/an
  TERM?" / "who is a/an TERM".
* `asks_location`: the question asks where the law on something is ("which section covers",
  "what provision governs", "which part of Regulation B", "where in the Code would I find",
  "point me to"), so a whole section answers it better than one of its clauses.

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
from collections.abc import Callable, Collection
from dataclasses import dataclass, field, fields, is_dataclass, replace
from datetime import date, datetime
from typing import Any

from structfirst.engine.plane import jurisdiction_admits
from structfirst.engine.query_citations import (
    CFPB,
    DEFAULT_JURISDICTION,
    FEDERAL,
    REGULATION_NAME,
    Citation,
    JurisdictionMention,
    UnresolvedCitation,
    bankruptcy_cue,
    consumer_finance_cue,
    find_citations,
    find_jurisdictions,
    names_state_law,
    normalize_jurisdiction,
    sets_federal_aside,
)
from structfirst.engine.query_dates import DateMention, QueryError, Span, find_dates
from structfirst.engine.query_facts import FactReader, QueryFact
from structfirst.engine.query_shorthand import expand_shorthand
from structfirst.rules.fact_schema import Vocabulary
from structfirst.rules.library_loader import default_vocabulary

__all__ = [
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
    asks_location: bool = False
    left_open: tuple[str, ...] = ()  # facts the question names but leaves open (asked about,
    # or left to a "whether"): no reader fills them

    @property
    def seeds(self) -> tuple[str, ...]:
        """Canonical ids of the cited provisions, in order, without repeats."""
        return tuple(dict.fromkeys(c.id for c in self.citations))

    def fact(self, name: str) -> QueryFact | None:
        return next((f for f in self.facts if f.name == name), None)

    def fact_values(self) -> dict[str, Any]:
        return {f.name: f.value for f in self.facts}

    def words_besides_facts(self) -> str:
        """The question with the text of its facts blanked: the words that name rules
        (`rules.selection`), so that one phrase is not both a rule's keyword and its fact."""
        chars = list(self.question)
        for f in self.facts:
            if not f.derived and f.confidence is None:
                chars[f.span[0]:f.span[1]] = " " * (f.span[1] - f.span[0])
        return "".join(chars)

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


def _wrx(pattern: str) -> re.Pattern[str]:
    """Compile with a leading word-start lookahead outside the alternation (every alternative
    starts a word), so that the engine skips other positions quickly."""
    return re.compile(r"(?=\b\w)(?:" + pattern + ")", re.I)


# Cheap substring prefilters (on the lower-cased question): a pattern runs only when one of
# its hints occurs. A hint list must be a superset of what the pattern can match.
_HINTS: dict[str, tuple[str, ...]] = {
    "comparison": ("compar", "differ", "versus", "vs", "contrast", "chang"),
    "avoid": ("avoid", "recover", "claw", "set aside", "preferen", "excepted", "exception",
              "back"),
    "dischargeability": ("discharg",),
    "eligibility": ("eligib", "qualif", "debtor", "file", "involuntary", "chapter"),
    "priority": ("priorit",),
    "requirement": ("must", "require", "element", "condition", "need", "have to"),
    "minimum": ("minimum", "at least"),
    "threshold": ("threshold", "limit", "cap", "ceiling", "maxim", "how much", "amount", "dollar"),
    "lookup": ("what does", "what do", "text of"),
}


def _hinted(name: str, low: str) -> bool:
    hints = _HINTS.get(name)
    return hints is None or any(h in low for h in hints)


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
            r"\bclaw\s*-?\s*back\b|\bpreferential\s+transfers?\b|"
            # "can the trustee take that payment back?", "claw that $5k back"
            r"\b(?:trustee|estate)\b[^?.;]{0,40}?\b(?:claw|take|get|pull)\s+(?:[\w$,.]+\s+){0,3}?"
            r"back\b|\bexcepted\s+from\s+avoidance\b|"
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
            r"|\bmay\s+be\s+a\s+debtor\b|\bcan\s+(?:\w+\s+){0,3}?file\s+(?:(?:for|under)\s+)?"
            r"(?:an?\s+)?chapter\b|\bcan\s+(?:I|we|he|she|they|it)\s+(?:do|use|go\s+into)\s+"
            r"(?:an?\s+)?chapter\b|"
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
# "which section covers ...", "which part of Regulation B", "what provision governs", "where
# in the Code would I find", "point me to"; not "what part of the debt" (a share of it)
ASKS_LOCATION = _wrx(
    r"\b(?:which|what)\s+(?:sections?|provisions?|subsections?|paragraphs?|subchapters?|"
    r"subparts?)\b|\bwhich\s+(?:part|chapter|rule|regulation|statute)s?\b|"
    r"\bwhat\s+part\s+of\s+(?:the\s+)?(?:regulation|title|code|cfr|u\.?s\.?c|rules?|statute|"
    r"law|bankruptcy\s+code)\b|"
    r"\bwhere(?:['’]s|\s+(?:in|does|do|is|are|can|could|would|should|will))[^?.;]{0,60}?"
    r"\b(?:find|law|code|regulations?|statutes?|rules?|c\.?f\.?r|u\.?s\.?c|"
    r"covered|addressed|governed|located|found)\b|\bpoint\s+(?:me|us)\s+to\b|"
    r"\bcite\s+the\s+(?:section|provision|rule|regulation|statute)\b"
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


def _is_federal(jurisdiction: str) -> bool:
    return jurisdiction_admits(FEDERAL, jurisdiction)


def _jurisdiction(
    q: str,
    caller: str | None,
    named: list[JurisdictionMention],
    citations: list[Citation],
    default: str,
) -> tuple[JurisdictionInfo, list[JurisdictionMention]]:
    mentions = list(named)
    for c in citations:
        mentions.append(JurisdictionMention(c.jurisdiction, c.span, c.text, "inferred"))
    mentions.sort(key=lambda j: j.span)
    if caller is not None:
        return JurisdictionInfo(caller, "caller", None, None), mentions
    named = [j for j in named if not (_is_federal(j.value) and sets_federal_aside(q, j))]
    federal = [j for j in named if _is_federal(j.value)]
    if federal:  # a state beside federal law: federal law decides how the two relate
        first = next((j for j in federal if j.value == CFPB), federal[0])
        return JurisdictionInfo(first.value, "explicit", first.span, first.text), mentions
    federal_cite = next((c for c in citations if _is_federal(c.jurisdiction)), None)
    cue = _STRONG_BANKRUPTCY.search(q) or bankruptcy_cue(q)
    if named and not cue:  # a state named as a place in a question of federal consumer law
        cue = consumer_finance_cue(q)
    if named and (
        not (federal_cite or cue) or any(names_state_law(q, j) for j in named)
    ):  # the state's own law is asked about: the state named as its source, else the first
        first = next((j for j in named if names_state_law(q, j)), named[0])
        return JurisdictionInfo(first.value, "explicit", first.span, first.text), mentions
    # no state, or states named only as places ("a Delaware corporation", "a debtor living
    # in Ohio") in a question of federal law: a federal citation or bankruptcy words decide
    cite = federal_cite if named else next(iter(citations), None)
    if cite is not None:
        return JurisdictionInfo(cite.jurisdiction, "inferred", cite.span, cite.text), mentions
    if cue and (default == FEDERAL or named):
        mentions.append(JurisdictionMention(FEDERAL, cue.span(), cue.group(0), "inferred"))
        return JurisdictionInfo(FEDERAL, "inferred", cue.span(), cue.group(0)), mentions
    return JurisdictionInfo(default, "default", None, None), mentions


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
    vocabulary: Vocabulary | None = None,
    corpus_jurisdictions: Collection[str] = (),
    default_jurisdiction: str = DEFAULT_JURISDICTION,
) -> ParsedQuery:
    """Parse `question`; raises QueryError (a ValueError) for one that cannot be read. The
    facts read are those the rule library declares (`vocabulary`, default: the packaged
    library's). A caller's jurisdiction may be any the corpus declares
    (`corpus_jurisdictions`); a question that names none gets `default_jurisdiction`."""
    source = _check_question(question)
    vocabulary = vocabulary or default_vocabulary()
    q, to_question = expand_shorthand(source, vocabulary.shorthand)
    if isinstance(today, datetime):
        today = today.date()
    if isinstance(as_of, datetime):
        as_of = as_of.date()
    if as_of is not None and not isinstance(as_of, date):
        raise QueryError(f"as_of must be a date, not {type(as_of).__name__}")
    today = today or date.today()
    caller_juris = (
        normalize_jurisdiction(jurisdiction, corpus_jurisdictions)
        if jurisdiction is not None
        else None
    )

    dates = find_dates(q, today)
    named = find_jurisdictions(q)
    state_ctx = None
    for value in ([caller_juris] if caller_juris else []) + [j.value for j in named]:
        if value.startswith("us-") and "/" not in value and value != FEDERAL:
            state_ctx = value[3:]
            break
    citations, unresolved = find_citations(q, state_context=state_ctx)
    juris, mentions = _jurisdiction(q, caller_juris, named, citations, default_jurisdiction)

    preds = _extract_predicates(q)
    terms = _extract_terms(q)
    excluded = [t.span for t in terms if t.cue != "is_a"]
    bankruptcy = bool(bankruptcy_cue(q)) or any(c.id.startswith("/us/usc/t11/") for c in citations)
    facts, left_open, warnings = _reader(vocabulary).transform(q, dates, excluded, bankruptcy)
    qtype, reason = _query_type(preds, facts, named)
    wanted = _TYPE_PREDICATE.get(qtype, ())
    predicate = next((p for p in preds if p.name in wanted), None)
    if predicate is None:  # e.g. a comparison by two named jurisdictions: the first cue
        predicate = preds[0] if preds else None
    for u in unresolved:
        warnings.append(f"citation {u.text!r} at {u.span[0]}-{u.span[1]} not placed: {u.reason}")

    parsed = ParsedQuery(
        question=q,
        jurisdiction=juris,
        as_of=_as_of(as_of, today, dates),
        citations=tuple(citations),
        facts=tuple(facts),
        left_open=left_open,
        predicate=predicate,
        query_type=qtype,
        type_reason=reason,
        terms=tuple(terms),
        predicates=tuple(preds),
        dates=tuple(dates),
        jurisdictions=tuple(mentions),
        unresolved_citations=tuple(unresolved),
        warnings=tuple(warnings),
        asks_location=bool(ASKS_LOCATION.search(q)),
    )
    return parsed if q == source else _in_question(parsed, source, to_question)


def _in_question(obj: Any, question: str, to_question: Callable[[Span], Span]) -> Any:
    """`obj` (a parse of the question's shorthand read as words) with every span, and the
    text of every span, those of the question itself."""
    if isinstance(obj, tuple):
        return tuple(_in_question(x, question, to_question) for x in obj)
    if not is_dataclass(obj) or isinstance(obj, type):
        return obj
    changes: dict[str, Any] = {}
    for f in fields(obj):
        value = getattr(obj, f.name)
        if f.name == "question":
            changes[f.name] = question
        elif f.name == "span" and value is not None:
            changes[f.name] = to_question(value)
        else:
            changes[f.name] = _in_question(value, question, to_question)
    span = changes.get("span")
    if span is not None and isinstance(getattr(obj, "text", None), str):
        changes["text"] = question[span[0]:span[1]]
    return replace(obj, **changes)


_READERS: dict[int, tuple[Vocabulary, FactReader]] = {}


def _reader(vocabulary: Vocabulary) -> FactReader:
    """One compiled FactReader per vocabulary (kept while the vocabulary lives)."""
    got = _READERS.get(id(vocabulary))
    if got is None or got[0] is not vocabulary:
        got = _READERS[id(vocabulary)] = (vocabulary, FactReader(vocabulary))
    return got[1]


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
