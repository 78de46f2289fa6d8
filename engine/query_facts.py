"""Facts stated in a question, read with the rule library's fact declarations.

`FactReader(vocabulary).transform(question, dates, excluded, bankruptcy)` returns the facts a
question states, the facts it leaves open and the warnings. What each fact is and how a
question states it comes from the declarations (`stated` in the library's `facts.toml`); this
module holds only the grammar every fact shares: numbers, dollar amounts ("$12k", "8.5k",
"twenty thousand dollars", "5 grand"), durations before the filing or the order for relief,
bounds ("less than", "within 90 days"), hedges ("about $40,000": an approximate fact in a
statement, no fact in a question), and yes/no questions that ask about a fact rather than state
it ("Is he an insider?", "Does it count as an insider?", in any sentence): such a true/false
fact is left open, and no other reader fills it.

- bool and enumeration facts: the declared patterns of each value, tried in order; a yes/no
  question about the phrase ("Was the debtor insolvent?") asserts nothing.
- amounts: the declared words right after the amount, else right before it (filler words
  such as "exactly" between); a list ("$400, $400 and $350") is one amount, its sum; an
  amount with a bound ("less than $7,575", "between $5,000 and $9,000") is no fact; an
  amount the declared `less` words follow ("$15,000 of that is covered by a lien") is taken
  off the fact's amount (one the words before also state as the fact, "a bank owed $40,000
  fully secured", counts for nothing), and so is one the declared `less_before` words precede
  ("owed $30,000 but has a lien on equipment worth $28,000"); the amounts of a fact the
  statute aggregates (declared `total` words) are summed, unless the words around one state it
  as the total or one is the sum of the others.
- any fact is left open, whatever else the question says of it, where the declared `unknown`
  words say the asker does not know it ("I don't know what the other two are owed", "I could
  not say whether her business debts or her personal ones make up the bulk").
- durations: "N days/weeks/months/years before the petition / the order for relief / filing /
  Greg filed / that", "N days earlier/prior", "N days before." (the filing said before, unless
  a duration of the same fact names its anchor, "paid 200 days before I filed ... lent two
  years before", or the question gives the two dates it is between), "N days ago",
  "within/in the last/prior N days", "in the last month", "N months later ... filed", "six and
  a half weeks"; exact days in parentheses win ("ten weeks (70 days) before"); the duration
  fact whose keywords occur nearest in the sentence takes it, else the default one. Weeks x 7,
  months x 30, years x 365 (`approximate=True`).
- counts: the declared patterns, with a group `n` (the count) or `others` (the asker and that
  many others: "me and two other subs" is 3), less the numbers the declared `less` words give
  after it in its sentence ("15 creditors, but 5 of them are its own cooks" is 10).
- dates: a day whose words say what it is the date of (the date fact whose declared keywords
  occur nearest in its sentence: "jewelry bought on May 1, 2020"), else the date fact its
  role declares (filing, transfer); of several days of a fact declared `earliest` (what the
  statute counts only when every part falls in a window: cash advances "aggregating" more
  than an amount, wages "earned within 180 days"), the earliest, and the day that starts a
  period is one ("earned from July 21 on").
- derived: `days_between` declarations, from two dates the question gives (the dates win over
  a duration that disagrees with them; an earlier date after the later one is dropped).

Two different values for one fact drop both (a warning says so), unless the words of the
others repeat within a mention of one of them ("the mayor's son ... is the son an insider?").
Every step is linear in the question's length: look-behind windows are bounded, the words
before amounts and the keywords of durations and dates are found in one pass per pattern,
and sentence bounds and nearest keywords are found by bisection.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any

from structfirst.engine.query_dates import (
    MONTH_DAY,
    PERIOD_END_MODIFIERS,
    PERIOD_START_MODIFIERS,
    DateMention,
    Span,
)
from structfirst.rules.fact_schema import (
    MACROS,
    NUMBER_WORDS,
    TENS_WORDS,
    FactSpec,
    FactType,
    Vocabulary,
    expand_pattern,
)

NUM = MACROS["{NUM}"]
_BOUND = re.compile(
    r"(?:less\s+than|more\s+than|fewer\s+than|greater\s+than|at\s+least|at\s+most|"
    r"(?<!\badd\s)(?<!\badds\s)(?<!\badding\s)(?<!\badded\s)up\s+to|"
    r"no\s+more\s+than|no\s+less\s+than|not\s+more\s+than|not\s+less\s+than|under|over|"
    r"below|above|within|exceeding|exceeds?|maximum\s+of|minimum\s+of|nearly|almost|between|"
    r"<|>|≤|≥)\s*",
    re.I,
)
# a hedged number: an approximate fact in a statement ("they hold about $40,000 of claims"),
# no fact in a question ("the threshold for a transfer of about $6,000?")
_HEDGE = re.compile(r"(?:\b(?:about|approximately|approx\.|around|roughly|like|maybe)|[~≈])\s*",
                    re.I)
# a window that bounds when something happened, not when: "sometime in the past year", "at
# some point over the last year", "they fell sometime in the 6 months before filing"
_SOMETIME = re.compile(r"\b(?:some\s*time|at\s+some\s+point|any\s*time)"
                       r"(?:\s+(?:in|during|within|over)\s+the)?\s*$", re.I)
# a statement of when something happened, not a bound to test: "earned within 60 days before"
_STATED_WITHIN = re.compile(
    r"\b(?:earned|incurred|made|obtained|taken|took|charged|paid|received|run\s+up)\s+within\s*$",
    re.I,
)
# the law the asker reports, not a fact: "I read that wages from the last 180 days are priority"
_REPORTED_LAW = re.compile(
    r"\b(?:I\s+read|(?:I|we)(?:['’]ve|\s+have)?\s+heard|(?:the\s+)?(?:law|rule|statute|code)\s+"
    r"says|(?:someone|somebody|my\s+\w+)\s+(?:said|says|told\s+(?:me|us)))\s+(?:that\s+)?[^.;?]*$",
    re.I,
)
# the law's figure, not a fact: "my neighbour says the priority for wages is four thousand
# dollars", "the cap was $10,000 then"
_LAW_FIGURE = re.compile(r"\b(?:limit|cap|threshold|priority|minimum|maximum|floor|ceiling)\s+"
                         r"(?:for\s+\w+\s+)?(?:is|was|are|were|would\s+be)\s+(?:only\s+|just\s+)?$",
                         re.I)
# "does it need three petitioning creditors?": the rule's number, not a fact
_RULE_LEAD = re.compile(r"\b(?:need|needs|require|requires|required|must\s+(?:have|be))\s+$", re.I)
# (a "+" before another number adds: "$10,000 + $6,000")
_BOUND_AFTER = re.compile(r"\s*(?:or\s+(?:more|less|fewer|greater|over|under|longer|so)|"
                          r"\+(?!\s*(?:US)?\$|\s*\d))", re.I)

_WORD_NUM = NUM.replace(r"\d{1,3}(?:,\d{3})+|\d+|", "")  # {NUM} in words only
_DIGIT_WORD = r"(?:one|two|three|four|five|six|seven|eight|nine)"
# eleven to ninety-nine hundred in words ("twenty-five hundred"), not "a/one/two hundred"
_HUNDREDS = (r"(?:eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|"
             r"(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
             r"(?:[\s-]" + _DIGIT_WORD + r")?)[\s-]hundred")
# verbs after which a bare number is money ("paid 9,100", "paid us 12,500")
_MONEY_VERBS = ("paid", "owed", "owes", "owe", "lent", "loaned", "charged", "spent", "repaid",
                "took", "borrowed", "wired", "put")
# words after which a bare number is money ("claims are 6,000, 6,400 and 5,500"), and
# the joins after which the next number of such a list is
_MONEY_LEADS = (r"claims\sare\s", r"claims\sof\s", r"claims:\s", r"claim\sis\s", r"claim\sof\s",
                r"\d,\d{3},\s", r"\d,\d{3}\sand\s", r"\d,\d{3},\sand\s",
                # money asked back: "trustee wants back the 6800 they paid me"
                r"\bback\s(?:the\s)?")
# nouns that a number in words counts rather than prices
_COUNTED = (r"(?:people|persons|creditors|customers|clients|employees|workers|members|"
            r"shares|units|miles|acres|pages|words|votes|residents|accounts|items|copies|"
            r"hours|days|weeks|months|years|times|users|visitors)\b")
AMOUNT_RE = re.compile(
    r"(?<![\w$])(?:US\$|\$|USD\s?)\s?(?P<num>\d{1,3}(?:,\d{3})+|\d+)(?P<dec>\.\d{1,2})?"
    r"(?:\s*(?P<mult>k|thousand|grand|million|mm|m|billion|bn)\b)?"
    r"|(?<![\w$.,])(?P<num2>\d{1,3}(?:,\d{3})+|\d+)(?P<dec2>\.\d{1,2})?"
    r"(?:\s+(?P<mult2>thousand|million|billion))?\s+(?:dollars?|bucks|USD)\b"
    # "twenty thousand dollars", "eight thousand five hundred seventy-five dollars", "eighty-six
    # hundred dollars", "a million dollars", "five grand", "a nine hundred dollar advance", "a
    # fourteen-hundred-dollar handbag", "nineteen hundred bucks"
    rf"|(?<![\w$-])(?P<words>{_WORD_NUM})(?:(?:\s+(?P<mult3>thousand|million|billion)"
    rf"(?:,?\s+(?:and\s+)?(?P<rest>{_WORD_NUM}))?)?[\s-]+(?:dollars?|bucks)|"
    r"\s+(?P<grand>grand))\b"
    # "about 285 thousand": digits and a multiplier, unless a counted noun follows
    r"|(?<![\w$.,])(?P<num8>\d{1,3})(?P<dec8>\.\d{1,2})?\s+(?P<mult8>thousand|million|billion)\b"
    r"(?!\s+(?:dollars?|bucks|USD)\b)(?!\s+(?:[\w-]+\s+)?" + _COUNTED + r")"
    # "8.5k", "18.6K", "12 grand" without a dollar sign (not "401k")
    r"|(?<![\w$.,])(?!401k)(?P<num4>\d{1,3})(?P<dec4>\.\d{1,2})?(?P<mult4>k|\s+grand)\b"
    # "owes six hundred thousand unsecured", "one and a half million secured": thousands in
    # words are money unless a counted noun follows ("forty thousand customers")
    # ("one point two million")
    rf"|(?<![\w$-])(?P<words6>{_WORD_NUM})(?:(?P<half>\s+and\s+a\s+half)|\s+point\s+"
    rf"(?P<point>{_DIGIT_WORD}))?\s+"
    rf"(?P<mult6>thousand|million|billion)(?:,?\s+(?:and\s+)?(?P<rest6>{_WORD_NUM})"
    r"(?:\s+(?P<rest6k>thousand))?)?\b"
    r"(?!\s+(?:[\w-]+\s+)?" + _COUNTED + r")"
    # "the electrician twenty-five hundred", "fifty-five hundred": eleven to ninety-nine
    # hundred in words is money too, unless a counted noun follows
    rf"|(?<![\w$-])(?P<hundreds>{_HUNDREDS})\b(?![\s-]+(?:and\s+)?(?:(?:{_WORD_NUM})\b|thousand|"
    r"million))(?!\s+(?:[\w-]+\s+)?" + _COUNTED + r")"
    # "1300 in cash advances", "a 6000 payment", "1900000 secured": a number of three digits or
    # more that the words after it make money (not a year)
    r"|(?<![\w$.,/-])(?!(?:19|20)\d\d\b)(?P<num7>[1-9]\d{2,6})\b(?=\s+in\s+(?:cash\s+advances?|"
    r"(?:back|unpaid)\s+(?:wages|pay)|wages|salary|commissions?)\b|\s+(?:payment|transfer|"
    r"repayment|loan|check|cash\s+advance)s?\b|(?<=\d{4})\s+(?:secured|unsecured)\b)"
    # a bare number of three digits or more: money only after the words `_MONEY_BEFORE`
    # (`find_amounts` keeps it then), never a year that names a noun ("paid 2019 invoices")
    r"|(?<![\w$.,/-])(?P<num5>\d{1,3}(?:,\d{3})+|(?!(?:19|20)\d\d\s+(?!(?:for|in|on|to|and|of|"
    r"from|back|but|so|which|because|before|after|when|at|dollars|bucks|cash)\b)[a-z])"
    r"[1-9]\d{2,6})(?P<dec5>\.\d{2})?\b(?![/-]\d)"
    r"(?!\s*(?:%|percent\b))(?!\s+(?:[\w-]+\s+)?" + _COUNTED + r")",
    re.I,
)
# the words right before a bare number that make it money: "we got paid 9,100 on an old
# invoice", "paid us 12,500", "they owe her about 4000", "claims are 6,000, 6,400 and 5,500"
_MONEY_BEFORE = re.compile(
    r"(?:\b(?:" + "|".join(_MONEY_VERBS) + r")\s(?:(?:us|me|him|her|them)\s)?"
    r"(?:(?:about|like|around)\s)?|" + "|".join(_MONEY_LEADS) + r")$", re.I)


def find_amounts(q: str) -> list[re.Match[str]]:
    """The amounts of `q` (`AMOUNT_RE`), a bare number only where `_MONEY_BEFORE` precedes it."""
    return [m for m in AMOUNT_RE.finditer(q)
            if not m["num5"] or _MONEY_BEFORE.search(q, max(0, m.start() - 40), m.start())]
# where an amount may start: the words before an amount reach it ("wages of thirteen ...";
# not its "five hundred dollars" after "eight thousand", nor a date's "1/4/21")
_AMOUNT_START = (r"(?=\$|US\$|USD|(?<![\w$.,])\d(?!\d*[/-]\d)|(?<![\w$-])(?<!thousand\s)"
                 r"(?<!thousand,\s)(?:(?:"
                 + _WORD_NUM + r")[\s-]+(?:(?:(?:thousand|million|billion)(?:,?\s+(?:and\s+)?(?:"
                 + _WORD_NUM + r"))?\s+)?(?:dollars?|bucks)|grand|(?:(?:and\s+a\s+half|point\s+"
                 + _DIGIT_WORD + r")\s+)?"
                 r"(?:thousand|million|billion))|" + _HUNDREDS + r")\b)")
# words between the words before an amount and the amount: "the claim is exactly $13,650",
# "unsecured about $200,000" (a hedged amount), "are only about sixty grand", "come to some
# $700,000"; a notes item's number and day: "Xfer #1: 3/29/2018, $6,425.00"
_AMOUNT_FILLER = (r"(?:#\s*\d+\s*:?\s*)?(?:(?:on\s+)?\d{1,2}/\d{1,2}/\d{2,4}\s*[,:]?\s*)?"
                  r"(?:(?:exactly|precisely|just|only|a\s+total\s+of|in\s+total|about|some|"
                  r"approximately|approx\.|around|roughly|like|maybe|[~≈])\s*){0,2}")
# a pronoun that points back to the sentence before: "... cash advances. i took them out ..."
_BACK_REFERENCE = re.compile(r"\b(?:them|they|those|these|it)\b", re.I)
# an amount said again as the one already stated: "paid her dentist $450 ... avoid the $450
# payment"
_RESTATED = re.compile(r"\b(?:the|that|this|those|these|same)\s+$", re.I)
# the rest of a question's sentence, which names an amount already stated
_ASKED_AGAIN = re.compile(r"[^.!?\n]{0,60}\?")
# an email's subject line, which the body says again
_HEADER_LINE = re.compile(r"[ \t]*(?:subject|re|fwd?)\s*:", re.I)
# an amount named as a thing's before it is stated: "its $28,750 payment to Tri-County"
_REFERRED = re.compile(r"\b(?:its|his|her|their)\s+$", re.I)
# between an amount and the same amount said again: "fifteen grand ($15,000)"
_RESTATED_AMOUNT = re.compile(r"\s*\(\s*")
# between an amount and the same amount said again in another form: "$7,500, seven thousand
# five hundred", "$5,000.00, 5 grand"
_RESTATED_JOIN = re.compile(r"\s*(?:,|-+|–|—)\s*(?:(?:that\s+is|i\.e\.),?\s+)?")
# a sum's result: "$7,000 + $5,500 + $3,275 = $15,775"
_SUM_EQUALS = re.compile(r"(?<![<>!=])=\s*$")
# one amount that counts several times: "two cash advances of $700.00 each", "three payments
# of $2,000 apiece"
_EACH = re.compile(r"\s*,?\s*(?:each|apiece|a\s+piece)\b", re.I)
_EACH_COUNT = re.compile(r"\b(?P<n>" + _WORD_NUM + r"|[2-9]|1\d)\s+(?:[\w-]+\s+){0,3}?"
                         r"(?:of|for|at)\s+" + _AMOUNT_FILLER + r"$", re.I)
# an amount a list's total follows: "$3,500 and $4,500, $8,000 total"
_TOTAL_AFTER = re.compile(r"\s*(?:total\b|in\s+(?:total|all|the\s+aggregate)\b|altogether\b|"
                          r"combined\b)", re.I)
# (each amount may have a parenthesis, "$9,800 (the bank), $8,500 (the linen service) and ...",
# or its day, "$800 on April 10 and $500 on April 28", "$800.00 on 08/01/2024 and ...")
_LIST_JOIN = re.compile(
    r"(?:\s*\([^()]{0,60}\)|\s+on\s+(?:" + MONTH_DAY + r"(?:,?\s+\d{4})?|"
    r"\d{1,2}/\d{1,2}(?:/\d{2,4})?))?"
    r"(?:\s*,\s*(?:and\s+)?|\s+(?:and|plus)\s+|\s*\+\s*"
    # a table's items, each with its name: "our church $6,200 | First Methodist $5,900 |
    # Bethel AME $4,100"
    r"|\s*\|\s*(?:[A-Za-z&.'’-]+\s+){0,4})", re.I)
_MULT = {"k": 1_000, "thousand": 1_000, "grand": 1_000, "m": 1_000_000, "mm": 1_000_000,
         "million": 1_000_000, "billion": 1_000_000_000, "bn": 1_000_000_000}

_APOS = "['’]"
_OWNER = (r"(?:(?:the|an?|its|his|her|their|my|our|the\s+debtor" + _APOS +
          r"?s|(?:her|his|their|the|my|our)\s+(?:employer|company|business)" + _APOS +
          r"s|the\s+company" + _APOS + r"s)\s+)?")
# "the May 2010 filing", "his November 3, 2003 chapter 7", "the 11/14/16 petition"
_WHEN = (r"(?:(?:(?:[A-Z][a-z]+\.?\s+(?:\d{1,2}(?:st|nd|rd|th)?,?\s+)?)?\d{4}|"
         r"\d{1,2}/\d{1,2}/\d{2,4}),?\s+)?")
_ANCHOR = (
    r"(?P<anchor>" + _OWNER + _WHEN +
    r"(?:(?P<relief>(?:entry\s+of\s+the\s+)?order\s+for\s+relief)|"
    r"(?:(?:individual|joint|voluntary|involuntary|personal)\s+)?"
    r"(?:(?:bankruptcy|chapter\s+\d+|ch\.?\s*\d+)\s+)?(?:filing(?:\s+date)?|petition(?:\s+date)?|"
    r"bankruptcy(?:\s+(?:filing|petition|case))?|case\s+(?:was\s+)?filed|"
    r"date\s+of\s+(?:the\s+)?(?:filing|petition)(?:\s+of\s+the\s+petition)?|"
    r"commencement\s+of\s+the\s+case)|chapter\s+\d+\b|"
    r"(?:I|we|you|it|he|she|they|the\s+debtor|the\s+company|the\s+debtors|(?-i:[A-Z][a-z]+)|"
    r"(?:the|my|our|his|her|their|its)\s+(?:[\w-]+\s+)?[\w-]+|"
    # a couple: "40 days before he and his bride filed"
    r"(?:I|we|he|she|they)\s+and\s+(?:my|our|his|her|their)\s+[\w-]+)\s+"
    r"(?:(?:shut\s+down|closed(?:\s+down)?|went\s+under)\s+and\s+)?(?:filed|filing|files|file)\b|"
    # the cessation of the debtor's business, § 507(a)(4)'s other anchor
    r"(?:it|they|the\s+(?:company|business|debtor|store|shop|employer))\s+(?:shut\s+down|closed"
    r"(?:\s+down)?|went\s+under|ceased\s+operations)\b|"
    r"that\b|then\b))"
)
# ("40d pre-pet.": a "d" right after the number is days)
_UNITS = r"(?P<unit>days?|weeks?|months?|years?|(?<=\d)d\b)"
# "ten weeks (70 days) before", "a month before (30 days)": the days in parentheses are exact
_EXACT_DAYS = (r"(?:\s*(?:\(|[—–]|--)\s*(?:exactly\s+|about\s+|roughly\s+|around\s+|"
               r"approximately\s+|i\.e\.,?\s+)?(?P<{}>\d+)"
               r"\s+days?\s*(?:\)|[—–]|--))?")
DURATION_RE = re.compile(
    # (not the rest of a sum: "a year minus one day before I filed")
    rf"(?<!\bminus\s)(?<!\bplus\s)\b(?P<n>{NUM})(?P<half>\s+and\s+a\s+half)?(?:[\s-]+|(?=d\b)){_UNITS}"
    + _EXACT_DAYS.format("x1") +
    r"\s+(?:(?:(?:right|just|immediately)\s+)?(?:before|prior\s+to|preceding|ahead\s+of)\s+"
    + _ANCHOR +
    r"|(?P<pre>pre-?petition|before\s+bankruptcy)"
    r"|(?P<bare>earlier|before|prior)" + _EXACT_DAYS.format("x2") +
    r"(?=\s*(?:[,.;:)]|$)|\s+(?:on|with|at|from|using|through)\s+(?:an?|the|my|his|her|their|its|our)\b"
    r"|\s+(?:are|is|was|were)\s+(?:still\s+)?(?:unpaid|owed|outstanding|due)\b"
    r"|\s+(?:I|we|you|it|he|she|they|the\s+\w+)(?:['’]d)?\s+(?:paid|repaid|"
    r"made|transferred|took|charged|ran|bought|gave|spent|pulled|wired|sent|financed|"
    r"purchased|borrowed|obtained|put|ordered|booked)\b)"
    # ("Ten days later, on June 27, 2022, he filed")
    r"|(?P<later>later),?\s+(?:on\s+" + MONTH_DAY + r",?\s+\d{4},?\s+)?"
    r"(?:it|he|she|they|the\s+\w+)\s+filed\b"
    r"|(?P<ago>ago)\b)"
    # "within the last 60 days", "from the prior 60 days", "in the last month" (one month; not
    # "an invoice from the previous year")
    r"|\b(?:within|in|during|over|from|for)\s+the\s+(?:last|past|preceding|prior|previous|final)\s+"
    rf"(?P<n2>{NUM})\s+(?P<unit2>days?|weeks?|months?|years?)\b"
    r"|\b(?:within|in|during|over)\s+the\s+(?:last|past|preceding|prior|previous|final)\s+"
    r"(?P<unit1>day|week|month|year)\b"
    # "commissions earned during the month before we filed"
    r"|\b(?:within|in|during|over)\s+the\s+(?P<unit5>week|month|year)\s+(?=(?:before|prior\s+to|"
    r"preceding)\s+(?:(?:we|I|they|he|she|it|the\s+\w+)\s+filed|the\s+(?:filing|petition))\b)"
    # a worker's last weeks before the filing: "his last two weeks were never paid", "my last
    # five weeks of wages", "her last 5 weeks (35 days) of work" (a fact only by the words
    # around it, never the default's)
    rf"|\b(?:my|his|her|their|our)\s+(?:last|final)\s+(?P<n3>{NUM})\s+"
    r"(?P<unit3>days?|weeks?|months?)" + _EXACT_DAYS.format("x3") +
    r"(?=\s+(?:of\s+(?:work|wages|pay)|(?:were|was|went)\s+(?:never\s+paid|unpaid)))"
    # "I worked my last month there right up to the filing"
    rf"|(?<=\bworked\s)(?:my|his|her|their|our)\s+(?:last|final)\s+(?:(?P<n4>{NUM})\s+)?"
    r"(?P<unit4>days?|weeks?|months?)\b",
    re.I,
)
_UNIT_DAYS = {"day": 1, "d": 1, "week": 7, "month": 30, "year": 365}
# DURATION_RE's (count, unit) groups, one pair per alternative (no count: one unit)
_DURATION_GROUPS = (("n", "unit"), ("n2", "unit2"), ("n3", "unit3"), ("n4", "unit4"),
                    (None, "unit1"), (None, "unit5"))
# a perfect tense right before "for the past N years": how long something went on, no window
_ONGOING = re.compile(r"\b(?:had|has|have|['’]ve)\b(?:\s+\w+){0,4}?\s+$", re.I)
# a sentence ends at ? ! ; a line break, or a period before a capital or (in lower-case
# writing) before a question's or a statement's first word or a question of up to four words:
# "... the petition. is the cousin an insider?", "... about 400k. my friend said ...", "... the
# loan. insider or not?", "... before they filed. all priority?"; not the period of an initial
# ("R. Delgado") or an abbreviation ("approx.", "Ms.")
_SENTENCE_BREAK = re.compile(  # (not a ";" inside parentheses: "(designer handbag; ...)")
    r"[?!]|;(?![^()]{0,80}\))|(?<!\b[A-Z])(?<!\bapprox)(?<!\bvs)(?<!\bch)(?<!\bno)(?<!\bv)(?<!\bMs)(?<!\bMr)(?<!\bMrs)"
    r"(?<!\bDr)\.[)\"”’]?(?=\s+(?:[A-Z]|(?:is|"
    r"was|were|are|am|does|do|did|can|could|would|will|should|has|have|how|what|when|who|which|"
    r"i|my|we|our|he|she|they|his|her|their|it|its|the|so|but|now)\b|\w+(?:\s+\w+){0,3}"
    r"(?:,?\s+or\s+not)?\s*\?))"
    # after a number ("... filing ch 7 on nov 3 2025. presumption of fraud?")
    r"|(?<=\d)\.(?=\s+[a-z])|\n"
)
# "Was the debtor insolvent?": a yes/no question about the fact asserts nothing
_YESNO_LEAD = re.compile(
    # "..., so is JR an insider or not" (not "and": "..., and was made according to ...")
    r"\s*(?:(?:so|then|well|ok(?:ay)?)\s*,?\s+)?"
    r"(?:is|was|were|are|am|(?:does|do|did|would|will|could)\s+(?:that|this|it)\s+make\s+"
    r"(?:him|her|them|it|us|me|the\s+\w+)|(?:does|do|did|would|will|could)\s+(?:it|he|she|"
    r"they|we|I|you|this|that|the\s+\w+|(?-i:[A-Z])[\w&.-]*)\s+(?:count|qualify|rank)\s+as|"
    r"(?:would|will|could|might)\s+(?:it|he|she|they|we|I|you|this|that|the(?:\s+\w+){1,3})\s+"
    r"be|(?:would|will|could|might)\s+(?-i:[A-Z][a-z]+)\s+be|"
    r"(?:would|will|could|might|can|does|do|did)\s+(?:an?|the|"
    r"any)\s+(?:court|judge|trustee|law|code)\s+(?:get\s+to\s+|be\s+able\s+to\s+)?(?:treat|"
    r"consider|see|regard|view|deem|count|"
    r"call))\b(?:\s+that\b)?(?:(?!\b(?:when|while|after|before|because|if|since|"
    r"that|which|who|whom|where|whose)\b)[^,;:]){0,80}$",
    re.I,
)
# the end of a yes/no question, its mark or (typed without any) the end of the text
_YESNO_TAIL = re.compile(
    r"\s*(?:,?\s*or\s+not\b\s*)?(?:(?:of|under|for|to|within|as|like|when|at|in|on|during|with|by|because|"
    r"given|and|so|if|which|meaning)\b[^?]{0,120}|,\s*(?:which|meaning|so)\b[^.?]{0,120})?"
    r"(?:\?|(?<![.!])\s*$)",
    re.I,
)
# a yes/no question run on after a statement, its verb first and a subject after it: "... just a
# regular customer is tractor world an insider"
_RUNON_YESNO = re.compile(r"\b(?:is|was|are|were)\s+(?!(?:an?|not|also|really|still|in|"
                          r"definitely|clearly|probably|likely|now|already|maybe|perhaps|"
                          r"actually)\b)(?:[\w&.'’-]+\s+){1,4}(?:an?|the)\s+$", re.I)
# a statement typed with a question mark: "The milk company is insider?", "so she's an insider?"
_STATED_ASKED = re.compile(r"(?:\b(?:is|are|was|were)|['’]s|['’]re)\s+(?:still\s+)?(?:an?\s+)?$",
                           re.I)
# a question's label before a fragment, or its subject without a verb: "- Q: insider under
# 101(31)?", "Issue: insider?", "He an insider?"
_QUESTION_LABEL = re.compile(r"\s*(?:[-*•]\s*)?(?:(?:the\s+)?(?:Q|questions?|issues?|query|ask))?"
                             r"\s*[:.-]?\s*(?:(?:he|she|they|it|that|this|(?-i:[A-Z])[\w.-]+)\s+"
                             r"(?:still\s+)?(?:an?|the)\s+)?", re.I)
_COMPLEMENT_LEAD = re.compile(r"\b(?:an?|the|considered|deemed|treated\s+as)\s+$", re.I)
# a value a negation governs, in a list or not: "she isn't an employee, officer or shareholder"
_NEGATED_LIST = re.compile(r"(?:\b(?:not|never|neither|nor)|n['’]t)\s+(?:an?\s+)?"
                           r"(?:(?!but\b)[\w-]+,?\s+(?:or\s+|and\s+)?){0,4}$"
                           # "has no officials or relatives in city government"
                           r"|\bno\s+(?:[\w-]+,?\s+(?:or|and|nor)\s+){0,3}$"
                           # "none of our people sit on its board or serve as its officers"
                           r"|\bnone\s+of\s+(?:us|them|(?:our|its|their|his|her|my)\s+(?:people|staff|"
                           r"employees|members|family|relatives|owners|partners|principals))\s+"
                           r"(?:[\w-]+,?\s+){1,10}$", re.I)
# a value said as a negation: "no connection", "not related", "unrelated"
_NEGATION_WORD = re.compile(r"(?:no|not|never|non)\b|un(?:related|affiliated)\b", re.I)
_JOINED = re.compile(r"\b(?:and|or|nor)\s+$", re.I)
# the subject of the question, not its complement: "Is the CFO of our debtor an insider?"
_SUBJECT_LEAD = re.compile(r"\s*(?:is|was|are|were)\s+(?:the|an?)\s+$", re.I)
# a word named, not said of anyone: "the trustee keeps using the word insider", "the form keeps
# asking me about insiders", "her lawyer mentioned insiders"; or what another says of someone:
# "counsel listed us as an insider"
_WORD_NAMED = re.compile(r"\b(?:word|term|label|mention(?:s|ed|ing)?|(?:ask(?:s|ed|ing)?|"
                         r"mention(?:s|ed|ing)?|sa(?:y|ys|id|ying)|talk(?:s|ed|ing)?)\s+"
                         r"(?:(?:me|us|him|her|them)\s+)?(?:something\s+)?about)\s+"
                         r"[\"'“‘]?$|\b(?:listed|called|"
                         r"named|labell?ed|classified|flagged|scheduled|characteri[sz]ed)\s+"
                         r"(?:us|me|him|her|them|it)\s+"
                         r"(?:as\s+)?(?:an?\s+)?[\"'“‘]?$", re.I)
# a question of what the phrase right after it is: "What's normal in the industry for a
# catch-up payment like that?"
_WH_LEAD = re.compile(r"\s*(?:what|which)(?:['’]s|\s+is|\s+are|\s+was|\s+were)\s+(?:the\s+)?",
                      re.I)
# a value only compared with: "is she an insider like a relative would be?"
_LIKENED = re.compile(r"\blike\s+(?:an?|the)\s+$", re.I)
_LIKENED_TAIL = re.compile(r"\s+(?:would|does|do|is|was|might|could|will)\b", re.I)
# a question of one phrase: "Insider?", "Insider or not?", "Insider under 101(31)?"
_FRAGMENT_TAIL = re.compile(r"(?:\s+(?:under|per)\s+(?:§+\s*)?(?:the\s+code|[\w.]+(?:\(\w+\))*))?"
                            r"\s*(?:,?\s*or\s+not)?\s*\?", re.I)
# a statement left open: "I haven't figured out whether her debts are mostly consumer or ...",
# "we haven't looked into what's standard in the industry", "not sure if that counts as
# regular income", "whether R. Delgado is an insider", "says nothing about how it paid", "the
# record is silent on ... the credit terms customary in the freight industry", "we have not
# determined what payment terms are standard in that industry"
_WHETHER_LEAD = re.compile(r"\b(?:whether|(?:looked\s+(?:into|at)|checked|know|figured\s+out|"
                           r"determined|established|confirmed|verified|"
                           r"f(?:ou|i)nd\s+out|sure\s+(?:of|about)|no\s+(?:idea|clue)(?:\s+yet)?|"
                           r"(?:information|evidence|proof|data|numbers|figures)(?:\s+yet)?\s+(?:on|about|as\s+to))"
                           r"\s+what|"
                           r"(?:not\s+sure|unsure|wondering|idk|knows?(?:\s+yet)?|no\s+(?:idea|clue)|"
                           r"(?:can['’]?t|cannot|could(?:n['’]t|\s+not))\s+(?:tell|say)|"
                           r"ask(?:s|ed|ing)?(?:\s+(?:me|us|him|her|them))?)\s+if|"
                           r"(?:says|said)\s+nothing\s+about|(?:is|was|are|were)\s+silent\s+"
                           r"(?:on|about|as\s+to)|(?:does|did)(?:n['’]t|\s+not)\s+"
                           r"(?:say|mention)\s+anything\s+about|"
                           # "any link to Westbrook, its officers or its owners"
                           r"any\s+(?:link|connection|ties?|relationship|affiliation)\s+(?:to|with))\b"
                           # a list's comma ("whether he was an officer, director or ..."): the
                           # search ends at the value, so the value is the end of the text
                           # ("whether he was an officer, a director, or just an employee")
                           r"(?:[^,;:.?]|,(?=\s+(?:(?:(?:an?|the|its|his|her|their|our)\s+)?(?:[\w-]+,|"
                           r"[\w-]+\s+(?:or|and|nor)\b|$)|(?:or|and|nor)\b))|"
                           r"\b[A-Z]\.|(?<=\bMr)\.|(?<=\bMrs)\.|(?<=\bMs)\.|(?<=\bDr)\.){0,100}$",
                           re.I)
# the other side's contention that the thing is so, which the asker then asks about: "the
# trustee claims he's an insider. Is he?", "the trustee is saying her boyfriend ... is an
# insider", "the committee treats the bank as an insider"; a lawyer's or management's only
# when argued ("the practice's lawyer is arguing we were insiders", "management claims it was
# solvent"), since "my attorney says" states a fact
# the verbs of a claim argued, said by either kind of speaker below
_ARGUED = (r"claim(?:s|ed|ing)?|argu(?:e|es|ed|ing)|contend(?:s|ed|ing)?|insist(?:s|ed|ing)?|"
           r"alleg(?:e|es|ed|ing)|hint(?:s|ed|ing)?")
_CONTENTION_LEAD = re.compile((
    r"(?:\b(?:trustee|committee|creditors?|plaintiffs?|other\s+side|opposing\s+"
    r"(?:counsel|lawyer|attorney)|"
    # the debtor's lawyer, to a creditor or a worker: "the company's lawyer says Pete is an
    # insider" (not "my company's lawyer")
    r"(?<!\bmy\s)(?<!\bour\s)(?:company|debtor){APOS}s\s+(?:counsel|lawyer|attorney))(?:{APOS}s\s+(?:counsel|lawyer|attorney|assistant|office|"
    r"complaint|motion|papers|brief|pleadings?|demand\s+letter))?"
    r"\s+(?:is\s+|are\s+|has\s+|have\s+|keeps?\s+)?(?:say(?:s|ing)?|said|" + _ARGUED + r"|"
    r"assert(?:s|ed|ing)?|think(?:s|ing)?|thought|believ(?:e|es|ed|ing)|call(?:s|ed|ing)|"
    r"treat(?:s|ed|ing)|consider(?:s|ed|ing)|deem(?:s|ed|ing)?)|"
    r"\b(?:lawyers?|counsel|attorneys?|management|owners?|principals?)\s+"
    r"(?:is\s+|are\s+|has\s+|have\s+|keeps?\s+)?(?:" + _ARGUED + r"|maintain(?:s|ed|ing)?))\b"
    r"(?:(?!\b(?:and|but)\b)[^.;?]){0,120}?"
    r"(?:\b(?:is|was|are|were|be|being|as|us|him|her|them|me)|{APOS}(?:s|re))\s+"
    r"(?:an?\s+|the\s+)?$"
    ).replace("{APOS}", _APOS),
    re.I,
)
# a number offered as one of two: "could be last winter or two years ago"
# the first of "maybe 2 month before, maybe 6 month"
_MAYBE_AGAIN = re.compile(r"[^,;:.?]{0,30},\s*(?:or\s+)?maybe\b", re.I)
_EITHER_LEAD = re.compile(r"\b(?:could|might|may)\s+(?:have\s+)?be(?:en)?\b[^,;:.?]{0,40}\bor\s+$"
                          # "could've been last month, could've been two years ago", "could be
                          # last month, could be two years ago"
                          r"|\b(?:could|might|may)(?:\s+have|['’]ve)?\s+be(?:en)?\s+(?:about\s+|around\s+)?$"
                          # the second of "maybe 2 month before, maybe 6 month"
                          r"|\bmaybe\s+[^,;:.?]{1,30},\s*maybe\s+$",
                          re.I)
# a copula in a "whether" lead: the value is its complement ("whether he was an officer"), not
# its subject ("whether the CFO counts as an insider")
_COPULA = re.compile(r"\b(?:is|was|are|were|be|been)\b|['’]s\b", re.I)
# a possibility, not a statement: "he might be a corporate officer or just a sales manager",
# "she might be treated like an insider", "it may or may not have been a normal business deal"
_MAYBE_LEAD = re.compile(r"\b(?:(?:might|may|could)\s+(?:just\s+|also\s+|even\s+|well\s+)?be|"
                         r"(?:might|may|could)\s+or\s+(?:might|may|could)\s+not\s+(?:have\s+)?"
                         r"be(?:en)?|maybe|possibly|perhaps)\s+(?:an?\s+|the\s+)?"
                         r"(?:[\w-]+\s+){0,2}(?:(?<=\blike\s)(?:an?|the)\s+)?$",
                         re.I)

_SMALL = {w: i for i, w in enumerate(NUMBER_WORDS)}
_TENS = {w: 10 * i for i, w in enumerate(TENS_WORDS, 2)}


def number_value(text: str) -> int:
    """The value of a {NUM} match: digits, words up to 9,999 ("eighty-six hundred"), "a"/"an",
    and the words of one ("the only/sole/solo/lone/single petitioner", "our client alone",
    "filed it by himself")."""
    t = " ".join(text.lower().replace("-", " ").split())
    if re.fullmatch(r"[\d,]+", t):
        return int(t.replace(",", ""))
    if t in ("a", "an", "only", "sole", "solo", "lone", "single", "alone") or t.split()[-1] in (
            "himself", "herself", "itself", "myself", "ourselves"):  # "filed by itself"
        return 1
    total = 0
    words = t.split()
    if "hundred" in words:
        i = words.index("hundred")
        head = words[:i]
        total = 100 * (1 if head in (["a"], ["an"]) else sum(_TENS.get(w, 0) + _SMALL.get(w, 0)
                                                             for w in head))
        words = [w for w in words[i + 1:] if w != "and"]
    for w in words:
        total += _TENS.get(w, 0) + _SMALL.get(w, 0)
    return total


@dataclass(frozen=True, slots=True)
class QueryFact:
    name: str  # a fact declared in the rule library
    value: int | float | bool | str | date
    type: str  # the declared type: "amount" | "duration" | "date" | "bool" | "enumeration" | ...
    span: Span
    text: str
    unit: str | None = None  # "USD" for amounts, "days" for durations
    approximate: bool = False  # a month or year converted to days
    derived: bool = False  # computed from other facts (days_before_filing from two dates)
    # the learned reader's probability (`engine.learned_facts`; span: the amount or date it
    # read, or the whole question for a fact read from it as a whole); None for a fact a
    # declared pattern read
    confidence: float | None = None


class _Sentences:
    """Sentence bounds by bisection over the break positions found once."""

    def __init__(self, q: str) -> None:
        self.q = q
        self.n = len(q)
        self.ends = [m.end() for m in _SENTENCE_BREAK.finditer(q)]

    def bounds(self, pos: int) -> tuple[int, int]:
        i = bisect.bisect_right(self.ends, pos)
        start = self.ends[i - 1] if i else 0
        return start, (self.ends[i] if i < len(self.ends) else self.n)


def _wrx(pattern: str) -> re.Pattern[str]:
    """Compile with a leading word-start lookahead outside the alternation (every alternative
    starts a word), so that the engine skips other positions quickly."""
    return re.compile(r"(?=\b\w)(?:" + pattern + ")", re.I)


@dataclass(frozen=True, slots=True)
class _Choice:
    """A bool or enumeration fact: one regex, one group per value (g0, g1, ...)."""

    spec: FactSpec
    rx: re.Pattern[str]
    values: tuple[Any, ...]  # group index -> value
    hints: tuple[str, ...]
    bankruptcy_only: bool


class FactReader:
    """Extracts the declared facts a question states (see the module docstring)."""

    def __init__(self, vocabulary: Vocabulary) -> None:
        self.vocabulary = vocabulary
        self._compiled: dict[str, Any] | None = None

    def _compile(self) -> dict[str, Any]:
        if self._compiled is not None:
            return self._compiled
        choices, after, before, counts, keywords, date_keywords = [], [], [], [], [], []
        less: list[tuple[FactSpec, re.Pattern[str]]] = []
        less_before: list[tuple[FactSpec, re.Pattern[str]]] = []
        totals: dict[str, re.Pattern[str]] = {}
        unknown: dict[str, re.Pattern[str]] = {}
        default_duration, date_roles, derived, earliest = None, {}, [], set()
        for spec in self.vocabulary.values():
            if spec.of is not None:  # an attribute of listed entities, not a fact of the case
                continue
            st = spec.stated
            if st.get("unknown"):
                unknown[spec.name] = re.compile(
                    "|".join(expand_pattern(p) for p in st["unknown"]), re.I)
            if spec.days_between is not None:
                derived.append(spec)
            if spec.type in (FactType.BOOL, FactType.ENUM) and st.get("values"):
                parts, values = [], []
                for value, pats in st["values"].items():
                    parts.append(f"(?P<g{len(values)}>" + "|".join(
                        expand_pattern(p) for p in pats) + ")")
                    values.append({"true": True, "false": False}[value]
                                  if spec.type is FactType.BOOL else value)
                choices.append(_Choice(spec, _wrx("|".join(parts)), tuple(values),
                                       tuple(h.lower() for h in st.get("hints", ())),
                                       st.get("context") == "bankruptcy"))
            elif spec.type is FactType.AMOUNT:
                after += [(spec, expand_pattern(p)) for p in st.get("after", ())]
                less += [(spec, re.compile(expand_pattern(p), re.I)) for p in st.get("less", ())]
                less_before += [(spec, re.compile("(?:" + expand_pattern(p) + r")\s*"
                                                  + _AMOUNT_FILLER + "$", re.I))
                                for p in st.get("less_before", ())]
                if st.get("total"):
                    totals[spec.name] = re.compile(
                        "|".join(expand_pattern(p) for p in st["total"]), re.I)
                before += [(spec, re.compile("(?:" + expand_pattern(p) + r")\s*" + _AMOUNT_FILLER
                                             + _AMOUNT_START, re.I)) for p in st.get("before", ())]
            elif spec.type is FactType.COUNT and st.get("patterns"):
                rx = _wrx("|".join(expand_pattern(p).replace("(?P<n>", f"(?P<n{i}>")
                                   .replace("(?P<others>", f"(?P<o{i}>")
                                   for i, p in enumerate(st.get("patterns", ()))))
                less_count = (re.compile("|".join(expand_pattern(p) for p in st["less"]), re.I)
                              if st.get("less") else None)
                counts.append((spec, rx, tuple(h.lower() for h in st.get("hints", ())),
                               less_count))
            elif spec.type is FactType.DURATION:
                if st.get("default"):
                    default_duration = spec
                for p in st.get("keywords", ()):
                    keywords.append((spec, re.compile(expand_pattern(p), re.I)))
            elif spec.type is FactType.DATE:
                if st.get("role"):
                    date_roles[st["role"]] = spec
                if st.get("earliest"):
                    earliest.add(spec.name)
                for p in st.get("keywords", ()):
                    date_keywords.append((spec, re.compile(expand_pattern(p), re.I)))
        amount_hints = {spec.name: tuple(h.lower() for h in spec.stated.get("hints", ()))
                        for spec, _ in after + before}
        self._compiled = {"choices": choices, "after": after, "after_rx": {}, "less": less,
                          "less_before": less_before,
                          "amount_hints": amount_hints, "before": before,
                          "counts": counts, "keywords": keywords, "default": default_duration,
                          "dates": date_roles, "date_keywords": date_keywords,
                          "derived": derived, "totals": totals, "unknown": unknown,
                          "earliest": earliest}
        return self._compiled

    def transform(self, q: str, dates: list[DateMention], excluded: list[Span],
                  bankruptcy: bool) -> tuple[list[QueryFact], tuple[str, ...], list[str]]:
        """The facts `q` states, one value each, in order of position; the true/false facts it
        names but leaves open (asked about, or left to a "whether"); and the warnings."""
        c = self._compile()
        sentences = _Sentences(q)
        bounds = {m.end() for m in _BOUND.finditer(q)}  # where a bounded number would start
        hedges = {m.end() for m in _HEDGE.finditer(q)}  # where a hedged number would start

        def bounded(span: Span) -> bool:
            return span[0] in bounds or bool(_BOUND_AFTER.match(q, span[1]))

        def hedged(span: Span) -> bool | None:
            """False: not hedged; True: an approximate fact (a statement); None: no fact
            (a hedged number in a question)."""
            if span[0] not in hedges:
                return False
            end = sentences.bounds(span[0])[1]
            return None if q[end - 1:end] == "?" else True

        def alternative(span: Span) -> bool:
            """A number a "whether" leaves open, or one of two offered: "whether it was last
            winter or two years ago", "could be last winter or two years ago" state no
            duration."""
            s0 = sentences.bounds(span[0])[0]
            return bool(_WHETHER_LEAD.search(q, max(s0, span[0] - 80), span[0])
                        or _EITHER_LEAD.search(q, max(s0, span[0] - 60), span[0])
                        or (_MAYBE_LEAD.search(q, max(s0, span[0] - 10), span[0])
                            and _MAYBE_AGAIN.match(q, span[1])))

        low = q.lower()
        found: list[QueryFact] = []
        left_open: dict[str, None] = {}

        def add(spec: FactSpec, value: Any, span: Span, **kw: Any) -> None:
            if any(span[0] < b and a < span[1] for a, b in excluded):
                return
            found.append(QueryFact(spec.name, value, spec.type.value, span, q[span[0]:span[1]],
                                   spec.unit, **kw))

        every_amount = find_amounts(q)
        amount_ends = {m.end() for m in every_amount}
        amounts = [m for m in every_amount if not bounded(m.span())
                   and hedged(m.span()) is not None and not alternative(m.span())
                   and not _LAW_FIGURE.search(q, max(0, m.start() - 40), m.start())]
        off = frozenset(name for name, hints in c["amount_hints"].items()
                        if hints and not any(h in low for h in hints))  # not this question's
        after_rx, after_specs = self._after(c, off)
        # a place inside an amount in words -> where it starts: the words before may reach
        # "fifty dollars" of "five hundred fifty dollars"
        inside = {i: m.start() for m in amounts for i in range(m.start() + 1, m.end())}
        before: dict[int, FactSpec] = {}  # where an amount starts -> the fact the words before
        if amounts:  # say (one pass per pattern; the first declared wins)
            for spec, rx in reversed(c["before"]):
                if spec.name in off:
                    continue
                for bm in rx.finditer(q):
                    before[inside.get(bm.end(), bm.end())] = spec
        deducted: dict[str, list[re.Match[str]]] = {}  # amounts the words after take off
        # an amount said again in another form right after it ("$7,500, seven thousand five
        # hundred, for old bills") is one amount, and the words after the second are its words
        said_to: dict[int, int] = {}  # the end of an amount -> the end of it said again
        once: list[re.Match[str]] = []
        for m in amounts:
            if once and _said_again_in_other_form(q, once[-1], m):
                said_to[once[-1].end()] = m.end()
            else:
                once.append(m)
        for group in _amount_lists(q, once):
            span = (group[0].start(), group[-1].end())
            end = said_to.get(span[1], span[1])
            lm = next((spec for spec, rx in c["less"]
                       if spec.name not in off and rx.match(q, end)), None)
            if lm is not None:
                if before.get(span[0]) is not lm:  # "owed $40,000, fully secured": no part
                    deducted.setdefault(lm.name, []).extend(group)
                continue
            lb = next((spec for spec, rx in c["less_before"] if spec.name not in off
                       and rx.search(q, max(0, span[0] - 100), span[0])), None)
            if lb is not None:  # "has a lien on equipment worth $28,000"
                deducted.setdefault(lb.name, []).extend(group)
                continue
            # an amount said again in parentheses takes the words after them: "sixteen
            # thousand ($16,000) in unpaid wages"
            head = q[:span[0]].rstrip()
            again = (q[end:end + 1] == ")" and head.endswith("(")
                     and len(head[:-1].rstrip()) in amount_ends)
            am = after_rx.match(q, end + again)
            spec = after_specs[int(am.lastgroup[1:])] if am and am.lastgroup else None
            if spec is None:
                spec = before.get(span[0])
            if spec is not None:
                add(spec, _sum(amount_value(m) for m in group) * _each_times(q, group, end),
                    span, approximate=any(hedged(m.span()) for m in group))

        duration_words = _Keywords(q, c["keywords"])
        implied: list[tuple[FactSpec, int, Span, bool]] = []  # "N days before." (of what?)
        for m in DURATION_RE.finditer(q):
            span = m.span()
            stated = bool(_STATED_WITHIN.search(q, max(0, span[0] - 40), span[0]))
            if m["n"] is not None and bounded(span) and not stated:
                continue
            if m["n"] is not None and hedged(span) is None:
                continue
            if _SOMETIME.search(q, max(0, span[0] - 30), span[0]):
                continue
            if alternative(span) or _REPORTED_LAW.search(q, sentences.bounds(span[0])[0],
                                                         span[0]):
                continue
            if m["n2"] is not None and _ONGOING.search(q, max(0, span[0] - 60), span[0]):
                continue  # how long a state lasted: "paid as it had for the past six years"
            spec = (duration_words.nearest(span, sentences, after_only=True) if m["n3"]
                    else duration_words.nearest(span, sentences) or c["default"])
            if spec is not None:
                days, approximate = _duration_days(m)
                approximate = approximate or bool(hedged(span))
                if m["bare"]:
                    implied.append((spec, days, span, approximate))
                else:
                    add(spec, days, span, approximate=approximate)

        for spec, rx, hints, less_count in c["counts"]:
            if hints and not any(h in low for h in hints):
                continue
            for m in rx.finditer(q):
                grp = next(g for g in rx.groupindex if g[0] in "no" and g[1:].isdigit() and m[g])
                if (bounded(m.span(grp)) or _BOUND_AFTER.match(q, m.end())
                        or hedged(m.span(grp)) is None
                        or _RULE_LEAD.search(q, max(0, m.start() - 30), m.start())):
                    continue
                n = number_value(m[grp]) + (grp[0] == "o")
                if less_count is not None:  # "15 creditors, but 5 of them are its own cooks"
                    n -= sum(number_value(lm["n"]) for lm in less_count.finditer(
                        q, m.end(), sentences.bounds(m.start())[1]))
                add(spec, n, m.span(), approximate=bool(hedged(m.span(grp))))

        unsure: set[str] = set()  # enumerations whose value the question offers as open
        for ch in c["choices"]:
            if (ch.bankruptcy_only and not bankruptcy) or (
                    ch.hints and not any(h in low for h in ch.hints)):
                continue
            for m in ch.rx.finditer(q):
                if _asked_not_asserted(q, m.span(), sentences,
                                       complement_only=ch.spec.type is FactType.ENUM):
                    # an enumeration's subject may be the one asked about ("is the CFO ..."),
                    # but a value only possible ("he might be an owner, a friend of the owner
                    # or nobody") leaves the enumeration open
                    if ch.spec.type is FactType.BOOL:
                        left_open[ch.spec.name] = None
                    elif _possible_only(q, m.span(), sentences):
                        left_open[ch.spec.name] = None
                        unsure.add(ch.spec.name)
                    continue
                if ch.spec.type is FactType.ENUM and _negated(q, m, sentences):
                    continue  # "she isn't an employee, officer or shareholder": no value
                add(ch.spec, ch.values[int(m.lastgroup[1:])], m.span())

        date_words = _Keywords(q, c["date_keywords"])
        for d in dates:
            spec = c["dates"].get(d.role)
            ends = d.granularity == "day" and d.modifier in PERIOD_END_MODIFIERS
            starts = d.granularity == "day" and d.modifier in PERIOD_START_MODIFIERS
            if (d.exact or ends or starts) and d.role in ("transfer", "generic"):  # what the
                # date is of, by the words (for a day paid, those before it)
                spec = date_words.nearest(d.span, sentences,
                                          before_only=d.cue in _PAID_CUES) or spec
            if spec is not None and (d.exact or (ends and spec.stated.get("period_end"))
                                     or (starts and spec.stated.get("earliest"))):
                add(spec, d.value, d.span)

        # a duration whose anchor is implied ("lent two years before") gives way to one that
        # names it and to the two dates it is between
        named = {f.name for f in found}
        for spec, days, span, approximate in implied:
            if spec.name not in named and not (
                    spec.days_between and set(spec.days_between) <= named):
                add(spec, days, span, approximate=approximate)
        spans = [m.span() for m in every_amount]
        for name, rx in c["totals"].items():
            found = _total_of_parts(q, found, name, rx, sentences, spans)
        for name, rx in c["unknown"].items():  # "I don't know what the others are owed"
            if rx.search(q):
                unsure.add(name)
                left_open[name] = None
        found = [f for f in found if f.name not in unsure]
        for name in c["earliest"]:  # several days of one fact: the first ("2/18 through 5/16")
            days = [f for f in found if f.name == name]
            if days:
                first = min(days, key=lambda f: f.value)
                found = [f for f in found if f.name != name or f is first]
        kept, warnings = _one_value_each(found)
        net = []
        for f in kept:
            if f.name in deducted:
                f = _less(q, f, deducted[f.name])
                if f.value < 0:  # more taken off than counted: not read as the question meant
                    warnings.append(f"{f.name}: the amounts {f.text!r} leave {f.value} once the "
                                    f"amounts said not to count are taken off: none taken")
                    continue
            net.append(f)
        kept = net
        kept, more = _derived(q, kept, c["derived"])
        warnings += more
        kept.sort(key=lambda f: (f.span, f.name))
        stated = {f.name for f in kept}
        return kept, tuple(n for n in left_open if n not in stated), warnings

    @staticmethod
    def _after(c: dict[str, Any], off: frozenset[str]) -> tuple[re.Pattern[str], list[FactSpec]]:
        """One regex of the words after an amount, over the amount facts not ruled out by
        their hints (compiled once per set of facts ruled out)."""
        got = c["after_rx"].get(off)
        if got is None:
            after = [(spec, p) for spec, p in c["after"] if spec.name not in off]
            rx = re.compile("|".join(f"(?P<a{i}>{p})" for i, (_, p) in enumerate(after)), re.I)
            got = c["after_rx"][off] = (rx, [spec for spec, _ in after])
        return got


def _duration_days(m: re.Match[str]) -> tuple[int, bool]:
    """The days of a DURATION_RE match and whether they are approximate (months and years;
    exact days in parentheses win: "six and a half weeks earlier (45 days)")."""
    exact = m["x1"] or m["x2"] or m["x3"]
    if exact:
        return int(exact), False
    n, unit = next((m[count] if count else None, m[unit]) for count, unit in _DURATION_GROUPS
                   if m[unit] is not None)
    n = n or "one"  # "in the last month", "worked my last month"
    unit = unit.lower().rstrip("s")
    days = (number_value(n) + (0.5 if m["half"] else 0)) * _UNIT_DAYS[unit]
    return round(days), unit in ("month", "year") or bool(m["half"])


# the date cues of a payment, after which only the words before a day say what it is the day of
_PAID_CUES = ("paid", "pays", "repaid", "transferred", "wired")


class _Keywords:
    """Where each fact's keywords occur in the question, found once (one pass per pattern),
    so that the nearest one to a span is found by bisection."""

    def __init__(self, q: str, keywords: list[tuple[FactSpec, re.Pattern[str]]]) -> None:
        found = sorted((m.start(), m.end(), i) for i, (_, rx) in enumerate(keywords)
                       for m in rx.finditer(q))
        self.starts = [f[0] for f in found]
        self.found = found
        self.specs = [spec for spec, _ in keywords]

    def nearest(self, span: Span, sentences: _Sentences, *, after_only: bool = False,
                before_only: bool = False) -> FactSpec | None:
        """The fact whose keywords occur nearest before the span in its sentence (within 200
        characters), or in the sentence before when a pronoun before the span points back to it
        ("$1,500 in cash advances. i took them out 65 days before"), else nearest after it,
        else None. `after_only`: the words after the span say what it is ("my last five weeks
        of wages"); `before_only`: only the words before it do ("paid us $7,800 on 2/10/24 for
        herd work done last fall" is a day paid, not one worked)."""
        s0, s1 = sentences.bounds(span[0])
        if s0 and _BACK_REFERENCE.search(sentences.q, s0, span[0]):
            s0 = sentences.bounds(s0 - 1)[0]
        lo, hi = max(s0, span[0] - 200), min(s1, span[1] + 200)
        i = bisect.bisect_left(self.starts, span[0])
        before = [] if after_only else self.found[max(0, i - 8):i]  # a few: overlaps
        for start, end, k in reversed(before):
            if start >= lo and end <= span[0]:
                return self.specs[k]
        j = bisect.bisect_left(self.starts, span[1])
        if not before_only and j < len(self.found) and self.found[j][1] <= hi:
            return self.specs[self.found[j][2]]
        return None


def _one_value_each(found: list[QueryFact]) -> tuple[list[QueryFact], list[str]]:
    """Repeats of the same value keep the first; conflicting values drop them all, unless the
    words of all but one value repeat within a mention of that one ("the mayor's son ... is
    the son an insider?": the son is the mayor's son)."""
    kept: list[QueryFact] = []
    warnings: list[str] = []
    by_name: dict[str, list[QueryFact]] = {}
    for f in sorted(found, key=lambda f: f.span):
        by_name.setdefault(f.name, []).append(f)
    for name, group in by_name.items():
        fuller = [f for f in group if all(
            g.value == f.value or re.search(rf"\b{re.escape(g.text)}\b", f.text, re.I)
            for g in group)]
        if fuller:
            group = fuller
        if len({f.value for f in group}) > 1:
            shown = ", ".join(f"{f.text!r}={f.value}" for f in group)
            warnings.append(f"conflicting values for {name} ({shown}): none taken")
            continue
        kept.append(group[0])
    return kept, warnings


def _amount_lists(q: str, amounts: list[re.Match[str]]) -> list[list[re.Match[str]]]:
    """The amounts in order, those of a list ("$400, $400 and $350") in one group: a fact the
    words around the list give is their sum (a range, "between $5,000 and $9,000", is bounded).
    An amount followed by "total", or the sum of the list before it, is the list's total, not
    one of it ("$3,500 and $4,500, $8,000 total"; "$9,000, $5,500 and $4,000, $18,500")."""
    groups: list[list[re.Match[str]]] = []
    for m in amounts:
        if (groups and _LIST_JOIN.fullmatch(q, groups[-1][-1].end(), m.start())
                and not _TOTAL_AFTER.match(q, m.end())
                and not (len(groups[-1]) > 1 and amount_value(m)
                         == _sum(amount_value(g) for g in groups[-1]))):
            groups[-1].append(m)
        else:
            groups.append([m])
    return groups


def _each_times(q: str, group: list[re.Match[str]], end: int) -> int:
    """How many times one amount "each" counts: "two cash advances of $700.00 each" (2), else
    1."""
    if len(group) > 1 or not _EACH.match(q, end):
        return 1
    m = _EACH_COUNT.search(q, max(0, group[0].start() - 60), group[0].start())
    return number_value(m["n"]) if m else 1


def _said_again_in_other_form(q: str, first: re.Match[str], m: re.Match[str]) -> bool:
    """`m` says `first` again in another form right after it: "$7,500, seven thousand five
    hundred", "$5,000.00, 5 grand" (in parentheses, `_said_again`)."""
    return (amount_value(first) == amount_value(m) and first[0] != m[0]
            and bool(_RESTATED_JOIN.fullmatch(q, first.end(), m.start())))


def _total_of_parts(q: str, found: list[QueryFact], name: str, total: re.Pattern[str],
                    sentences: _Sentences, amounts: list[Span]) -> list[QueryFact]:
    """`found` with the amounts of `name`, a fact the statute aggregates, made one: those the
    words around them (`total`; in the sentence, up to the next amount: 40 characters before,
    25 after, unless the word right after is the next amount's: "$3,400, total $16,700") or a
    sum's "=" before them state as the total, else one that is the sum of the others, else the
    sum of all of them, each a part ("one is owed $12,000, one $9,000"), but for one said again
    ("the $450 payment" after "$450", "fifteen grand ($15,000)").
    `amounts`: the spans of every amount in `q`, in order."""
    mine = [f for f in found if f.name == name]
    if len(mine) < 2:
        return found
    starts = [a for a, _ in amounts]

    def stated_as_total(f: QueryFact) -> bool:
        s0, s1 = sentences.bounds(f.span[0])
        i = bisect.bisect_left(starts, f.span[0])  # the amounts before f, and after it
        lo = max(s0, f.span[0] - 40, amounts[i - 1][1] if i else 0)
        j = bisect.bisect_left(starts, f.span[1])
        hi = min(s1, f.span[1] + 25, starts[j] if j < len(starts) else len(q))
        after = total.search(q, f.span[1], hi)
        if after and j < len(starts) and hi == starts[j] and not q[after.end():hi].strip(" ,:"):
            after = None  # "$3,400, total $16,700": the word is the next amount's
        return bool(total.search(q, lo, f.span[0]) or after
                    or _SUM_EQUALS.search(q, lo, f.span[0]))

    totals = [f for f in mine if stated_as_total(f)]
    if not totals:
        lo, hi = mine[0].span[0], mine[-1].span[1]
        first = mine[0]
        parts = [f for i, f in enumerate(mine) if not _said_again(q, mine, i)]
        # one amount that is the sum of the others is their total, said without the word:
        # "A ($8,000), B ($6,500) and C ($4,000) - $18,500 of claims"
        totals = [f for f in parts if len(parts) > 2
                  and f.value == _sum(g.value for g in parts if g is not f)][:1] or [
            QueryFact(name, _sum(f.value for f in parts), first.type, (lo, hi), q[lo:hi],
                      first.unit, any(f.approximate for f in parts), derived=True)]
    return [f for f in found if f.name != name] + totals


def _said_again(q: str, amounts: list[QueryFact], i: int) -> bool:
    """amounts[i] restates an earlier one: "the $450 payment" after "$450", "fifteen grand
    ($15,000)", "$28,750" after "its $28,750 payment", an amount in an email's subject line,
    or one a question at the end names again ("... cover an $8,500 payment?")."""
    f = amounts[i]
    if (_RESTATED.search(q, max(0, f.span[0] - 8), f.span[0])
            and any(e.value == f.value for e in amounts[:i])):
        return True
    if _ASKED_AGAIN.match(q, f.span[1]) and any(e.value == f.value for e in amounts[:i]):
        return True  # the question restates it: "... cover an $8,500 payment?"
    if any(e.value == f.value and (_REFERRED.search(q, max(0, e.span[0] - 8), e.span[0])
                                   or (_HEADER_LINE.match(q, q.rfind("\n", 0, e.span[0]) + 1)
                                       and "\n" in q[e.span[1]:f.span[0]]))
           for e in amounts[:i]):  # "its $28,750 payment ... paid Tri-County $28,750", an
        return True  # email's "Subject: Ben's ch 7 and the $925 cash advance"
    return i > 0 and amounts[i - 1].value == f.value and bool(
        _RESTATED_AMOUNT.fullmatch(q, amounts[i - 1].span[1], f.span[0]))


def _sum(values: Iterable[int | float]) -> int | float:
    value = round(sum(values), 2)
    return int(value) if value == int(value) else value


def _less(q: str, fact: QueryFact, minus: list[re.Match[str]]) -> QueryFact:
    """An amount less the amounts the question says do not count toward it ("$30,000 in
    total, but $15,000 of that is covered by a lien")."""
    value = fact.value
    assert isinstance(value, (int, float))
    value = round(value - sum(amount_value(m) for m in minus), 2)
    lo, hi = min(fact.span[0], minus[0].start()), max(fact.span[1], minus[-1].end())
    return QueryFact(fact.name, int(value) if value == int(value) else value, fact.type, (lo, hi),
                     q[lo:hi], fact.unit, fact.approximate, derived=True)


def _derived(q: str, kept: list[QueryFact],
             specs: list[FactSpec]) -> tuple[list[QueryFact], list[str]]:
    """`kept` with the durations declared as the days between two dates the question gives,
    and the warnings: a stated duration that disagrees with the dates gives way to them (an
    approximate one, "8 months before", silently); an earlier date after the later one is
    dropped."""
    by_name = {f.name: f for f in kept}
    out, warnings = list(kept), []
    for spec in specs:
        assert spec.days_between is not None
        earlier, later = (by_name.get(n) for n in spec.days_between)
        if earlier is None or later is None:
            continue
        assert isinstance(earlier.value, date) and isinstance(later.value, date)
        days = (later.value - earlier.value).days
        if days < 0:  # out of order: the day read as the earlier one is not
            out = [f for f in out if f is not earlier]
            warnings.append(f"{earlier.name} {earlier.text!r} is after {later.name} "
                            f"{later.text!r}: not taken")
            continue
        stated = by_name.get(spec.name)
        if stated is not None:
            if stated.value == days:
                continue
            out = [f for f in out if f is not stated]
            if not stated.approximate:
                warnings.append(f"{spec.name}: {stated.text!r} says {stated.value} days, but "
                                f"the dates are {days} days apart: the dates taken")
        lo, hi = min(earlier.span[0], later.span[0]), max(earlier.span[1], later.span[1])
        out.append(QueryFact(spec.name, days, spec.type.value, (lo, hi), q[lo:hi], spec.unit,
                             derived=True))
    return out, warnings


def _negated(q: str, m: re.Match[str], sentences: _Sentences) -> bool:
    """An enumeration's value that a negation before it governs ("she isn't an employee,
    officer or shareholder"); a value itself said as a negation ("no connection", "not
    related") only when it joins a negated list ("not married and not related")."""
    lead = _NEGATED_LIST.search(q, max(sentences.bounds(m.start())[0], m.start() - 60),
                                m.start())
    if lead is None:
        return False
    return not _NEGATION_WORD.match(m.group()) or bool(_JOINED.search(lead.group()))


def _possible_only(q: str, span: Span, sentences: _Sentences) -> bool:
    """A value a possibility or a "whether" leaves open: "he might be an owner", "I don't
    know if he was an officer" (a complement: not the subject of "whether the CFO counts")."""
    s0 = sentences.bounds(span[0])[0]
    if _MAYBE_LEAD.search(q, max(s0, span[0] - 40), span[0]):
        return True
    lead = _WHETHER_LEAD.search(q, max(s0, span[0] - 80), span[0])
    return lead is not None and bool(_COPULA.search(lead.group()))


def _asked_not_asserted(q: str, span: Span, sentences: _Sentences, *,
                        complement_only: bool = False) -> bool:
    """True when the phrase is the thing a yes/no question asks about ("Was X insolvent?",
    "Insider or not?", "Would the court treat her as an insider?"), what a question of what
    asks ("What's normal in the industry?"), what a "whether" leaves open, a possibility ("he
    might be an officer"), a value only compared with ("an insider like a relative would be"),
    or a word only named ("keeps using the word insider").
    With `complement_only` the phrase must also follow "a/an/the/considered" directly ("Is
    the debtor a corporation?"), so that "Is a director an insider of a corporation?" still
    says the debtor is a corporation, and be no subject right after the verb: "Is the CFO of
    our debtor an insider?" says the creditor is an officer."""
    s0, s1 = sentences.bounds(span[0])
    if _QUESTION_LABEL.fullmatch(q, s0, span[0]) and _FRAGMENT_TAIL.match(q, span[1]):
        return True
    if _LIKENED.search(q, max(s0, span[0] - 12), span[0]) and _LIKENED_TAIL.match(q, span[1]):
        return True
    if q[s1 - 1:s1] == "?" and _WH_LEAD.fullmatch(q, s0, span[0]):  # "What's normal in ...?"
        return True
    if (_WHETHER_LEAD.search(q, max(s0, span[0] - 80), span[0])
            or _MAYBE_LEAD.search(q, max(s0, span[0] - 40), span[0])
            or _CONTENTION_LEAD.search(q, max(s0, span[0] - 200), span[0])
            or _WORD_NAMED.search(q, max(s0, span[0] - 30), span[0])):
        return True
    s0 = max(s0, span[0] - 200)
    # a question after a lead-in: "For the look-back, is she", "IRAC: is the credit union"
    comma = max(q.rfind(",", s0, span[0]), q.rfind(":", s0, span[0]))
    starts = {s0, comma + 1} if comma >= 0 else {s0}
    if (_STATED_ASKED.search(q, max(s0, span[0] - 20), span[0])
            and _FRAGMENT_TAIL.match(q, span[1])):
        return True  # "The milk company is insider?"
    if not _YESNO_TAIL.match(q, span[1]):
        return False
    if _RUNON_YESNO.search(q, s0, span[0]):
        return True
    if not any(_YESNO_LEAD.match(q, start, span[0]) for start in starts):
        return False
    return not complement_only or (
        bool(_COMPLEMENT_LEAD.search(q, max(s0, span[0] - 30), span[0]))
        and not any(_SUBJECT_LEAD.fullmatch(q, start, span[0]) for start in starts))


def amount_value(m: re.Match[str]) -> int | float:
    if m["num"]:
        num, dec, mult = m["num"], m["dec"], m["mult"]
    elif m["num2"]:
        num, dec, mult = m["num2"], m["dec2"], m["mult2"]
    elif m["num4"]:
        num, dec, mult = m["num4"], m["dec4"], m["mult4"]
    elif m["num5"]:
        num, dec, mult = m["num5"], m["dec5"], None
    elif m["num8"]:
        num, dec, mult = m["num8"], m["dec8"], m["mult8"]
    elif m["num7"]:
        num, dec, mult = m["num7"], None, None
    elif m["hundreds"]:
        num, dec, mult = str(number_value(m["hundreds"])), None, None
    elif m["words6"]:
        num, mult = str(number_value(m["words6"])), m["mult6"]
        dec = ".5" if m["half"] else f".{number_value(m['point'])}" if m["point"] else None
    else:
        num, dec, mult = str(number_value(m["words"])), None, m["mult3"] or m["grand"]
    value = float(num.replace(",", "") + (dec or ""))
    if mult:
        value *= _MULT[mult.strip().lower()]
    if m["rest"] or m["rest6"]:  # "eight thousand five hundred", "a million three hundred thousand"
        value += number_value(m["rest"] or m["rest6"]) * (1_000 if m["rest6k"] else 1)
    value = round(value, 2)
    return int(value) if value == int(value) else value
