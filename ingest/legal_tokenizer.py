"""The citation-preserving tokenizer of the lexical plane, for the index and the query side alike.

`tokenize(text)` lowercases and splits legal text into terms with one pure-regex pass. What it
keeps whole, and how it normalizes it:

* **Section citations** become one token `§<section><subdivisions>`, lowercased:
  `§547(c)(9)`, `§ 547(c)(9)`, `section 547(c)(9)`, `Section 547(c)(9)`, `sec. 547(c)(9)`,
  `11 U.S.C. 547(c)(9)` and a bare `547(c)(9)` all give `§547(c)(9)`. CFR sections work the same
  way: `§ 1013.2(e)(1)`, `12 CFR 1013.2(e)(1)` give `§1013.2(e)(1)`. A bare number is read as a
  citation only when parenthesized subdivisions follow it directly (`547(c)(9)`, not `547`, and
  not a decimal such as `1013.2` or `2.5`); the words `section`/`sec.`/`§` make any number one.
  Lowercasing does not conflate levels: USC and CFR letter case is fixed by depth.
* **Enclosing citations** are emitted too, right after the full one: `§547(c)(9)` also yields
  `§547(c)` and `§547`. So a query for `§547` matches text that cites only `§547(c)(9)`, and a
  query for `§547(c)(9)` (which expands the same way) ranks the exact provision above its
  siblings (`§547(b)` shares only `§547`) instead of matching nothing. The price is that text
  citing many subdivisions of one section gets a high term frequency for the section token;
  BM25's saturation (k1) bounds that.
* **Title qualifiers** `11 U.S.C.` / `12 CFR` / `12 C.F.R.` become one token `11usc` / `12cfr`
  (`usc` / `cfr` without a title number); the section after them is a citation as above.
* **Plural citations** `§§ 547 and 548`, `sections 101 through 105`, `secs. 547(b), 548(a)` give
  one citation (with its prefixes) per listed section.
* **Dollar amounts** become one token, commas and zero cents dropped: `$7,575`, `$7,575.00` and
  `$7575` all give `$7575`; non-zero cents are kept (`$1,234.50` gives `$1234.50`), and
  `$5 million` gives `$5000000`. Only amounts written with `$` are amounts; a bare `7,575` gives
  the plain number token `7575`.
* **Other numbers** keep decimals and lose grouping commas: `1,000` gives `1000`, `2.5` stays.

Words are runs of letters and digits (`[^\\W_]+`, so Unicode letters count); a possessive `'s` is
dropped; hyphens and other punctuation split. No modal or logical word is ever dropped (`shall`,
`may`, `must`, `not`, `no`, `except`, `unless`, `any`, `such`, `and`, `or` all stay); the only
words dropped are `STOPWORDS`, a short list of articles, copulas and prepositions that carry
nothing in a bag of words. Words then get a light plural-only "S" stemmer (Harman 1991):
`debts` gives `debt`, `liabilities` gives `liability`; words of three letters or fewer, `KEEP`
words (the modals and their kin) and every citation, amount and number are left unstemmed.

Terms never contain whitespace, so the Lucene index can be built `-pretokenized` (whitespace
analyzer) from `" ".join(tokenize(text))`.
"""

from __future__ import annotations

import re

TOKENIZER_VERSION = "legal-tokenizer/1"

# Dropped everywhere. Deliberately tiny: no modal, negation, quantifier or connective.
STOPWORDS = frozenset(
    "a an the of to in on at by for from with as is are was were be been being "
    "it its this that these those which".split()
)
# Never stemmed (the modals and their kin, and words the S-stemmer would mangle).
KEEP = frozenset(
    "shall may must not no nor except unless any such all each every either neither "
    "only if whether less more does has was is this thus its always".split()
)

# A section number: USC `547`, `101`, `78j-1`, `2000e-2`; CFR `1013.2`, `1002.12`, `226.5b`.
_SEC = r"\d+[a-z]{0,3}(?:\.\d+[a-z]{0,3})?(?:-\d+[a-z]{0,3})?"
# Parenthesized subdivisions: `(c)(9)`, `(a)(2)(a)(ii)`, `(10a)`.
_SUBS = r"(?:\([a-z0-9]{1,6}\))*"
_CITE = _SEC + _SUBS
# One citation inside a citation group (and its parts).
_CITE_PARTS = re.compile(r"(" + _SEC + r")(" + _SUBS + r")")
_SUB = re.compile(r"\([a-z0-9]{1,6}\)")
_LIST_SEP = r"(?:\s*(?:,|;|and|or|to|through|[–—])\s*)+"
_CODE = r"u\.?\s?s\.?\s?c\.?(?:\s?a\.?)?(?![a-z])|c\.?\s?f\.?\s?r\.?(?![a-z])"

