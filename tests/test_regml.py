"""The RegML parser on real Regulation M, B and E versions and on small hand-made files."""

from __future__ import annotations

import time
from datetime import date
from pathlib import Path

import pytest
from structfirst.ingest.model import (
    Authority,
    EdgeType,
    IngestError,
    NodeType,
    ParsedDocument,
    to_record,
)
from structfirst.ingest.regml import parse_regml

REG = Path("cfr-12/regulation")


@pytest.fixture(scope="module")
def reg_m(corpus: Path) -> ParsedDocument:
    return parse_regml(corpus / REG / "1013/2017-24411.xml")


@pytest.fixture(scope="module")
def reg_m_2017(corpus: Path) -> ParsedDocument:
    return parse_regml(corpus / REG / "1013/2016-28710.xml")


@pytest.fixture(scope="module")
def reg_b(corpus: Path) -> ParsedDocument:
    return parse_regml(corpus / REG / "1002/2017-20417_20220101.xml")


def _nodes(doc: ParsedDocument) -> dict:
    return {n.id: n for n in doc.nodes}


def _edges(doc: ParsedDocument, etype: EdgeType) -> dict:
    return {(e.src, e.dst): e for e in doc.edges if e.type == etype}


def _source_text(corpus: Path, doc: ParsedDocument) -> str:
    return (corpus / doc.edition.source_id).read_bytes().decode("utf-8")


def test_edition(reg_m: ParsedDocument, reg_m_2017: ParsedDocument) -> None:
    ed = reg_m.edition
    assert ed.source_id == "cfr-12/regulation/1013/2017-24411.xml"
    assert (ed.name, ed.document_number) == ("2017-24411", "2017-24411")
    assert ed.effective_from == date(2018, 1, 1)
    assert reg_m_2017.edition.effective_from == date(2017, 1, 1)
    assert all(n.effective_from == date(2018, 1, 1) for n in reg_m.nodes)


def test_document_section_paragraph_ids(reg_m: ParsedDocument) -> None:
    nodes = _nodes(reg_m)
    doc = nodes["/us/cfr/t12/p1013"]
    assert doc.type == NodeType.DOCUMENT
    assert doc.citation == "12 CFR part 1013"
    assert doc.heading == "CONSUMER LEASING (Regulation M)"
    sec = nodes["/us/cfr/t12/s1013.2"]
    assert (sec.type, sec.citation, sec.heading) == (
        NodeType.SECTION,
        "12 CFR 1013.2",
        "Definitions.",
    )
    assert sec.parent == "/us/cfr/t12/p1013"  # the unnamed subpart has no node
    para = nodes["/us/cfr/t12/s1013.2/e/1"]
    assert para.type == NodeType.CLAUSE
    assert para.citation == "12 CFR 1013.2(e)(1)"
    assert para.parent == "/us/cfr/t12/s1013.2/e"
    assert para.attrs["label"] == "1013-2-e-1"
    assert para.attrs["hierarchy_path"] == "12 CFR Part 1013 > § 1013.2 > (e) > (1)"
    assert para.authority == Authority.REGULATION
    assert para.jurisdiction == "us-federal/cfpb"
    assert para.text.startswith("Consumer lease means a contract in the form of a bailment")
    assert nodes["/us/cfr/t12/p1013/appA"].heading == "Appendix A to Part 1013—Model Forms"
    assert nodes["/us/cfr/t12/p1013/appA/1/p1"].attrs["images"]
    contains = _edges(reg_m, EdgeType.CONTAINS)
    assert ("/us/cfr/t12/s1013.2/e", "/us/cfr/t12/s1013.2/e/1") in contains
    assert all((n.parent, n.id) in contains for n in reg_m.nodes if n.parent)
    assert len({n.id for n in reg_m.nodes}) == len(reg_m.nodes)


def test_spans_are_the_elements(corpus: Path, reg_m: ParsedDocument) -> None:
    text = _source_text(corpus, reg_m)
    nodes = _nodes(reg_m)
    s, e = nodes["/us/cfr/t12/s1013.2/e/1"].provenance.span
    assert text[s:e].startswith('<paragraph label="1013-2-e-1" marker="(1)">')
    assert text[s:e].endswith("</paragraph>")
    for node in reg_m.nodes:
        frag = text[slice(*node.provenance.span)]
        assert frag.startswith("<") and frag.endswith(">")
        if node.attrs.get("label"):
            assert f'label="{node.attrs["label"]}"' in frag.split(">", 1)[0]
    for edge in reg_m.edges:
        if edge.type in (EdgeType.CROSS_REFS, EdgeType.USES):
            assert text[slice(*edge.provenance.span)].startswith("<ref ")
    assert nodes["/us/cfr/t12/s1013.2/e/1"].provenance.parser_version == "regml/1"


