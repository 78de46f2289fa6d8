"""Cross-reference resolution in real Title 11 text."""

from __future__ import annotations

import pytest
from structfirst.ingest.crossrefs import OUTSIDE, link_crossrefs, resolution_rate
from structfirst.ingest.model import EdgeType, ParsedDocument
from structfirst.ingest.uscode import parse_uscode

T = "/us/usc/t11"


@pytest.fixture(scope="module")
def ed2018(corpus) -> ParsedDocument:
    return parse_uscode(corpus / "us-code" / "title-11" / "2018" / "usc11.htm")


def refs_from(doc: ParsedDocument, src: str) -> dict[str, str]:
    return {
        e.dst: e.attrs["text"] for e in doc.edges if e.type == EdgeType.CROSS_REFS and e.src == src
    }


def test_547b_refers_to_subsections_c_and_i(ed2018):
    got = refs_from(ed2018, f"{T}/s547/b")
    assert got == {
        f"{T}/s547/c": "subsections (c) and (i) of this section",
        f"{T}/s547/i": "subsections (c) and (i) of this section",
    }


def test_relative_references(ed2018):
    # "paragraph (3) of this subsection" in §547(e)(2)
    assert f"{T}/s547/e/3" in refs_from(ed2018, f"{T}/s547/e/2")
    # "subsection (b)(4)(A) of this section" in §547(c)(5)(A)(i)
    assert f"{T}/s547/b/4/A" in refs_from(ed2018, f"{T}/s547/c/5/A/i")
    # bare "subsection (c)(3)(B)" in §547(e)(2)(A)
    assert f"{T}/s547/c/3/B" in refs_from(ed2018, f"{T}/s547/e/2/A")
    # "paragraph (2)": the nearest level that has one; "subparagraph (A)" likewise
    # "for purposes of section 109 and chapter 12, ... described in subparagraph (A)"
    assert refs_from(ed2018, f"{T}/s101/7A/B") == {
        f"{T}/s109": "section 109",
        f"{T}/ch12": "chapter 12",
        f"{T}/s101/7A/A": "subparagraph (A)",
    }
    assert refs_from(ed2018, f"{T}/s110/j/2/A") == {f"{T}/s110/j/1": "paragraph (1)"}
    rel = [e for e in ed2018.edges if e.type == EdgeType.CROSS_REFS and e.attrs["relative"]]
    assert rel and all(e.provenance.confidence == 0.9 for e in rel)


def test_section_lists_chapters_and_external_refs(ed2018):
    got = refs_from(ed2018, f"{T}/s104/a")
    for target in ("s101/3", "s101/18", "s101/19A", "s522/f/3", "s547/c/9", "s1326/b/3"):
        assert f"{T}/{target}" in got
    assert got[f"{T}/s547/c/9"].startswith("sections 101(3), 101(18), 101(19A)")
    assert got[f"{T}/s547/c/9"].endswith("of this title")
    ext = [u for u in ed2018.unresolved if u.src == f"{T}/s104/a"]
    assert [(u.text, u.reason) for u in ext] == [("section 1409(b) of title 28", OUTSIDE)]
    assert refs_from(ed2018, f"{T}/s547/b/5/A") == {f"{T}/ch7": "chapter 7 of this title"}
    # "Subchapters I and II of chapter 7 of this title" in §103(b)
    got = refs_from(ed2018, f"{T}/s103/b")
    assert {f"{T}/ch7/schI", f"{T}/ch7/schII"} <= set(got)


def test_resolution_rate_excludes_external_refs(ed2018):
    resolved, total = resolution_rate(ed2018)
    edges = sum(1 for e in ed2018.edges if e.type == EdgeType.CROSS_REFS)
    unresolved_in_title = sum(1 for u in ed2018.unresolved if u.reason != OUTSIDE)
    assert (resolved, total) == (edges, edges + unresolved_in_title)
    assert any(u.reason == OUTSIDE for u in ed2018.unresolved)
    assert resolved / total >= 0.95


def test_link_crossrefs_is_repeatable(ed2018):
    edges, unresolved = link_crossrefs(ed2018)
    stored = [e for e in ed2018.edges if e.type == EdgeType.CROSS_REFS]
    assert [(e.src, e.dst, e.attrs["text"]) for e in edges] == [
        (e.src, e.dst, e.attrs["text"]) for e in stored
    ]
    assert len(unresolved) == len(ed2018.unresolved)
