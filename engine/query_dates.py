"""Date mentions in a question: where they are, what they say, what role they play.

Part of the deterministic query parser (`structfirst.engine.query_parser`). Every mention
keeps the character span of the question it was read from.

Formats read (month names may be abbreviated, with or without a period; ordinals allowed):
  "June 1, 2016" / "June 1 2016" / "1 June 2016" / "June 1st of 2016" / "June 1 (2016)"
                                                     -> a day
  "December first 2020", "June the twenty-first, 2019" (a day's ordinal in words) -> a day
  "November 1-5, 2004" (days of one month), "11/20/2004-12/31/2004"
                                                     -> its first day, a day that starts a
                                                        period ("earned November 1-5, 2004")
  "2016-06-01" (ISO) / "6/1/2016", "6-1-2016", "6/1/16" (US order M/D/Y)  -> a day
  "June 2011"                                        -> a month
  "June 2011 (the 14th)", "June 2011 (6/14)", "November 2018 (around Nov 30)", "May 2025, on
  the 19th"
                                                     -> a day
  "2012" or "'12" only after a preposition cue ("in 2012", "during 2012", "as of 2012", "since
  2012", "back in '97", ...) or before the case it dates ("my 2002 bankruptcy", "a 1999
  chapter 11")                                       -> a year; a bare "2005" (as in "the 2005
  amendments") is not taken as a date.
  "June 14", "on 7/15" without a year                -> a day, in the one year the question
  names ("Back in '97 I filed on June 14", "on April 8th ... filed May 8, 2019"); no date when
  it names none or several; "June 14 of that year" -> in the year of the date before it.
  A holiday on a fixed day ("New Year's Day 2021", "Halloween 2016", "Valentine's Day") or a
  federal holiday on a weekday of its month ("Labor Day 2024", "Thanksgiving", "Black
  Friday"), or the weekday or the day just after or before one ("the Tuesday after Memorial
  Day that year", "the day after Black Friday 2016")
                                                     -> that day, a year as for "June 14".
A two-digit year is the one of the 1900s or 2000s no later than a year after `today`.
  "today", "as of now", "right now", "the current version/law/threshold/..." -> `today`

Point chosen for a period (documented choice): the *midpoint* of the named period, i.e. the
15th for a month ("June 2011" -> 2011-06-15) and July 1 for a year ("in 2012" -> 2012-07-01).
A version boundary inside the period (e.g. the §104 adjustments that take effect every third
April 1) is then resolved toward the version in force for most of the period; the full
period is kept (`period_start`, `period_end`, inclusive) so that a caller can see the
uncertainty. A modifier shifts the point: "before/prior to X" -> the day before X starts,
"after X" -> the day after X ends, "on or before/until/through X" -> the last day of X,
"on or after/since/from X" -> the first day of X.

Roles (from the words just before the date, within its clause; the nearest cue wins):
  as_of     "as of X", "as of policy issuance on X", "effective X", "in effect on X"
  filing    "filed on X", "a case filed in X", "petition date of X", "commenced on X", "went
            bankrupt on X", "put into chapter 7 on X"; and,
            from the words just after it, "my employer's X bankruptcy filing", "a X petition",
            "my X bankruptcy", "on X, I filed my petition"
  transfer  "paid ... on X", "transferred on X", "payment was made on X", "a lump sum on X";
            and, from the words just after it, "on X she repaid her sister"
  generic   any other date (a point in time the question is about)
A day said again, exactly, after a vaguer mention of its event ("filed chapter 7 this spring.
You'd like the exact date? May 10, 2023.", "..., to be exact") takes the role of the nearest cue
word before it, unless an earlier day has that role.

An impossible date ("February 30, 2016", "2016-13-01") raises `QueryError` naming the text
and its span.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta

from structfirst.ingest.uscode import MONTHS
from structfirst.rules.fact_schema import NUMBER_WORDS, TENS_WORDS, W99
from structfirst.rules.functions import weekday_holiday

Span = tuple[int, int]


class QueryError(ValueError):
    """A question the parser cannot accept; the message says what and where."""

    def __init__(self, message: str, *, span: Span | None = None, text: str | None = None):
        super().__init__(message)
        self.span = span
        self.text = text


_MON = r"(?:january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)"  # noqa: E501
_ORD = r"(?:st|nd|rd|th)?"
# the ordinals of a month's days in words ("december first 2020")
_ORD_WORDS = {w: i for i, w in enumerate(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
    "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth".split(),
    1)}
_ORD_WORDS |= {f"twenty{sep}{w}": 20 + i for sep in (" ", "-") for w, i in _ORD_WORDS.items()
               if i < 10}
_ORD_WORDS |= {"thirtieth": 30, "thirty-first": 31, "thirty first": 31}
# a year in words: "two thousand twenty-two", "twenty twenty", "twenty oh five", "nineteen
# ninety-nine"
_OH_ONES = rf"oh[\s-](?:{'|'.join(NUMBER_WORDS[1:10])})"
_YEAR_WORDS = (rf"(?:two\s+thousand(?:\s+(?:and\s+)?{W99})?|twenty[\s-](?:{_OH_ONES}|{W99})|"
               rf"nineteen[\s-](?:{_OH_ONES}|{W99}))")
_DAY_WORD = "(?:" + "|".join(sorted((re.escape(w).replace(r"\ ", r"\s+") for w in _ORD_WORDS),
                                    key=len, reverse=True)) + ")"
# a month's name and a day ("April 10", "Sept. 3rd")
MONTH_DAY = rf"{_MON}\.?\s+\d{{1,2}}{_ORD}"
# holidays on a fixed day of the year
_HOLIDAYS = {"new years day": (1, 1), "valentines day": (2, 14), "independence day": (7, 4),
            "fourth of july": (7, 4), "4th of july": (7, 4), "halloween": (10, 31),
            "christmas eve": (12, 24), "christmas day": (12, 25), "christmas": (12, 25),
            "new years eve": (12, 31)}
# other names of the holidays on a weekday of their month (`rules.functions.WEEKDAY_HOLIDAYS`)
_HOLIDAY_ALIASES = {"martin luther king jr day": "martin luther king day",
                    "mlk day": "martin luther king day", "thanksgiving": "thanksgiving day",
                    "labour day": "labor day"}
_HOLIDAY = (r"(?:new\s+year['’]?s\s+(?:day|eve)|valentine['’]?s\s+day|independence\s+day|"
            r"(?:the\s+)?(?:fourth|4th)\s+of\s+july|halloween|christmas(?:\s+(?:day|eve))?|"
            r"(?:martin\s+luther\s+king(?:,?\s+jr\.?)?|mlk)\s+day|presidents['’]?\s+day|"
            r"memorial\s+day|labou?r\s+day|columbus\s+day|thanksgiving(?:\s+day)?|black\s+friday)")
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_YEAR_CUE = (
    r"(?:\b(?:in|during|as\s+of|since|before|after|until|through|by|from|prior\s+to|"
    r"effective)\s+(?:(?:the\s+)?(?:calendar\s+|fiscal\s+)?year\s+)?)"
)

DATE_RE = re.compile(  # every alternative starts a word: the lookahead skips other positions
    rf"""
    (?=\b\w)(?:
    (?P<mdy>\b(?P<mdy_m>{_MON})\.?\s+(?:(?P<mdy_d>\d{{1,2}}){_ORD}|(?:the\s+)?(?P<mdy_dw>{_DAY_WORD}))
        (?P<mdy_to>\s*[-–]\s*\d{{1,2}}{_ORD})?,?\s+(?:of\s+)?
        (?:(?P<mdy_y>\d{{4}})\b|\((?P<mdy_y2>\d{{4}})\)|['’](?P<mdy_yy>\d{{2}})\b
           |(?P<mdy_yw>{_YEAR_WORDS})\b))
  | (?P<my>\b(?P<my_m>{_MON})\.?,?\s+(?:of\s+)?(?P<my_y>\d{{4}})\b
        (?:\s*\((?:on\s+|around\s+|about\s+|roughly\s+|circa\s+)?(?:the\s+)?
              (?:(?P<my_m2>{_MON})\.?\s+)?(?P<my_d>\d{{1,2}}){_ORD}\)
         |\s*\(\d{{1,2}}/(?P<my_d2>\d{{1,2}})\)
         |,?\s+on\s+the\s+(?P<my_d3>\d{{1,2}})(?:st|nd|rd|th)\b)?)
  | (?P<dmy>\b(?:(?P<dmy_d>\d{{1,2}}){_ORD}|(?:the\s+)?(?P<dmy_dw>{_DAY_WORD}))\s+(?:of\s+)?
        (?P<dmy_m>{_MON})\.?,?\s+(?P<dmy_y>\d{{4}})\b)
  | (?P<iso>(?<![\w./-])(?P<iso_y>\d{{4}})-(?P<iso_m>\d{{1,2}})-(?P<iso_d>\d{{1,2}})(?![\w/-]))
  | (?P<num>(?<![\w./-])(?P<num_m>\d{{1,2}})(?P<sep>[/-])(?P<num_d>\d{{1,2}})(?P=sep)
        (?P<num_y>\d{{4}}|\d{{2}})
        (?:(?P<num_to>[ \t]*[-–][ \t]*\d{{1,2}}/\d{{1,2}}/(?:\d{{4}}|\d{{2}})(?![\w/-]))
         |(?![\w/-])))
  | (?:{_YEAR_CUE}(?:(?P<yr>(?<![\w$.,-])(?:1[89]|2[01])\d{{2}})|['’](?P<yr2>\d{{2}}))\b
        (?![-/]\d)  # (the year of an ISO or dashed day: "from 2005-01-10")
        (?!\s*(?:U\.?\s?S\.?\s?C|C\.?\s?F\.?\s?R|%|percent|dollars|amendments?)))
  | (?P<yrc>(?<![\w$.,/-])(?:1[89]|2[01])\d{{2}}
        (?=\s+(?:chapter|ch\.?\s*\d|bankruptcy|case|petition|filing)\b))
  | (?P<md>\b(?P<md_m>{_MON})\.?\s+(?:(?P<md_d>\d{{1,2}}){_ORD}|(?:the\s+)?(?P<md_dw>{_DAY_WORD}))
        \b(?![,.]?\s*\d|/)
        (?P<md_that>,?\s+(?:of\s+)?(?:that|the\s+same|that\s+same)\s+year\b)?)
  | (?P<nmd>(?<=\bon\s)(?P<nmd_m>1[0-2]|0?[1-9])/(?P<nmd_d>3[01]|[12]\d|0?[1-9])(?![\w/.-]|\.\d))
  | (?P<dm>\b(?:the\s+)?(?:(?P<dm_d>\d{{1,2}})(?:st|nd|rd|th)|(?P<dm_dw>{_DAY_WORD}))\s+of\s+
        (?P<dm_m>{_MON})\b
        (?![.,]?\s*\d)(?P<dm_that>,?\s+(?:of\s+)?(?:that|the\s+same|that\s+same)\s+year\b)?)
  | (?P<hol>\b(?:(?:the\s+)?(?P<hol_wd>{"|".join(_WEEKDAYS)}|day)\s+(?P<hol_rel>after|before)\s+)?
        (?P<hol_n>{_HOLIDAY})(?:,?\s+(?:of\s+)?(?P<hol_y>\d{{4}})
        |(?P<hol_that>,?\s+(?:of\s+)?(?:that|the\s+same|that\s+same)\s+year))?\b)
  | (?P<today>\b(?:today|now|current)\b)
    )""",
    re.I | re.X,
)

# Cue patterns, applied to the clause text just before a date. Each ends at the date: the
# greedy lead makes the match's keyword the *last* one in the window.
_GAP = r"(?:[\s,:]+(?:\([^()]{{0,60}}\)|[\w'’$,.()§#-]+)){{0,{n}}}?[\s,:]*"  # "(...)" is one word
# the words of each role's cue, and the most words a cue may stand before its date
_CUE_WORDS: tuple[tuple[str, str, int], ...] = (
    # (not what was earned by a day: "wages earned as of January 10")
    ("as_of", r"(?<!earned\s)(?<!accrued\s)(?<!incurred\s)as\s+of|effective(?:\s+date)?|"
              r"in\s+effect|in\s+force|applicable", 5),
    # ("filed for bankruptcy under Chapter 7 on the 14th of May, 2003"; "the LLC was put into
    # chapter 7 on November 3, 2008": an involuntary case)
    # ("filed an involuntary petition against Gulfstream Charters Inc. on 5/20/2019": the
    # debtor's name is part of the cue)
    ("filing", r"fil(?:ed|es|e|ing)(?:\s+for\s+bankruptcy)?(?:\s+(?:an?\s+)?involuntary"
               r"(?:\s+(?:petition|bankruptcy|case|chapter\s+\d+|ch\.?\s*\d+))*\s+"
               r"(?:against|on|vs\.?|versus)(?:\s+[\w&.,'’-]+){1,5}?)?|petition(?:\s+date)?|"
               r"commenced|"
               r"declared\s+bankruptcy|entered\s+bankruptcy|order\s+for\s+relief|"
               r"went\s+(?:into\s+)?(?:bankrupt(?:cy)?|chapter\s+\d+)|"
               r"(?:put|placed|forced|pushed)\s+into\s+(?:bankruptcy|chapter\s+\d+)", 6),
    ("transfer", r"paid|pays|repaid|transferred|transfers?|payments?|made|received|wired|sent|"
                 r"(?:auto-?)?debited|auto-?drafted|"
                 r"lump\s+sum|wire", 12),
)
_CUES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(r"(?s:.*)\b(?P<kw>" + words + r")\b" + _GAP.format(n=gap) + r"$", re.I))
    for name, words, gap in _CUE_WORDS
)
_CUE_WORD = {name: re.compile(r"\b(?:" + words + r")\b", re.I) for name, words, _ in _CUE_WORDS}
# a day said again, exactly, after a vaguer mention of the event: "filed chapter 7 this spring.
# You'd like the exact date? May 10, 2023.", "filed in August of 2021. I believe it was the
# 20th; yes, Friday, August 20, 2021", "I filed chapter 7; that was November 10, 2003", "in the
# spring of 2023; April 20, 2023, to be exact"
_RESTATED_LEAD = re.compile(
    r"(?:\b(?:that|it)\s+was|\byes|\bsorry|\bactually|\bexactly|\bprecisely|"
    r"\bthe\s+\d{1,2}(?:st|nd|rd|th)|"  # "That was in June, the 2nd; June 2, 2025"
    r"\bexact\s+date\s*\?|\bto\s+be\s+(?:exact|precise))[\s,;:.?!]*(?:on\s+)?(?:the\s+)?"
    r"(?:(?:" + "|".join(_WEEKDAYS) + r"),?\s+)?$",
    re.I,
)
_RESTATED_TAIL = re.compile(r",?\s*(?:to\s+be\s+(?:exact|precise)|exactly|precisely)\b", re.I)
_RESTATED_REACH = 250  # characters back to the event a restated day is of
_MODIFIER = re.compile(
    r"(?P<mod>on\s+or\s+before|on\s+or\s+after|before|prior\s+to|after|since|from|until|"
    r"through|by|ended(?:\s+on)?(?:\s+the)?|ending(?:\s+on)?(?:\s+the)?|ends(?:\s+on)?(?:\s+the)?)\s+"
    r"(?:(?:the\s+)?(?:calendar\s+|fiscal\s+)?year\s+)?$",
    re.I,
)
# the modifiers that make a day the last of a period: "through March 15", "a pay period which
# ended August 30"
PERIOD_END_MODIFIERS = ("until", "through", "by", "ended", "ended on", "ending", "ending on",
                        "ends", "ends on")
# the modifiers that make a day the first of a period: "earned from July 21 on", "on or after
# Feb 1"
PERIOD_START_MODIFIERS = ("from", "since", "on or after")
_CURRENT_NOUN = re.compile(
    r"\s+(?:version|law|text|rule|threshold|amount|limit|minimum|maximum|figure|value|"
    r"statute|regulation|code|edition)",
    re.I,
)
# a date that names the filing it qualifies: "my employer's March 10, 2003 bankruptcy filing",
# "a January 23, 2023 filing", "the 6/1/2020 chapter 7 petition"
_FILING_NOUN = re.compile(
    r"\s+(?:(?:bankruptcy|chapter\s+\d+|ch\.?\s*\d+)\s+)?(?P<kw>filing|petition|"
    r"bankruptcy(?!\s+(?:court|judge|code|law|rules?)\b))\b", re.I
)
# a date its clause goes on to say was paid: "On 10 June 2019 she repaid her sister", "On
# January 20, 2019 they finally paid us"
_TRANSFER_AFTER = re.compile(
    r",?\s+(?:I|we|he|she|it|they|(?:the\s+)?(?:debtor|company|co\.)|(?-i:[A-Z][a-z]+))\s+(?:had\s+)?"
    r"(?:(?:finally|then|already|just|quietly|suddenly|eventually|only)\s+)?"
    r"(?P<kw>paid|repaid|transferred|wired|sent|made|caught\s+up)\b", re.I
)
# a date its clause goes on to say the case was filed: "on November 18, 2002, I filed my
# personal chapter 7 petition", "Three weeks later, 2/20/2024, he files ch 7"
_FILING_AFTER = re.compile(
    r",?\s+(?:I|we|he|she|it|they|(?:the\s+)?(?:debtor|company)|(?-i:[A-Z][a-z]+))\s+"
    r"(?:(?:finally|then|eventually|officially)\s+)?(?P<kw>filed|files)\b", re.I
)
_NOW_LEAD = re.compile(r"\b(?:as\s+of|right)\s+$", re.I)
# a period after a number ends a clause before a lower-case word too ("filed oct 6 2025. on
# july 6 2025 he bought ...")
# (not an abbreviation's period: "an involuntary vs. Apex Roofing on 1/22/2024"; an item's number
# starts one: "... filed May 3, 2004. 2) On February 23, 2004 I charged", not "(ch 7) on")
_CLAUSE_BREAK = re.compile(r"[?!;]|(?<!\bvs)(?<!\bv)(?<!\bInc)(?<!\bCo)(?<!\bCorp)(?<!\bLtd)"
                           r"(?<!\bMr)(?<!\bMs)(?<!\bMrs)(?<!\bDr)(?<!\bSt)\.(?=\s+[A-Z])"
                           r"|(?<=\d)\.(?=\s+[a-z])|\n|(?<!\w\s)(?<!\()\b\d{1,2}\)(?=\s)")
_CUE_WINDOW = 90


@dataclass(frozen=True, slots=True)
class DateMention:
    """One date in the question."""

    value: date  # the point chosen for it (see the module docstring)
    span: Span  # the date text's [start, end) in the question
    text: str
    granularity: str  # "day" | "month" | "year" | "today"
    period_start: date
    period_end: date  # inclusive
    role: str  # "as_of" | "filing" | "transfer" | "generic"
    cue: str | None  # the cue words that gave the role ("as of", "filed", ...)
    modifier: str | None  # "before", "after", "on or before", ... or None

    @property
    def exact(self) -> bool:
        """A single named day ("June 1, 2016", "today"), with no before/after modifier."""
        return self.granularity in ("day", "today") and self.modifier in (None, "on")


def _year_in_words(text: str) -> int:
    """The year `_YEAR_WORDS` matched: "two thousand five", "twenty twenty", "nineteen oh two"."""
    words = [w for w in text.lower().replace("-", " ").split() if w not in ("and", "oh")]
    numbers = {w: i for i, w in enumerate(NUMBER_WORDS)}
    numbers |= {w: 10 * i for i, w in enumerate(TENS_WORDS, 2)}
    if words[:2] == ["two", "thousand"]:
        return 2000 + sum(numbers[w] for w in words[2:])
    return 100 * numbers[words[0]] + sum(numbers[w] for w in words[1:])


def _day_number(text: str) -> int:
    """A day of the month, in digits or as an ordinal in words ("first", "twenty-third")."""
    return int(text) if text.isdigit() else _ORD_WORDS[" ".join(text.lower().split())]


def _full_year(yy: int, today: date) -> int:
    """The year of a two-digit year: of the 1900s or 2000s, no later than a year after today."""
    return 2000 + yy if 2000 + yy <= today.year + 1 else 1900 + yy


def _cued_year(m: re.Match[str], today: date) -> int:
    """The year of a DATE_RE match of a year after a cue: "in 2012" or "in '12"."""
    return int(m["yr"]) if m["yr"] else _full_year(int(m["yr2"]), today)


def _year_of(m: re.Match[str], today: date) -> int | None:
    """The year a DATE_RE match names (None for a day without a year, "today", or a numeric
    date outside 1800-2199, such as a paragraph label "1013-2-1")."""
    if m["yr"] or m["yr2"]:
        return _cued_year(m, today)
    if m["mdy_yy"]:  # "May 27 '22"
        return _full_year(int(m["mdy_yy"]), today)
    if m["mdy_yw"]:  # "October third, two thousand twenty-two"
        return _year_in_words(m["mdy_yw"])
    if m["yrc"]:
        return int(m["yrc"])
    if m["num_y"]:
        y = _full_year(int(m["num_y"]), today) if len(m["num_y"]) == 2 else int(m["num_y"])
    else:
        named = m["mdy_y"] or m["mdy_y2"] or m["my_y"] or m["dmy_y"] or m["iso_y"] or m["hol_y"]
        if not named:
            return None
        y = int(named)
    return y if 1800 <= y <= 2199 or not (m["num"] or m["iso"]) else None


def _named_year(question: str, today: date) -> int | None:
    """The one year a question names, with a year cue ("in '97", "during 2012") or in its
    dates with a year ("May 8, 2019"), else None."""
    years = {y for m in DATE_RE.finditer(question) if (y := _year_of(m, today)) is not None}
    return years.pop() if len(years) == 1 else None


def _unstated_year(that_year: bool, before: list[DateMention], named: int | None) -> int | None:
    """The year of a day said without one: with "(of) that year" the year of the last date
    before it ("February 10 of that year"), else the one year the question names."""
    dated = [o for o in before if o.granularity != "today"] if that_year else []
    return dated[-1].value.year if dated else named


def _holiday_day(year: int, name: str, weekday: str | None, relation: str | None) -> date:
    """The day of holiday `name` in `year`, or the `weekday` just after/before it ("day": the
    day after/before it)."""
    key = " ".join(re.sub(r"['’.,]", "", name.lower()).split())
    key = key.removeprefix("the ")
    if key == "black friday":  # the day after Thanksgiving
        day = weekday_holiday(year, "thanksgiving day") + timedelta(days=1)
    else:
        day = (date(year, *_HOLIDAYS[key]) if key in _HOLIDAYS
               else weekday_holiday(year, _HOLIDAY_ALIASES.get(key, key)))
    if weekday is None:
        return day
    step = timedelta(days=-1 if (relation or "").lower() == "before" else 1)
    day += step
    while weekday.lower() != "day" and day.weekday() != _WEEKDAYS.index(weekday.lower()):
        day += step
    return day


def _make(y: int, m: int, d: int, text: str, span: Span) -> date:
    try:
        return date(y, m, d)
    except ValueError as exc:
        raise QueryError(
            f"impossible date {text!r} at characters {span[0]}-{span[1]} of the question: {exc}",
            span=span,
            text=text,
        ) from None


def _clause_start(question: str, pos: int) -> int:
    lo = max(0, pos - _CUE_WINDOW)
    start = lo
    for m in _CLAUSE_BREAK.finditer(question, lo, pos):
        start = m.end()
    return start


def _shift(point: date, start: date, end: date, modifier: str | None) -> date:
    if modifier is None:
        return point
    mod = " ".join(modifier.lower().split())
    if mod in ("before", "prior to"):
        return start - timedelta(days=1)
    if mod == "after":
        return end + timedelta(days=1)
    if mod == "on or before" or mod in PERIOD_END_MODIFIERS:
        return end
    return start  # "on or after", "since", "from"


def _restated_role(question: str, span: Span, earlier: list[DateMention]
                   ) -> tuple[str, str | None]:
    """The role of a day said again, exactly, after a vaguer mention of its event (see
    `_RESTATED_LEAD`): that of the cue word nearest before it, unless an earlier day has that
    role already; else generic."""
    if not (_RESTATED_LEAD.search(question, max(0, span[0] - 40), span[0])
            or _RESTATED_TAIL.match(question, span[1])):
        return "generic", None
    cues = [(m.start(), name, m.group()) for name in ("filing", "transfer")
            for m in _CUE_WORD[name].finditer(question, max(0, span[0] - _RESTATED_REACH),
                                              span[0])]
    if not cues:
        return "generic", None
    _, role, word = max(cues)
    if any(d.role == role and d.granularity == "day" for d in earlier):
        return "generic", None
    return role, " ".join(word.lower().split())


def find_dates(question: str, today: date) -> list[DateMention]:
    """All date mentions, in order. Raises QueryError for an impossible date."""
    out: list[DateMention] = []
    year: int | None = None  # the year a day without one is in, found when first needed
    for m in DATE_RE.finditer(question):
        named = _year_of(m, today) or 0
        if (m.group("iso") or m.group("num")) and not named:
            continue  # e.g. a paragraph label "1013-2-1", not a date
        if m.group("mdy"):
            grp = "mdy"
            y, mo, d = named, MONTHS[m["mdy_m"].lower()], _day_number(m["mdy_d"] or m["mdy_dw"])
            gran = "day"
        elif m.group("my"):
            grp = "my"
            day = m["my_d"] or m["my_d2"] or m["my_d3"]
            y, mo, d = int(m["my_y"]), MONTHS[m["my_m"].lower()], int(day or 1)
            if m["my_m2"] and MONTHS[m["my_m2"].lower()] != mo:  # "June 2011 (July 2)": no day
                day, d = None, 1
            gran = "day" if day else "month"
        elif m.group("dmy"):
            grp = "dmy"
            y, mo = int(m["dmy_y"]), MONTHS[m["dmy_m"].lower()]
            d = _day_number(m["dmy_d"] or m["dmy_dw"])
            gran = "day"
        elif m.group("iso"):
            grp = "iso"
            y, mo, d = named, int(m["iso_m"]), int(m["iso_d"])
            gran = "day"
        elif m.group("num"):
            grp = "num"
            y, mo, d = named, int(m["num_m"]), int(m["num_d"])
            gran = "day"
        elif m.group("yr") or m.group("yr2") or m.group("yrc"):
            grp = "yr" if m.group("yr") else "yr2" if m.group("yr2") else "yrc"
            y, mo, d = named, 1, 1
            gran = "year"
        elif m.group("md") or m.group("dm") or m.group("nmd"):  # "June 14", "the first of
            # August that year", "on 7/15"
            grp = "md" if m.group("md") else "dm" if m.group("dm") else "nmd"
            year = _named_year(question, today) if year is None else year
            unstated = _unstated_year(grp != "nmd" and bool(m[f"{grp}_that"]), out, year)
            if not unstated:
                continue
            y = unstated
            if grp == "nmd":
                mo, d = int(m["nmd_m"]), int(m["nmd_d"])
            else:
                mo, d = MONTHS[m[f"{grp}_m"].lower()], _day_number(m[f"{grp}_d"] or m[f"{grp}_dw"])
            gran = "day"
        elif m.group("hol"):
            year = _named_year(question, today) if year is None else year
            unstated = None if m["hol_y"] else _unstated_year(bool(m["hol_that"]), out, year)
            if not (m["hol_y"] or unstated):
                continue
            grp = "hol"
            y = int(m["hol_y"]) if m["hol_y"] else unstated
            # "the Sunday before New Year's Day 2020" is a day of 2019
            holiday = _holiday_day(y, m["hol_n"], m["hol_wd"], m["hol_rel"])
            y, mo, d = holiday.year, holiday.month, holiday.day
            gran = "day"
        else:
            grp = "today"
            gran = "today"
            y = mo = d = 0
        span: Span = m.span(grp)
        text = question[span[0] : span[1]]
        if gran == "today":
            low = text.lower()
            if low == "current" and not _CURRENT_NOUN.match(question, span[1]):
                continue  # only "the current version/law/threshold/..."
            if low == "now" and not _NOW_LEAD.search(question, 0, span[0]):
                continue  # only "as of now", "right now"
            start = end = point = today
        elif gran == "day":
            point = _make(y, mo, d, text, span)
            start = end = point
        elif gran == "month":
            start = _make(y, mo, 1, text, span)
            end = date(y, mo, calendar.monthrange(y, mo)[1])
            point = date(y, mo, 15)
        else:
            start, end, point = date(y, 1, 1), date(y, 12, 31), date(y, 7, 1)

        clause_lo = _clause_start(question, span[0])
        prefix = question[clause_lo : span[0]]
        modifier = None
        mm = _MODIFIER.search(prefix)
        if mm:
            modifier = " ".join(mm["mod"].lower().split()).removesuffix(" the")  # "ending the"
        elif m["mdy_to"] or m["num_to"]:  # "November 1-5, 2004", "11/20/2004-12/31/2004": the
            # first day of the days named
            modifier = "from"
        role, cue, best = "generic", None, -1
        for name, rx in _CUES:
            cm = rx.match(prefix)
            if cm and cm.start("kw") > best:
                role, cue, best = name, " ".join(cm["kw"].lower().split()), cm.start("kw")
        filing_noun = _FILING_NOUN.match(question, span[1])
        paid_after = role == "generic" and _TRANSFER_AFTER.match(question, span[1])
        filed_after = role == "generic" and _FILING_AFTER.match(question, span[1])
        if filing_noun or filed_after:
            role, cue = "filing", (filing_noun or filed_after)["kw"].lower()
        elif paid_after:
            role, cue = "transfer", paid_after["kw"].lower()
        elif role == "generic" and gran == "day":
            role, cue = _restated_role(question, span, out)
        if gran == "today" and text.lower() in ("current", "now"):
            role = "as_of" if role == "generic" else role
        out.append(
            DateMention(
                value=_shift(point, start, end, modifier),
                span=span,
                text=text,
                granularity=gran,
                period_start=start,
                period_end=end,
                role=role,
                cue=cue,
                modifier=modifier,
            )
        )
    return out