def test_defined_terms(corpus: Path, reg_m: ParsedDocument) -> None:
    nodes = _nodes(reg_m)
    term = nodes["/us/cfr/t12/p1013/term/consumer-lease"]
    assert term.type == NodeType.DEFINED_TERM
    assert term.attrs["term"] == "consumer lease"
    assert term.attrs["scope"] == "/us/cfr/t12/p1013"  # "For the purposes of this part"
    assert term.parent == "/us/cfr/t12/s1013.2/e/1"
    text = _source_text(corpus, reg_m)
    assert text[slice(*term.provenance.span)] == ('<def term="consumer lease">Consumer lease</def>')
    defines = _edges(reg_m, EdgeType.DEFINES)
    assert ("/us/cfr/t12/s1013.2/e/1", "/us/cfr/t12/p1013/term/consumer-lease") in defines
    assert ("/us/cfr/t12/s1013.2/e/1", "/us/cfr/t12/p1013/term/lease") in defines
    # "as defined in this section" after the word does not narrow the scope
    assert "/us/cfr/t12/p1013/term/closed-end-lease" in nodes
    assert sum(n.type == NodeType.DEFINED_TERM for n in reg_m.nodes) == 18


def test_definition_scopes_from_the_text(corpus: Path, reg_b: ParsedDocument) -> None:
    nodes = _nodes(reg_b)
    # "For purposes of paragraph (a) of this section:" in 1002.14(b)
    assert nodes["/us/cfr/t12/s1002.14/a/term/valuation"].attrs["scope"] == "/us/cfr/t12/s1002.14/a"
    reg_e = parse_regml(corpus / REG / "1005/2016-24506.xml")
    e_nodes = _nodes(reg_e)
    # "For purposes of this section" in 1005.17(a)
    assert "/us/cfr/t12/s1005.17/term/overdraft-service" in e_nodes
    # the remittance-transfer definitions section of subpart B
    agent = e_nodes["/us/cfr/t12/p1005/subpart-B/term/agent"]
    assert agent.attrs["scope"] == "/us/cfr/t12/p1005/subpart-B"
    assert e_nodes["/us/cfr/t12/p1005/subpart-B"].heading
    # two "business day" definitions with different scopes stay apart
    assert "/us/cfr/t12/p1005/term/business-day" in e_nodes
    assert "/us/cfr/t12/p1005/subpart-B/term/business-day" in e_nodes


def test_refs(reg_m: ParsedDocument) -> None:
    cross = _edges(reg_m, EdgeType.CROSS_REFS)
    term_ref = cross[("/us/cfr/t12/s1013.2/d", "/us/cfr/t12/s1013.2/e/1")]
    assert term_ref.attrs["reftype"] == "term"
    assert term_ref.attrs["text"] == "consumer lease"
    internal = cross[("/us/cfr/t12/s1013.3/a/1", "/us/cfr/t12/s1013.4/a")]
    assert internal.attrs == {"text": "1013.4(a)", "reftype": "internal", "count": 1}
    # a ref to an interpretation label resolves to the comment's node
    assert any(dst.startswith("/us/cfr/t12/p1013/supp-i/s1013.7/a") for _, dst in cross)
    uses = _edges(reg_m, EdgeType.USES)
    assert ("/us/cfr/t12/s1013.2/d", "/us/cfr/t12/p1013/term/consumer-lease") in uses
    assert ("/us/cfr/t12/s1013.2/h", "/us/cfr/t12/p1013/term/lease") in uses  # "leases"
    ext = [u for u in reg_m.unresolved if u.src == "/us/cfr/t12/s1013.2/e/2"]
    assert [u.text for u in ext] == ["12 CFR 226.2"]
    assert "CFR:12-226-2" in ext[0].reason and "/us/cfr/t12/s226.2" in ext[0].reason


