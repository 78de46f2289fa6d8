"""Citations and jurisdictions in a question, normalized to canonical ids.

Part of the deterministic query parser (`structfirst.engine.query_parser`).

Canonical ids (USLM-style, as `structfirst.ingest.model` uses them):
  11 U.S.C. § 547(c)(9)        -> /us/usc/t11/s547/c/9
  12 CFR 1013.2(e)(1)          -> /us/cfr/t12/s1013.2/e/1
  12 CFR part 1013, Regulation M -> /us/cfr/t12/p1013   (B -> p1002, E -> p1005, ...)
  Iowa Code § 321A.1           -> /us/ia/code/s321A.1   (any "<State> Code § X":
                                                        /us/<postal>/code/sX)
  Iowa Code chapter 321A       -> /us/ia/code/ch321A    (Iowa numbering: a section is
                                                        chapter.section, so "§ 321A" with no
                                                        dot names the chapter)

Forms read: "11 U.S.C. § 547(b)", "11 USC 547", "Title 11, section 547", "section 547 of
title 11", "section 547 of the Bankruptcy Code", "Bankruptcy Code § 547", "§ 547",
"§547(c)(9)", "section 547(c)(9)", "sec. 547", "§§ 547 and 548", "subsection (c) of section
547", "paragraph (9) of subsection (c) of section 547", a bare "547(c)(9)" (a number with at
least one parenthesized subdivision), "12 CFR 1013.2(e)(1)", "12 C.F.R. § 1013.2", "12 CFR
part 1013", "§ 1013.2", "Regulation M", "Reg. B", "Iowa Code § 321A.1", "section 321A.1 of
the Iowa Code".

Which code a short form ("§ 547", "§ 1013.2", "§ 321A.1") belongs to (documented rule):
  * a dotted section whose part is 1000-1099 ("§ 1013.2") -> 12 CFR (the CFPB's parts),
    unless the question names another CFR title;
  * a dotted section with a state named (by the caller or in the question) -> that state's
    code; an undotted one there, when the question has no bankruptcy words -> its chapter;
  * an undotted section ("§ 547") -> the U.S.C. title the question names ("15 U.S.C. ...",
    "Title 15") when it names exactly one; else Title 11 when the question is about
    bankruptcy (bankruptcy, debtor, trustee, petition, chapter 7/11/13, ...); else, when the
    question cites the CFR or a Regulation and nothing else, it is left unresolved; else
    Title 11 by default (`title_source == "default"`).
Anything else that looks like a section but cannot be placed is kept in `unresolved`.

Jurisdictions: "us-federal", "us-federal/cfpb" (12 CFR parts 1000-1099, CFPB, Regulations
B/E/M/...), "us-<postal>" for the 50 states, DC and the territories.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from structfirst.engine.query_dates import QueryError, Span

STATES: dict[str, str] = {
    "alabama": "al", "alaska": "ak", "arizona": "az", "arkansas": "ar", "california": "ca",
    "colorado": "co", "connecticut": "ct", "delaware": "de", "florida": "fl", "georgia": "ga",
    "hawaii": "hi", "idaho": "id", "illinois": "il", "indiana": "in", "iowa": "ia",
    "kansas": "ks", "kentucky": "ky", "louisiana": "la", "maine": "me", "maryland": "md",
    "massachusetts": "ma", "michigan": "mi", "minnesota": "mn", "mississippi": "ms",
    "missouri": "mo", "montana": "mt", "nebraska": "ne", "nevada": "nv",
    "new hampshire": "nh", "new jersey": "nj", "new mexico": "nm", "new york": "ny",
    "north carolina": "nc", "north dakota": "nd", "ohio": "oh", "oklahoma": "ok",
    "oregon": "or", "pennsylvania": "pa", "rhode island": "ri", "south carolina": "sc",
    "south dakota": "sd", "tennessee": "tn", "texas": "tx", "utah": "ut", "vermont": "vt",
    "virginia": "va", "washington": "wa", "west virginia": "wv", "wisconsin": "wi",
    "wyoming": "wy", "district of columbia": "dc", "washington, d.c.": "dc",
    "washington d.c.": "dc", "washington, dc": "dc", "washington dc": "dc",
    "puerto rico": "pr", "guam": "gu", "u.s. virgin islands": "vi", "virgin islands": "vi",
    "american samoa": "as", "northern mariana islands": "mp",
}  # fmt: skip
POSTAL: frozenset[str] = frozenset(STATES.values())
# Postal codes that are also common words or abbreviations: read only before "law", "code",...
_AMBIGUOUS_POSTAL = frozenset(
    {
        "in",
        "or",
        "me",
        "ok",
        "hi",
        "de",
        "as",
        "id",
        "co",
        "la",
        "pa",
        "md",
        "ms",
        "mt",
        "ma",
        "oh",
        "us",
        "vi",
        "mp",
        "gu",
    }
)

# CFPB regulations (12 CFR chapter X) by letter.
REGULATIONS: dict[str, int] = {
    "B": 1002, "C": 1003, "E": 1005, "F": 1006, "M": 1013, "P": 1016, "V": 1022, "X": 1024,
    "Z": 1026, "DD": 1030,
}  # fmt: skip
REGULATION_NAME: dict[int, str] = {part: letter for letter, part in REGULATIONS.items()}

FEDERAL = "us-federal"
CFPB = "us-federal/cfpb"
DEFAULT_JURISDICTION = FEDERAL

ACCEPTED_JURISDICTION_FORMS = (
    "'us-federal', 'us-federal/cfpb', 'us-<postal>' (e.g. 'us-ia'), a state name ('Iowa'), "
    "a two-letter postal abbreviation ('IA'), 'federal', 'United States', 'CFPB'"
)


def normalize_jurisdiction(value: str, corpus: Collection[str] = ()) -> str:
    """A caller-given jurisdiction in canonical form: one the corpus declares (any code, as
    ingested, e.g. `jp`), or a US form; QueryError listing the accepted forms."""
    if not isinstance(value, str) or not value.strip():
        raise QueryError(_unknown_jurisdiction(value, corpus))
    v = " ".join(value.strip().lower().split())
    declared = {j.lower(): j for j in corpus}
    if v in declared:
        return declared[v]
    if v in (FEDERAL, "federal", "us", "u.s.", "usa", "united states", "us-fed", "fed"):
        return FEDERAL
    if v in (CFPB, "cfpb", "consumer financial protection bureau", "us-cfpb", "federal/cfpb"):
        return CFPB
    if v.startswith("us-") and v[3:] in POSTAL:
        return v
    if v in STATES:
        return f"us-{STATES[v]}"
    if v in POSTAL:
        return f"us-{v}"
    raise QueryError(_unknown_jurisdiction(value, corpus))


def _unknown_jurisdiction(value: object, corpus: Collection[str]) -> str:
    declared = f"; the corpus declares: {', '.join(sorted(corpus))}" if corpus else ""
    forms = ACCEPTED_JURISDICTION_FORMS
    return f"unknown jurisdiction {value!r}; accepted forms: {forms}{declared}"


def cfr_jurisdiction(title: int, part: int) -> str:
    return CFPB if title == 12 and 1000 <= part <= 1099 else FEDERAL


@dataclass(frozen=True, slots=True)
class JurisdictionMention:
    value: str
    span: Span
    text: str
    how: str  # "explicit" (named) | "inferred" (from a citation or bankruptcy words)


@dataclass(frozen=True, slots=True)
class Citation:
    """One citation in the question, normalized."""

    id: str  # canonical id, e.g. "/us/usc/t11/s547/c/9"
    text: str  # as written
    span: Span
    kind: str  # "usc_section" | "cfr_section" | "cfr_part" | "state_section" | "state_chapter"
    jurisdiction: str
    canonical: str  # human form, e.g. "11 U.S.C. § 547(c)(9)"
    title_source: str  # "explicit" | "context" | "bankruptcy_context" | "default"


@dataclass(frozen=True, slots=True)
class UnresolvedCitation:
    text: str
    span: Span
    reason: str


# --- patterns ---------------------------------------------------------------------------

_SUB = r"\((?:\d{1,3}[A-Za-z]?|[a-z]{1,2}|[A-Z]{1,2}|x{0,3}(?:ix|iv|v?i{1,3})|X{0,3}(?:IX|IV|V?I{1,3}))\)"  # noqa: E501
_SUBS = rf"(?:\s?{_SUB}(?:{_SUB})*)?"
_SUB_RE = re.compile(r"\(([^()]+)\)")
_USC_SEC = r"\d{1,5}[a-zA-Z]{0,2}(?:-\d+)?"
_ANY_SEC = r"\d{1,5}[A-Za-z]{0,2}(?:\.\d+[A-Za-z]{0,2})?(?:-\d+)?"
_SEC_WORD = r"(?:§§?|\bsections?\b\.?|\bsecs?\.|\bsec\b)"
_STATE_NAMES = "|".join(sorted((re.escape(s) for s in STATES), key=len, reverse=True))

USC_RE = re.compile(
    rf"\b(?P<title>\d{{1,2}})\s*U\.?\s?S\.?\s?C\.?(?:\s?A\.?)?\s*(?:{_SEC_WORD}\s*)?"
    rf"(?P<sec>{_USC_SEC})(?P<subs>{_SUBS})",
    re.I,
)
TITLE_SEC_RE = re.compile(
    rf"\btitle\s+(?P<title>\d{{1,2}})(?:\s+of\s+the\s+United\s+States\s+Code)?,?\s*"
    rf"{_SEC_WORD}\s*(?P<sec>{_USC_SEC})(?P<subs>{_SUBS})",
    re.I,
)
BANKR_CODE_SEC_RE = re.compile(
    rf"\bBankruptcy\s+Code(?:'s)?,?\s*{_SEC_WORD}?\s*(?P<sec>{_USC_SEC})(?P<subs>{_SUBS})",
    re.I,
)
CFR_RE = re.compile(
    rf"\b(?P<title>\d{{1,2}})\s*C\.?\s?F\.?\s?R\.?\s*(?:(?P<partword>\bparts?\b|\bpt\.)|"
    rf"{_SEC_WORD})?\s*(?P<part>\d{{1,4}})(?:\.(?P<secn>\d+[a-z]?))?(?P<subs>{_SUBS})",
    re.I,
)
STATE_CODE_RE = re.compile(
    rf"\b(?P<state>{_STATE_NAMES})(?:'s)?\s+Code(?:\s+Ann(?:otated|\.)?)?,?\s*"
    rf"(?:(?P<chword>\bchapters?\b|\bch\.)|{_SEC_WORD})?\s*(?P<sec>{_ANY_SEC})(?P<subs>{_SUBS})",
    re.I,
)
# "subsection (c) of section 547", "paragraph (9) of subsection (c) of section 547(x)"
CHAIN_RE = re.compile(
    rf"(?P<chain>(?:\b(?:sub)?(?:clause|paragraph|subsection|section)\s+{_SUB}(?:{_SUB})*"
    rf"\s+of\s+)+){_SEC_WORD}\s*(?P<sec>{_ANY_SEC})(?P<subs>{_SUBS})",
    re.I,
)
# "§ 547", "section 547(c)(9)", "§§ 547 and 548"
SEC_RE = re.compile(
    rf"(?P<word>{_SEC_WORD})\s*(?P<sec>{_ANY_SEC})(?P<subs>{_SUBS})"
    rf"(?P<more>(?:\s*(?:,\s*and|,\s*or|,|and|or|&)\s*{_ANY_SEC}{_SUBS})*)",
    re.I,
)
LIST_ITEM_RE = re.compile(rf"(?P<sec>{_ANY_SEC})(?P<subs>{_SUBS})")
# a bare "547(c)(9)" / "1013.2(e)(1)": needs at least one subdivision
BARE_RE = re.compile(rf"(?<![\w.,§$/-])(?P<sec>\d{{3,4}}(?:\.\d+)?)(?P<subs>(?:{_SUB})+)")
# what follows a short form and names its code: "of title 11", "of the Bankruptcy Code", ...
_TRAIL_RE = re.compile(
    rf"\s*,?\s+of\s+(?:(?:title\s+(?P<title>\d{{1,2}})(?:\s+of\s+the\s+United\s+States\s+Code)?)"
    rf"|(?:the\s+)?(?P<bankr>Bankruptcy\s+Code)|(?:the\s+)?(?P<state>{_STATE_NAMES})\s+Code"
    rf"|(?P<reg>Regulation\s+[A-Z]{{1,2}}\b))",
    re.I,
)
REG_RE = re.compile(r"\b(?:Regulation|Reg\.?)\s+(?P<letter>[A-Z]{1,2})\b")
PART_RE = re.compile(r"\bpart\s+(?P<part>10\d\d)\b", re.I)

TITLE_WORD_RE = re.compile(r"\btitle\s+(?P<title>\d{1,2})\b", re.I)
BANKRUPTCY_CUE_RE = re.compile(
    r"\b(?:bankrupt(?:cy|cies)?|debtors?|trustees?|petitions?|preferen(?:ce|ces|tial)|"
    r"discharge(?:d|able|ability)?|nondischargeable|chapter\s+(?:7|9|11|12|13|15)|"
    r"order\s+for\s+relief|automatic\s+stay|insiders?|exemptions)\b",
    re.I,
)
CFR_CUE_RE = re.compile(
    r"\bC\.?\s?F\.?\s?R\b|\bRegulation\s+[A-Z]{1,2}\b|\bReg\.?\s+[A-Z]\b|\bCFPB\b"
)
FEDERAL_WORD_RE = re.compile(r"\bfederal(?:ly)?\b", re.I)
CFPB_WORD_RE = re.compile(r"\bCFPB\b|\bConsumer\s+Financial\s+Protection\s+Bureau\b", re.I)
_WORD_RE = re.compile(r"[A-Za-z]+")
_DC_RE = re.compile(r"\bWashington,?\s+D\.?\s?C\b\.?|\bDistrict\s+of\s+Columbia\b", re.I)
_STATE_WORDS: dict[str, list[tuple[str, ...]]] = {}
for _name in STATES:
    if "." not in _name and "," not in _name:
        _words = tuple(_name.split())
        _STATE_WORDS.setdefault(_words[0], []).append(_words)
for _key in _STATE_WORDS:
    _STATE_WORDS[_key].sort(key=len, reverse=True)


def _state_names(question: str) -> list[tuple[Span, str]]:
    """State and territory names, longest first ("West Virginia" over "Virginia"), found by
    a dictionary look-up over words rather than one large alternation (faster)."""
    out: list[tuple[Span, str]] = []
    taken_until = -1
    for m in _DC_RE.finditer(question):
        out.append((m.span(), "district of columbia"))
    dc = [sp for sp, _ in out]
    words = [(w.start(), w.end(), w.group().lower()) for w in _WORD_RE.finditer(question)]
    for i, (start, _end, word) in enumerate(words):
        if start < taken_until or word not in _STATE_WORDS:
            continue
        for cand in _STATE_WORDS[word]:
            seq = words[i : i + len(cand)]
            if (
                len(seq) == len(cand)
                and tuple(w for _, _, w in seq) == cand
                and all(question[seq[k][1] : seq[k + 1][0]].isspace() for k in range(len(seq) - 1))
            ):
                span = (start, seq[-1][1])
                if not _overlaps(span, dc):
                    out.append((span, " ".join(cand)))
                taken_until = span[1]
                break
    out.sort()
    return out


POSTAL_RE = re.compile(
    r"\b(?P<pc>[A-Z]{2})\b(?=\s+(?:law|laws|code|statutes?|rules?|regulations?|courts?|"
    r"insurance|requires?)\b)|\b(?i:in|under)\s+(?P<pc2>[A-Z]{2})\b(?![\w(])"
)


def _subs_of(text: str) -> list[str]:
    return _SUB_RE.findall(text or "")


def usc_id(title: int | str, section: str, subs: list[str]) -> str:
    return "/".join([f"/us/usc/t{title}/s{section}", *subs])


def usc_canonical(title: int | str, section: str, subs: list[str]) -> str:
    return f"{title} U.S.C. § {section}" + "".join(f"({s})" for s in subs)


def cfr_section_id(title: int | str, section: str, subs: list[str]) -> str:
    return "/".join([f"/us/cfr/t{title}/s{section}", *subs])


def cfr_part_id(title: int | str, part: int | str) -> str:
    return f"/us/cfr/t{title}/p{part}"


def _usc_cite(
    text: str, span: Span, title: int, sec: str, subs: list[str], source: str
) -> Citation:
    return Citation(
        usc_id(title, sec, subs),
        text,
        span,
        "usc_section",
        FEDERAL,
        usc_canonical(title, sec, subs),
        source,
    )


def _cfr_cite(
    text: str, span: Span, title: int, part: int, secn: str | None, subs: list[str], source: str
) -> Citation:
    juris = cfr_jurisdiction(title, part)
    if secn is None:
        canon = f"{title} CFR part {part}"
        return Citation(cfr_part_id(title, part), text, span, "cfr_part", juris, canon, source)
    section = f"{part}.{secn}"
    canon = f"{title} CFR {section}" + "".join(f"({s})" for s in subs)
    return Citation(
        cfr_section_id(title, section, subs), text, span, "cfr_section", juris, canon, source
    )


def _state_cite(
    text: str, span: Span, postal: str, sec: str, subs: list[str], chapter_word: bool, source: str
) -> Citation:
    juris = f"us-{postal}"
    name = next((k.title() for k, v in STATES.items() if v == postal), postal.upper())
    sec = sec.upper() if re.fullmatch(r"[\d.]+[a-z]{0,2}(?:\.\d+)?", sec) else sec
    if chapter_word or "." not in sec:
        return Citation(
            f"/us/{postal}/code/ch{sec}",
            text,
            span,
            "state_chapter",
            juris,
            f"{name} Code ch. {sec}",
            source,
        )
    ident = "/".join([f"/us/{postal}/code/s{sec}", *subs])
    canon = f"{name} Code § {sec}" + "".join(f"({s})" for s in subs)
    return Citation(ident, text, span, "state_section", juris, canon, source)


def _overlaps(span: Span, taken: list[Span]) -> bool:
    return any(span[0] < b and a < span[1] for a, b in taken)


@dataclass(frozen=True, slots=True)
class _Context:
    usc_title: int | None  # the one U.S.C. title the question names, if exactly one
    bankruptcy: bool
    cfr: bool
    cfr_title: int | None
    state: str | None  # postal code of the state context (caller's or named)


def find_citations(
    question: str, *, state_context: str | None
) -> tuple[list[Citation], list[UnresolvedCitation]]:
    """All citations, in order of position, and the short forms that could not be placed."""
    found: list[Citation] = []
    unresolved: list[UnresolvedCitation] = []
    taken: list[Span] = []

    def add(c: Citation) -> None:
        found.append(c)
        taken.append(c.span)

    usc_titles: set[int] = set()
    cfr_titles: set[int] = set()

    def add_usc(m: re.Match[str], title: int) -> None:
        subs = _subs_of(m["subs"])
        span = (m.start(), m.end("subs") if m["subs"] else m.end("sec"))
        add(_usc_cite(question[span[0] : span[1]], span, title, m["sec"], subs, "explicit"))

    for m in USC_RE.finditer(question):
        usc_titles.add(int(m["title"]))
        add_usc(m, int(m["title"]))
    for m in TITLE_SEC_RE.finditer(question):
        if _overlaps(m.span(), taken):
            continue
        usc_titles.add(int(m["title"]))
        add_usc(m, int(m["title"]))
    for m in TITLE_WORD_RE.finditer(question):
        usc_titles.add(int(m["title"]))
    for m in BANKR_CODE_SEC_RE.finditer(question):
        if not _overlaps(m.span(), taken):
            add_usc(m, 11)
    for m in CFR_RE.finditer(question):
        if _overlaps(m.span(), taken):
            continue
        title, part = int(m["title"]), int(m["part"])
        cfr_titles.add(title)
        subs = _subs_of(m["subs"])
        end = m.end("subs") if m["subs"] else (m.end("secn") if m["secn"] else m.end("part"))
        span = (m.start(), end)
        add(_cfr_cite(question[span[0] : span[1]], span, title, part, m["secn"], subs, "explicit"))
    for m in STATE_CODE_RE.finditer(question) if "code" in question.lower() else ():
        if _overlaps(m.span(), taken):
            continue
        postal = STATES[" ".join(m["state"].lower().split())]
        subs = _subs_of(m["subs"])
        span = (m.start(), m.end("subs") if m["subs"] else m.end("sec"))
        add(
            _state_cite(
                question[span[0] : span[1]],
                span,
                postal,
                m["sec"],
                subs,
                bool(m["chword"]),
                "explicit",
            )
        )

    ctx = _Context(
        usc_title=next(iter(usc_titles)) if len(usc_titles) == 1 else None,
        bankruptcy=bool(BANKRUPTCY_CUE_RE.search(question)),
        cfr=bool(CFR_CUE_RE.search(question)) or bool(cfr_titles),
        cfr_title=next(iter(cfr_titles)) if len(cfr_titles) == 1 else None,
        state=state_context,
    )

    def place(text: str, span: Span, sec: str, subs: list[str], trail: re.Match | None) -> None:
        """Place a short-form section; `trail` is a following "of title 11"-like phrase."""
        if trail is not None:
            if trail["title"]:
                t = int(trail["title"])
                add(_usc_cite(text, span, t, sec, subs, "explicit"))
                return
            if trail["bankr"]:
                add(_usc_cite(text, span, 11, sec, subs, "explicit"))
                return
            if trail["state"]:
                postal = STATES[" ".join(trail["state"].lower().split())]
                add(_state_cite(text, span, postal, sec, subs, False, "explicit"))
                return
            if trail["reg"] and "." in sec:
                part = int(sec.split(".")[0])
                add(_cfr_cite(text, span, 12, part, sec.split(".", 1)[1], subs, "explicit"))
                return
        if "." in sec:
            head, tail = sec.split(".", 1)
            if head.isdigit() and ctx.cfr_title is not None:
                add(_cfr_cite(text, span, ctx.cfr_title, int(head), tail, subs, "context"))
                return
            if head.isdigit() and 1000 <= int(head) <= 1099:
                add(
                    _cfr_cite(
                        text, span, 12, int(head), tail, subs, "context" if ctx.cfr else "default"
                    )
                )
                return
            if ctx.state:
                add(_state_cite(text, span, ctx.state, sec, subs, False, "context"))
                return
            unresolved.append(
                UnresolvedCitation(
                    text, span, "no code for a dotted section: name the CFR title or the state"
                )
            )
            return
        if ctx.usc_title is not None:
            add(_usc_cite(text, span, ctx.usc_title, sec, subs, "context"))
        elif ctx.state and not ctx.bankruptcy:
            add(_state_cite(text, span, ctx.state, sec, subs, False, "context"))
        elif ctx.bankruptcy:
            add(_usc_cite(text, span, 11, sec, subs, "bankruptcy_context"))
        elif ctx.cfr:
            unresolved.append(
                UnresolvedCitation(
                    text, span, "an undotted section in a question that cites only the CFR"
                )
            )
        else:
            add(_usc_cite(text, span, 11, sec, subs, "default"))

    for m in CHAIN_RE.finditer(question):
        if _overlaps(m.span(), taken):
            continue
        # innermost first in the text: reverse the chain, then the section's own subdivisions
        chain = [_subs_of(part) for part in re.split(r"\s+of\s+", m["chain"].strip()) if part]
        subs = _subs_of(m["subs"])
        for part in reversed(chain):
            subs.extend(part)
        span = (m.start(), m.end("subs") if m["subs"] else m.end("sec"))
        trail = _TRAIL_RE.match(question, span[1])
        if trail:
            span = (span[0], trail.end())
        place(question[span[0] : span[1]], span, m["sec"], subs, trail)
    for m in SEC_RE.finditer(question):
        if _overlaps(m.span("sec"), taken):
            continue
        first_end = m.end("subs") if m["subs"] else m.end("sec")
        items = [(m.start(), first_end, m["sec"], _subs_of(m["subs"]))]
        if m["more"]:
            for it in LIST_ITEM_RE.finditer(question, m.start("more"), m.end("more")):
                end = it.end("subs") if it["subs"] else it.end("sec")
                items.append((it.start(), end, it["sec"], _subs_of(it["subs"])))
        trail = _TRAIL_RE.match(question, items[-1][1])
        for a, b, sec, subs in items:
            span = (a, trail.end()) if (trail and len(items) == 1) else (a, b)
            place(question[span[0] : span[1]], span, sec, subs, trail)
    for m in BARE_RE.finditer(question):
        if _overlaps(m.span(), taken) or any(
            m.start() < u.span[1] and u.span[0] < m.end() for u in unresolved
        ):
            continue
        place(m.group(0), m.span(), m["sec"], _subs_of(m["subs"]), None)
    for m in REG_RE.finditer(question):
        part = REGULATIONS.get(m["letter"])
        if part is None or _overlaps(m.span(), taken):
            continue
        add(_cfr_cite(m.group(0), m.span(), 12, part, None, [], "explicit"))
    for m in PART_RE.finditer(question):
        if _overlaps(m.span(), taken) or not ctx.cfr:
            continue
        part = int(m["part"])
        add(_cfr_cite(m.group(0), m.span(), 12, part, None, [], "context"))
    found.sort(key=lambda c: c.span)
    unresolved.sort(key=lambda u: u.span)
    return found, unresolved


def find_jurisdictions(question: str) -> list[JurisdictionMention]:
    """Jurisdictions *named* in the question (how == "explicit"), in order."""
    out: list[JurisdictionMention] = []
    for span, name in _state_names(question):
        out.append(
            JurisdictionMention(f"us-{STATES[name]}", span, question[span[0] : span[1]], "explicit")
        )
    for m in POSTAL_RE.finditer(question):
        grp = "pc" if m["pc"] else "pc2"
        pc = m[grp].lower()
        if pc not in POSTAL or (grp == "pc2" and pc in _AMBIGUOUS_POSTAL):
            continue
        out.append(JurisdictionMention(f"us-{pc}", m.span(grp), m[grp], "explicit"))
    for m in FEDERAL_WORD_RE.finditer(question):
        out.append(JurisdictionMention(FEDERAL, m.span(), m.group(0), "explicit"))
    for m in CFPB_WORD_RE.finditer(question):
        out.append(JurisdictionMention(CFPB, m.span(), m.group(0), "explicit"))
    for m in REG_RE.finditer(question):
        if m["letter"] in REGULATIONS:
            out.append(JurisdictionMention(CFPB, m.span(), m.group(0), "explicit"))
    out.sort(key=lambda j: j.span)
    dedup: list[JurisdictionMention] = []
    for j in out:
        if dedup and dedup[-1].span == j.span:
            continue
        dedup.append(j)
    return dedup


# A state named as a source of law ("Iowa law", "the Iowa Code", "New York's Executive Law",
# "a Florida credit statute", "Georgia's unclaimed property law"), as against a state named as
# a place or a party's home ("a Delaware corporation", "a debtor living in Ohio", "an Iowa city").
# A possessive is the state's own rule ("Iowa's homestead exemption"), as is a state act
# ("Pennsylvania's Deficiency Judgment Act", "the Wisconsin Consumer Act").
_STATE_LAW_AFTER_RE = re.compile(
    r"(?:'s|\u2019s)(?!\s+(?:(?:bankruptcy\s+)?(?:courts?|districts?)|federal|cities|counties|"
    r"towns|municipalities|residents|citizens|people|debtors|businesses|companies|banks)\b)\b"
    r"|(?:'s|\u2019s)?\s+(?:own\s+)?(?:[\w-]+\s+){0,2}?"
    r"(?:laws?|codes?|statutes?|constitution|legislature|legislation)\b"
    r"|(?:'s|\u2019s)?(?:\s+[A-Z][\w-]*){0,3}\s+(?-i:Act)\b",
    re.I,
)
# federal law named to be set aside: "setting aside federal servicing rules", "not the federal
# one", "not asking about the federal Magnuson-Moss act", "leaving federal law aside"
_SET_ASIDE_BEFORE_RE = re.compile(
    r"(?:\bnot(?:\s+(?:asking|talking)\s+about)?|\bsetting\s+aside|\b(?:aside|apart)\s+from|"
    r"\bother\s+than|\bignoring)\s+(?:the\s+|any\s+)?$",
    re.I,
)
_SET_ASIDE_AFTER_RE = re.compile(r"(?:\s+[\w-]+){0,3}\s+aside\b", re.I)
# the topics of Regulations B, E and M: federal consumer-finance law wherever the asker lives
_CONSUMER_FINANCE_CUE_RE = re.compile(
    r"\b(?:debit\s+cards?|ATMs?|electronic\s+(?:fund\s+)?transfers?|remittances?|"
    r"gift\s+cards?|prepaid\s+cards?|credit\s+applications?|adverse\s+action|"
    r"equal\s+credit|consumer\s+leases?|(?:car|auto|vehicle)\s+leases?|lease\s+disclosures?)\b",
    re.I,
)


def names_state_law(question: str, mention: JurisdictionMention) -> bool:
    """Whether the state `mention` is named as the source of law the question asks about."""
    return bool(_STATE_LAW_AFTER_RE.match(question, mention.span[1]))


def sets_federal_aside(question: str, mention: JurisdictionMention) -> bool:
    """Whether the federal `mention` names federal law only to set it aside."""
    a, b = mention.span
    return bool(_SET_ASIDE_BEFORE_RE.search(question, max(0, a - 30), a)
                or _SET_ASIDE_AFTER_RE.match(question, b))


def bankruptcy_cue(question: str) -> re.Match[str] | None:
    """The first bankruptcy word of `question`, if any."""
    return BANKRUPTCY_CUE_RE.search(question)


def consumer_finance_cue(question: str) -> re.Match[str] | None:
    """The first word of the topics of Regulations B, E and M in `question`, if any."""
    return _CONSUMER_FINANCE_CUE_RE.search(question)
