"""The citation-preserving tokenizer: one normal form per citation, amount and modal."""

from __future__ import annotations

import pytest
from structfirst.ingest.legal_tokenizer import STOPWORDS, analyze, tokenize

CITE_547_C_9 = ["§547(c)(9)", "§547(c)", "§547"]


@pytest.mark.parametrize(
    "text",
    [
        "§547(c)(9)",
        "§ 547(c)(9)",
        "§\u00a0547(c)(9)",  # no-break space, as in the USC editions
        "section 547(c)(9)",
        "Section 547(c)(9)",
        "SECTION 547(C)(9)",
        "sec. 547(c)(9)",
        "Sec. 547(c)(9)",
        "547(c)(9)",
        "11 U.S.C. 547(c)(9)",
    ],
)
def test_section_citation_forms_normalize_to_one_token(text: str) -> None:
    toks = tokenize(text)
    assert [t for t in toks if t != "11usc"] == CITE_547_C_9


def test_citation_keeps_its_prefixes_in_context() -> None:
    toks = tokenize("11 U.S.C. § 547(c)(9): the trustee may not avoid such a transfer")
    assert toks[:4] == ["11usc", *CITE_547_C_9]
    assert toks[4:] == ["trustee", "may", "not", "avoid", "such", "transfer"]


def test_cfr_citations() -> None:
    expected = ["§1013.2(e)(1)", "§1013.2(e)", "§1013.2"]
    assert tokenize("§ 1013.2(e)(1)") == expected
    assert tokenize("12 CFR 1013.2(e)(1)") == ["12cfr", *expected]
    assert tokenize("12 C.F.R. § 1013.2(e)(1)") == ["12cfr", *expected]
    assert tokenize("1013.2(e)(1)") == expected
    assert tokenize("12 CFR 1013.2") == ["12cfr", "§1013.2"]
    assert tokenize("12 CFR part 1013") == ["12cfr", "part", "1013"]


def test_a_bare_number_or_decimal_is_not_a_citation() -> None:
    assert tokenize("547") == ["547"]
    assert tokenize("1013.2") == ["1013.2"]
    assert tokenize("2.5 percent") == ["2.5", "percent"]
    assert tokenize("under paragraph (1)(B)") == ["under", "paragraph", "1", "b"]


def test_odd_section_numbers() -> None:
    assert tokenize("section 101(10A)") == ["§101(10a)", "§101"]
    assert tokenize("42 U.S.C. § 2000e-2(a)") == ["42usc", "§2000e-2(a)", "§2000e-2"]
    assert tokenize("§547. Preferences") == ["§547", "preference"]
    assert tokenize("(see § 547(c)(9)).") == ["see", *CITE_547_C_9]


def test_plural_citations() -> None:
    assert tokenize("sections 547 and 548") == ["§547", "§548"]
    assert tokenize("§§ 101–112") == ["§101", "§112"]
    assert tokenize("secs. 547(b), 548(a)") == ["§547(b)", "§547", "§548(a)", "§548"]
    assert tokenize("11 U.S.C. §§ 547, 548") == ["11usc", "§547", "§548"]
    # a singular citation does not swallow the numbers after it
    assert tokenize("section 547 and 5 others") == ["§547", "and", "5", "other"]


def test_subsection_is_not_section() -> None:
    assert tokenize("subsection (c)") == ["subsection", "c"]
    assert tokenize("this section") == ["section"]


@pytest.mark.parametrize("text", ["$7,575", "$7,575.00", "$7575", "$ 7,575", "$7575.0"])
def test_dollar_amounts_normalize_to_one_token(text: str) -> None:
    assert tokenize(text) == ["$7575"]


def test_dollar_amount_details() -> None:
    assert tokenize("$1,234.50") == ["$1234.50"]
    assert tokenize("$1,234.5") == ["$1234.50"]
    assert tokenize("$5 million") == ["$5000000"]
    assert tokenize("$2.5 billion") == ["$2500000000"]
    assert tokenize("less than $6,225.") == ["less", "than", "$6225"]
    assert tokenize("7,575") == ["7575"]  # without `$`, a plain number


@pytest.mark.parametrize(
    "word", ["shall", "may", "must", "not", "no", "except", "unless", "any", "such", "and", "or"]
)
def test_modals_and_logical_words_are_never_dropped(word: str) -> None:
    assert tokenize(word) == [word]
    assert tokenize(word.upper()) == [word]
    assert word not in STOPWORDS


def test_light_stemming_spares_citations_amounts_and_modals() -> None:
    assert tokenize("debts liabilities transfers") == ["debt", "liability", "transfer"]
    assert tokenize("less unless was does") == ["less", "unless", "does"]
    assert tokenize("debtor's") == ["debtor"]


def test_stopwords_are_few_and_dropped() -> None:
    assert tokenize("the value of the property") == ["value", "property"]
    assert len(STOPWORDS) < 40


def test_analyze_joins_with_spaces_and_terms_have_no_whitespace() -> None:
    text = "11 U.S.C. § 547(c)(9) is less than $6,225 unless\u2009§ 1013.2(e)(1)"
    assert analyze(text) == " ".join(tokenize(text))
    assert all(t and not any(c.isspace() for c in t) for t in tokenize(text))


def test_empty_and_punctuation_only() -> None:
    assert tokenize("") == []
    assert tokenize(" ... ; -- ") == []
    assert tokenize("§") == []