def test_interpretations(reg_m: ParsedDocument) -> None:
    nodes = _nodes(reg_m)
    supp = nodes["/us/cfr/t12/p1013/supp-i"]
    assert supp.authority == Authority.INTERPRETATION
    comment = nodes["/us/cfr/t12/p1013/supp-i/s1013.2/e/cmt1"]
    assert comment.authority == Authority.INTERPRETATION
    assert comment.type == NodeType.CLAUSE
    assert comment.attrs["label"] == "1013-2-e-Interp-1"
    assert comment.citation == "12 CFR part 1013, Supp. I, comment 2(e)-1"
    assert comment.heading == "Primary purposes."
    sub = nodes["/us/cfr/t12/p1013/supp-i/s1013.2/e/cmt11/ix"]
    assert sub.citation == "12 CFR part 1013, Supp. I, comment 2(e)-11.ix"
    assert "$55,800" in sub.text
    interprets = _edges(reg_m, EdgeType.INTERPRETS)
    assert interprets[(comment.id, "/us/cfr/t12/s1013.2/e")].attrs == {"label": "1013-2-e"}
    assert (sub.id, "/us/cfr/t12/s1013.2/e") in interprets
    assert ("/us/cfr/t12/p1013/supp-i/appA/cmt1", "/us/cfr/t12/p1013/appA") in interprets
    assert ("/us/cfr/t12/p1013/supp-i/s1013.2", "/us/cfr/t12/s1013.2") in interprets
    intro = nodes["/us/cfr/t12/p1013/supp-i/h1/cmt1"]
    assert intro.citation == "12 CFR part 1013, Supp. I, comment I-1"
    assert not [e for e in reg_m.edges if e.type == EdgeType.INTERPRETS and e.src == intro.id]
    regulation_ids = {n.id for n in reg_m.nodes if n.authority == Authority.REGULATION}
    assert all(e.dst in regulation_ids for e in interprets.values())


def test_derived_from_statute(reg_m: ParsedDocument, reg_b: ParsedDocument) -> None:
    derived = _edges(reg_m, EdgeType.DERIVED_FROM)
    # "to implement the consumer leasing provisions of the Truth in Lending Act ...
    # (15 U.S.C. 1601 et seq.)"
    assert ("/us/cfr/t12/s1013.1/a", "/us/usc/t15/s1601") in derived
    assert ("/us/cfr/t12/s1013.1/a", "/us/usc/t15/s1667") in derived
    assert ("/us/cfr/t12/p1013", "/us/usc/t15/s1667") in derived
    assert derived[("/us/cfr/t12/s1013.1/a", "/us/usc/t15/s1601")].attrs["cue"] == "to implement"
    # "Pursuant to section 183(b) of the Act" (the Act of Regulation M: TILA; 183 -> 1667b)
    assert ("/us/cfr/t12/p1013/supp-i/s1013.4/q/cmt5", "/us/usc/t15/s1667b/b") in derived
    b_derived = _edges(reg_b, EdgeType.DERIVED_FROM)
    assert ("/us/cfr/t12/s1002.1/a", "/us/usc/t15/s1691") in b_derived
    assert ("/us/cfr/t12/p1002", "/us/usc/t15/s1691") in b_derived
    # a statute named without "implement"/"pursuant to" is an unresolved reference
    unresolved = {(u.src, u.reason) for u in reg_m.unresolved}
    assert (
        "/us/cfr/t12/s1013.9/a",
        "statute outside this document: /us/usc/t15/s1667e/a",
    ) in unresolved


def test_two_versions_share_ids(reg_m: ParsedDocument, reg_m_2017: ParsedDocument) -> None:
    new, old = _nodes(reg_m), _nodes(reg_m_2017)
    assert set(new) - set(old) == {"/us/cfr/t12/p1013/supp-i/s1013.2/e/cmt11/ix"}
    assert set(old) <= set(new)
    assert all(new[i].type == old[i].type and new[i].citation == old[i].citation for i in old)


def test_deterministic(corpus: Path, reg_m: ParsedDocument) -> None:
    again = parse_regml(corpus / REG / "1013/2017-24411.xml")
    for a, b in ((reg_m.nodes, again.nodes), (reg_m.edges, again.edges)):
        assert [to_record(x) for x in a] == [to_record(x) for x in b]
    assert [u.provenance.prov_id for u in reg_m.unresolved] == [
        u.provenance.prov_id for u in again.unresolved
    ]


def test_large_reg_e_is_fast(corpus: Path) -> None:
    start = time.perf_counter()
    doc = parse_regml(corpus / REG / "1005/2016-24506.xml")  # 2.1 MB
    assert time.perf_counter() - start < 5.0
    assert len(doc.nodes) > 1500
    # A-30(a) and A-30a are different model forms
    ids = {n.id for n in doc.nodes}
    assert {"/us/cfr/t12/p1005/appA/30-a", "/us/cfr/t12/p1005/appA/30a"} <= ids


