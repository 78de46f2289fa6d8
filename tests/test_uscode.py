"""US Code XHTML parser on real annual editions (Title 11 2010 and 2018, a few other titles)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from structfirst.ingest.model import (
    Authority,
    EdgeType,
    FactKind,
    IngestError,
    NodeType,
    ParsedDocument,
)
from structfirst.ingest.uscode import (
    PARSER_VERSION,
    MissingSourceError,
    clean_html,
    parse_uscode,
    read_source,
    split_enums,
)

T = "/us/usc/t11"


def t11(corpus: Path, year: int) -> Path:
    return corpus / "us-code" / "title-11" / str(year) / "usc11.htm"


@pytest.fixture(scope="module")
def ed2018(corpus) -> ParsedDocument:
    return parse_uscode(t11(corpus, 2018))


@pytest.fixture(scope="module")
def ed2010(corpus) -> ParsedDocument:
    return parse_uscode(t11(corpus, 2010))


@pytest.fixture(scope="module")
def src2018(corpus) -> str:
    path = t11(corpus, 2018)
    return read_source(path, str(path))


def nodes(doc: ParsedDocument) -> dict:
    return {n.id: n for n in doc.nodes}


def test_edition_header(ed2018, ed2010):
    e = ed2018.edition
    assert e.source_id == "us-code/title-11/2018/usc11.htm"
    assert e.name == "2018 Main Edition"
    assert e.laws_enacted_through == e.effective_from == date(2019, 1, 14)
    assert e.document_number == "2018MNED018"
    assert ed2010.edition.name == "2006 Edition and Supplement IV"
    assert ed2010.edition.effective_from == date(2011, 1, 7)
    assert all(n.effective_from == date(2019, 1, 14) for n in ed2018.nodes)


def test_structure_of_547(ed2018):
    by = nodes(ed2018)
    assert by[T].type == NodeType.DOCUMENT and by[T].parent is None
    assert by[f"{T}/ch5"].parent == T and by[f"{T}/ch5"].attrs["level"] == "chapter"
    sch = by[f"{T}/ch5/schIII"]
    assert sch.parent == f"{T}/ch5" and sch.heading == "THE ESTATE"
    s = by[f"{T}/s547"]
    assert (s.type, s.heading, s.citation, s.parent) == (
        NodeType.SECTION,
        "Preferences",
        "11 U.S.C. § 547",
        f"{T}/ch5/schIII",
    )
    assert s.jurisdiction == "us-federal" and s.authority == Authority.STATUTE
    assert s.attrs["source_credit"].startswith("(Pub. L. 95–598, Nov. 6, 1978, 92 Stat. 2597;")
    c9 = by[f"{T}/s547/c/9"]
    assert c9.type == NodeType.CLAUSE and c9.parent == f"{T}/s547/c"
    assert c9.citation == "11 U.S.C. § 547(c)(9)"
    assert c9.attrs["hierarchy_path"] == "Title 11 > Chapter 5 > Subchapter III > § 547 > (c) > (9)"
    assert c9.text.startswith("if, in a case filed by a debtor whose debts are not primarily")
    assert c9.text.endswith("is less than $5,000.")  # the footnote marker is dropped
    b = by[f"{T}/s547/b"]
    assert b.text.startswith("Except as provided in subsections (c) and (i) of this section")
    assert by[f"{T}/s547/b/4/B"].parent == f"{T}/s547/b/4"
    assert by[f"{T}/s547/b/4/B"].attrs["level"] == "subparagraph"
    # (h) is followed by subsection (i), not by a clause
    assert by[f"{T}/s547/i"].parent == f"{T}/s547"
    assert by[f"{T}/s547/i"].attrs["level"] == "subsection"
    # clause (i) under (e)(2)(C), indented below it
    assert by[f"{T}/s547/e/2/C/i"].attrs["level"] == "clause"
    subsections = [
        n.id for n in ed2018.nodes if n.parent == f"{T}/s547" and n.type == NodeType.CLAUSE
    ]
    assert subsections == [f"{T}/s547/{x}" for x in "abcdefghi"]


def test_definition_paragraphs_of_101(ed2018):
    by = nodes(ed2018)
    assert by[f"{T}/s101"].text == "In this title the following definitions shall apply:"
    p31 = by[f"{T}/s101/31"]
    assert p31.parent == f"{T}/s101" and p31.text == 'The term "insider" includes—'
    i = by[f"{T}/s101/31/A/i"]
    assert i.parent == f"{T}/s101/31/A"
    assert i.text == "relative of the debtor or of a general partner of the debtor;"
    assert i.citation == "11 U.S.C. § 101(31)(A)(i)"
    assert f"{T}/s101/4A" in by and by[f"{T}/s101/4A"].attrs["level"] == "paragraph"


def test_combined_enumerators_and_flush_text(ed2018):
    by = nodes(ed2018)
    # "(e)(1) For the purposes of this section—": (e) has no text of its own
    assert by[f"{T}/s547/e"].text == ""
    assert by[f"{T}/s547/e/1"].text == "For the purposes of this section—"
    # "(2) For the purposes ..." printed flush with (e) is still paragraph (2) of (e)
    assert by[f"{T}/s547/e/2"].parent == f"{T}/s547/e"
    # flush text after a list belongs to the parent: §110(j)(2)(A)
    a = by[f"{T}/s110/j/2/A"]
    assert a.text.endswith(
        "if the court finds that— the court may enjoin the bankruptcy petition preparer "
        "from engaging in such conduct."
    )
    assert a.attrs["continuation"][0]["kind"] == "continuation"
    assert split_enums("(A)(i) with respect to") == (["A", "i"], "with respect to")
    assert split_enums('"(A) quoted') == ([], '"(A) quoted')


def test_repealed_section_and_notes(ed2018):
    by = nodes(ed2018)
    s304 = by[f"{T}/s304"]
    assert s304.attrs["status"] == "repealed"
    assert s304.text.startswith("Section, Pub. L. 95–598")
    note = by[f"{T}/s547/note/amendments"]
    assert note.type == NodeType.NOTE and note.authority == Authority.NOTE
    assert note.attrs == {
        "note_kind": "amendment-note",
        "heading": "Amendments",
        "hierarchy_path": "Title 11 > Chapter 5 > Subchapter III > § 547 > Note: Amendments",
    }
    assert note.text.startswith("2005—Subsec. (b). Pub. L. 109–8, §1213(a)(1), substituted")
    annotates = {(e.src, e.dst) for e in ed2018.edges if e.type == EdgeType.ANNOTATES}
    assert (note.id, f"{T}/s547") in annotates
    eff = by[f"{T}/s547/note/effective-date-of-1994-amendment"]
    assert eff.attrs["note_kind"] == "effectivedate-amendment-note"
    contains = {(e.src, e.dst) for e in ed2018.edges if e.type == EdgeType.CONTAINS}
    assert (f"{T}/s547/c", f"{T}/s547/c/9") in contains
    assert not any(dst == note.id for _, dst in contains)


def test_effective_date_facts(ed2018):
    facts = [
        f for f in ed2018.facts if f.kind == FactKind.EFFECTIVE_DATE and f.node_id == f"{T}/s547"
    ]
    got = {(f.value, f.attrs["public_law"], f.attrs["note_kind"]) for f in facts}
    assert ("1994-10-22", "103-394", "effectivedate-amendment-note") in got
    # "effective 180 days after Apr. 20, 2005"
    assert ("2005-10-17", "109-8", "effectivedate-amendment-note") in got
    assert ("2019-04-01", None, "adjustment-of-dollar-amounts") in got
    f94 = next(f for f in facts if f.value == "1994-10-22")
    assert f94.text == "effective Oct. 22, 1994" and f94.effective_from == date(1994, 10, 22)


def test_spans_point_at_the_source(ed2018, src2018):
    by = nodes(ed2018)
    c9 = by[f"{T}/s547/c/9"]
    s, e = c9.provenance.span
    assert src2018[s:e].startswith('<p class="statutory-body-1em">(9) if, in a case filed')
    assert src2018[s:e].endswith("</p>")
    assert clean_html(src2018[s:e]) == "(9) " + c9.text
    s, e = by[f"{T}/s547"].provenance.span
    assert src2018[s:e].startswith('<h3 class="section-head">§547. Preferences</h3>')
    assert "(i) If the trustee avoids under subsection (b)" in src2018[s:e]
    assert "Amendments" not in src2018[s:e]
    s, e = by[f"{T}/s547/note/amendments"].provenance.span
    assert src2018[s:e].startswith('<h4 class="note-head">Amendments</h4>')
    assert c9.provenance.parser_version == PARSER_VERSION


def test_reparse_is_deterministic(corpus, ed2018):
    again = parse_uscode(t11(corpus, 2018))
    assert [(n.id, n.provenance.prov_id) for n in again.nodes] == [
        (n.id, n.provenance.prov_id) for n in ed2018.nodes
    ]
    assert [f.fact_id for f in again.facts] == [f.fact_id for f in ed2018.facts]
    assert [(e.src, e.dst, e.type) for e in again.edges] == [
        (e.src, e.dst, e.type) for e in ed2018.edges
    ]
    ids = [n.id for n in ed2018.nodes]
    assert len(ids) == len(set(ids))


def test_truncated_file_names_file_and_line(corpus, tmp_path):
    raw = t11(corpus, 2018).read_bytes()
    cut = tmp_path / "usc11.htm"
    cut.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(IngestError) as err:
        parse_uscode(cut)
    msg = str(err.value)
    assert str(cut) in msg and "line " in msg and "truncated" in msg


def test_missing_and_non_title_files(corpus, tmp_path):
    missing = tmp_path / "nope" / "usc11.htm"
    with pytest.raises(MissingSourceError) as err:
        parse_uscode(missing)
    assert isinstance(err.value, FileNotFoundError) and str(missing) in str(err.value)
    with pytest.raises(IngestError, match="not a US Code title file"):
        parse_uscode(corpus / "us-code" / "2018" / "uscTable5.htm")


def test_older_editions_quirks(corpus):
    # 1998: the Title 11 file opens with Title 12 items (root itempath "/110"): skipped
    d98 = parse_uscode(t11(corpus, 1998))
    by = nodes(d98)
    assert any("Title 12" in w for w in d98.warnings)
    assert f"{T}/s93" not in by and by[f"{T}/s101"].parent == f"{T}/ch1"
    assert by[f"{T}/s547/c/2/A"].text.startswith("in payment of a debt incurred by the debtor")
    # 1994: chapter 11 is printed inside a blank item of chapter 9 ("SUBCHAPTER I_2")
    d94 = parse_uscode(t11(corpus, 1994))
    by = nodes(d94)
    assert by[f"{T}/s1101"].parent == f"{T}/ch11/schI"
    assert by[f"{T}/ch11"].heading == "REORGANIZATION"
    assert by[f"{T}/s547/a/1"].text.startswith("“inventory” means personal property")


def test_other_titles(corpus):
    usc = corpus / "us-code" / "2018"
    t6 = nodes(parse_uscode(usc / "usc06.htm"))
    a = t6["/us/usc/t6/s104/a"]  # a headed subsection: <h4 class="subsection-head">
    assert a.heading == "Strategy and implementation plan required"
    assert a.text.startswith("The Secretary of Defense, the Secretary of Health")
    assert t6["/us/usc/t6/s104/b/1"].parent == "/us/usc/t6/s104/b"
    rules = nodes(parse_uscode(usc / "usc11a.htm"))
    r1001 = next(n for i, n in rules.items() if i.endswith("/r1001"))
    assert r1001.id.startswith("/us/usc/t11a/") and r1001.type == NodeType.SECTION
    assert r1001.heading == "Scope of Rules and Forms; Short Title"
    tiny = parse_uscode(usc / "usc50a.htm")
    assert tiny.nodes[0].id == "/us/usc/t50a"
