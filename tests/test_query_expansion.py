"""The legal thesaurus: its file parses, phrases match on word boundaries, every statutory term
is the law's own word in the provisions the entry names (read from the corpus), and the
lexical plane weighs the expansion below the question's words."""

from __future__ import annotations

from pathlib import Path

import pytest
from structfirst.engine.query_expansion import (
    THESAURUS_FILE,
    LegalThesaurus,
    ThesaurusError,
)
from structfirst.ingest.corpus import corpus_root
from structfirst.ingest.pipeline import find_sources, parse_sources

NEWEST = [  # the 2018 Title 11 edition and the newest version of Regulations B, E and M
    "us-code/title-11/2018/usc11.htm",
    "cfr-12/regulation/1002/2017-20417_20220101.xml",
    "cfr-12/regulation/1005/2016-24506.xml",
    "cfr-12/regulation/1013/2017-24411.xml",
]


def test_phrases_match_on_word_boundaries_and_known_terms_are_left_out() -> None:
    th = LegalThesaurus.load()
    assert th.expansions("Can the trustee claw back a payment to my cousin?") == (
        "avoid", "recover", "insider", "relative")
    assert th.expansions("A scar on the carpet") == ()  # "car" only as a word
    assert "avoid" not in th.expansions("May the trustee avoid it and claw it back?")


def test_a_malformed_entry_names_the_file_and_entry(tmp_path: Path) -> None:
    bad = tmp_path / "thesaurus.toml"
    bad.write_text('[[entry]]\nphrases = ["x"]\nterms = []\nwhere = ["/us/usc/t11/s1"]\n')
    with pytest.raises(ThesaurusError, match=r"thesaurus.toml: entry 1: terms must be"):
        LegalThesaurus.load(bad)
    bad.write_text('[[entry]]\nphrases = ["x"]\nterms = ["y"]\n')
    with pytest.raises(ThesaurusError, match="entry 1: needs exactly phrases, terms and where"):
        LegalThesaurus.load(bad)


def test_every_term_is_the_laws_word_in_the_provisions_named() -> None:
    files, _ = find_sources([corpus_root() / f for f in NEWEST])
    docs, _, _ = parse_sources(files, {}, progress=False)
    text: dict[str, list[str]] = {}
    for doc in docs:
        for node in doc.nodes:
            text.setdefault(node.id, []).append(f"{node.heading or ''} {node.text}".lower())
    failures = []
    for i, entry in enumerate(LegalThesaurus.load().entries, 1):
        for where in entry.where:
            assert where in text, f"{THESAURUS_FILE.name} entry {i}: no provision {where}"
        subtree = " ".join(
            t for node, texts in text.items() for t in texts
            if any(node == w or node.startswith(w + "/") for w in entry.where)
        )
        failures += [f"entry {i}: {term!r} not in {entry.where}" for term in entry.terms
                     if term.lower() not in subtree]
    assert not failures, "\n".join(failures)