_MASTER = re.compile(
    # The lookahead rejects positions no token can start at before any alternative is tried
    # (halves the time on real text).
    r"(?=[\w§$])(?:"
    + "|".join(
        (
            # Fast path: a word starting with a letter, unless it may be a citation keyword.
            r"(?P<word>(?!sec)[^\W\d_][^\W_]*)(?:['’]s\b)?",
            # `11 U.S.C. § 547(c)(9)`, `12 CFR 1013.2`, `11 U.S.C.` alone
            r"(?P<titled>(?<![\w.])\d+\s*(?:" + _CODE + r")"
            r"(?:\s*(?:§§|sections\b|secs\.)\s*" + _CITE + r"(?:" + _LIST_SEP + _CITE + r")*"
            r"|\s*(?:§|section\b|sec\.)?\s*" + _CITE + r"(?![\w]))?)",
            # `§§ 547 and 548`, `sections 101 through 105`
            r"(?P<plural>(?:§§|(?<![\w])sections\b|(?<![\w])secs\.)\s*"
            + _CITE
            + r"(?:"
            + _LIST_SEP
            + _CITE
            + r")*)",
            # `§ 547(c)(9)`, `section 547`, `sec. 547(c)`
            r"(?P<keyed>(?:§|(?<![\w])section\b|(?<![\w])sect?\.)\s*" + _CITE + r")",
            # bare `547(c)(9)`, `1013.2(e)(1)`: a number directly followed by subdivisions
            r"(?P<bare>(?<![\w.§$(])" + _SEC + r"(?:\([a-z0-9]{1,6}\))+)",
            # `$7,575.00`, `$5 million`
            r"(?P<money>\$\s?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d{1,2})?"
            r"(?:\s+(?:thousand|million|billion)\b)?)",
            # `1,000`, `2.5`, `1013.2`
            r"(?P<num>\d+(?:[.,]\d+)+(?![^\W_]))",
            # words and plain numbers; a possessive `'s` is swallowed
            r"(?P<word2>[^\W_]+)(?:['’]s\b)?",
        )
    )
    + ")"
)
_CODE_RE = re.compile(r"(\d+)\s*(" + _CODE + r")")
_MULT = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}

_word_cache: dict[str, str | None] = {}
_WORD_CACHE_MAX = 200_000


def _stem(word: str) -> str:
    """Harman's S-stemmer: plural endings only."""
    if len(word) <= 3 or word in KEEP or not word.isalpha():
        return word
    if word.endswith("ies") and not word.endswith(("eies", "aies")):
        return word[:-3] + "y"
    if word.endswith("es") and not word.endswith(("aes", "ees", "oes")):
        return word[:-1]
    if word.endswith("s") and not word.endswith(("us", "ss")):
        return word[:-1]
    return word


def _word(word: str) -> str | None:
    out = _word_cache.get(word, "")
    if out != "":
        return out
    out = None if word in STOPWORDS else _stem(word)
    if len(_word_cache) >= _WORD_CACHE_MAX:
        _word_cache.clear()
    _word_cache[word] = out
    return out


def _cite_tokens(sec: str, subs: str, out: list[str]) -> None:
    """Append `§sec+subs` and its enclosing citations, most specific first."""
    base = "§" + sec
    if not subs:
        out.append(base)
        return
    parts = _SUB.findall(subs)
    for i in range(len(parts), 0, -1):
        out.append(base + "".join(parts[:i]))
    out.append(base)


def _cites_in(group: str, out: list[str]) -> None:
    for m in _CITE_PARTS.finditer(group):
        _cite_tokens(m.group(1), m.group(2), out)


def _money(text: str) -> str:
    amount, *mult = text[1:].split()
    whole, _, cents = amount.replace(",", "").partition(".")
    if mult:
        cents_value = int(cents.ljust(2, "0")) if cents else 0
        return f"${(int(whole) * 100 + cents_value) * _MULT[mult[0]] // 100}"
    if cents and int(cents) != 0:
        return f"${int(whole)}.{cents.ljust(2, '0')}"
    return f"${int(whole)}"


def tokenize(text: str) -> list[str]:
    """The terms of `text`, in order (citations followed by their enclosing citations)."""
    out: list[str] = []
    append = out.append
    word = _word
    for m in _MASTER.finditer(text.lower()):
        kind = m.lastgroup
        if kind == "word" or kind == "word2":
            w = word(m.group(kind))
            if w is not None:
                append(w)
        elif kind == "num":
            append(m.group(kind).replace(",", ""))
        elif kind == "money":
            append(_money(m.group(kind)))
        elif kind == "bare":
            _cites_in(m.group(kind), out)
        elif kind == "keyed" or kind == "plural":
            _cites_in(m.group(kind), out)  # the keyword holds no digit
        else:  # titled
            group = m.group(kind)
            cm = _CODE_RE.match(group)
            assert cm is not None
            append(cm.group(1) + ("cfr" if cm.group(2).startswith("c") else "usc"))
            _cites_in(group[cm.end() :], out)
    return out


def analyze(text: str) -> str:
    """`text` as the whitespace-joined terms a pretokenized Lucene index stores."""
    return " ".join(tokenize(text))