def test_source_id_override(corpus: Path) -> None:
    doc = parse_regml(corpus / REG / "1013/2011-31723.xml", source_id="m/2011.xml")
    assert doc.edition.source_id == "m/2011.xml"
    assert {n.provenance.source_id for n in doc.nodes} == {"m/2011.xml"}


def test_notice_is_refused(corpus: Path) -> None:
    with pytest.raises(IngestError, match="not <regulation>") as info:
        parse_regml(corpus / "cfr-12/notice/1013/2017-24411.xml")
    assert "2017-24411.xml" in str(info.value)


MINI = """<?xml version='1.0' encoding='UTF-8'?>
<!-- a comment that mentions <paragraph label="1099-1-z"> -->
<regulation xmlns="eregs">
  <fdsys><cfrTitleNum>12</cfrTitleNum><title>TEST RULES</title></fdsys>
  <preamble>
    <regLetter>Z</regLetter>
    <cfr><title>12</title><section>1099</section></cfr>
    <documentNumber>2099-00001</documentNumber>
    <effectiveDate>2099-01-01</effectiveDate>
  </preamble>
  <part label="1099">
    <content>
      <subpart label="1099-Subpart"><content>
      <section label="1099-1" sectionNum="1">
        <subject>§ 1099.1 Scope and terms.</subject>
        <paragraph marker="">
          <content>For purposes of this section: <![CDATA[a < b]]></content>
        </paragraph>
        <paragraph label="1099-1-a" marker="(a)">
          <title type="keyterm">Widgets &gt; gadgets.</title>
          <content><def term="widget">Widget</def> means a thing; see
            <ref target="1099-1-b" reftype="internal" note="x > y">paragraph (b)</ref>.</content>
        </paragraph>
        <paragraph label="1099-1-b" marker="(b)">
          <content>A <ref target="1099-1-a" reftype="term">widget</ref> is issued pursuant
            to section 105 of the Truth in Lending Act.
            See <ref target="1099-9" reftype="internal">§ 1099.9</ref>.</content>
        </paragraph>
      </section>
      </content></subpart>
    </content>
  </part>
</regulation>
"""


def test_hand_made_file(tmp_path: Path) -> None:
    path = tmp_path / "mini.xml"
    path.write_text(MINI, encoding="utf-8")
    doc = parse_regml(path)
    text = MINI
    nodes = _nodes(doc)
    assert doc.edition.effective_from == date(2099, 1, 1)
    assert nodes["/us/cfr/t12/p1099"].heading == "TEST RULES (Regulation Z)"
    intro = nodes["/us/cfr/t12/s1099.1/unl1"]  # a paragraph without a label
    assert intro.text == "For purposes of this section: a < b"
    assert intro.citation == "12 CFR 1099.1"
    a = nodes["/us/cfr/t12/s1099.1/a"]
    assert a.heading == "Widgets > gadgets."
    assert text[slice(*a.provenance.span)].startswith('<paragraph label="1099-1-a"')
    term = nodes["/us/cfr/t12/s1099.1/term/widget"]  # scope from the section's chapeau
    assert term.attrs == {
        "term": "widget",
        "scope": "/us/cfr/t12/s1099.1",
        "hierarchy_path": "12 CFR Part 1099 > § 1099.1 > (a) > “widget”",
    }
    assert text[slice(*term.provenance.span)] == '<def term="widget">Widget</def>'
    assert ("/us/cfr/t12/s1099.1/a", "/us/cfr/t12/s1099.1/b") in _edges(doc, EdgeType.CROSS_REFS)
    assert ("/us/cfr/t12/s1099.1/b", term.id) in _edges(doc, EdgeType.USES)
    assert ("/us/cfr/t12/s1099.1/b", "/us/usc/t15/s1604") in _edges(doc, EdgeType.DERIVED_FROM)
    [missing] = [u for u in doc.unresolved if u.text == "§ 1099.9"]
    assert missing.reason == "no element labelled '1099-9' in this version"
    assert text[slice(*missing.provenance.span)].startswith('<ref target="1099-9"')


def test_bad_files(tmp_path: Path) -> None:
    broken = tmp_path / "broken.xml"
    broken.write_text(MINI.replace("</part>", ""), encoding="utf-8")
    with pytest.raises(IngestError, match=r"broken\.xml: line \d+: not well-formed XML"):
        parse_regml(broken)
    undated = tmp_path / "undated.xml"
    undated.write_text(MINI.replace("2099-01-01", "2099-02-30"), encoding="utf-8")
    with pytest.raises(IngestError, match="effectiveDate: not an ISO date"):
        parse_regml(undated)
