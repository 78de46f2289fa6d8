"""Defined terms of real Title 11 text, and the generic USES linker."""

from __future__ import annotations

import pytest
from structfirst.ingest.defined_terms import link_term_uses
from structfirst.ingest.model import (
    Authority,
    EdgeType,
    Node,
    NodeType,
    ParsedDocument,
    Provenance,
)
from structfirst.ingest.uscode import parse_uscode

T = "/us/usc/t11"


@pytest.fixture(scope="module")
def ed2018(corpus) -> ParsedDocument:
    return parse_uscode(corpus / "us-code" / "title-11" / "2018" / "usc11.htm")


@pytest.fixture(scope="module")
def uses2018(ed2018):
    terms = [n for n in ed2018.nodes if n.type == NodeType.DEFINED_TERM]
    return link_term_uses(ed2018.nodes, terms)


def test_title_and_section_scoped_terms(ed2018):
    by = {n.id: n for n in ed2018.nodes}
    insider = by[f"{T}/term/insider"]
    assert insider.type == NodeType.DEFINED_TERM and insider.parent is None
    assert insider.attrs["term"] == "insider" and insider.attrs["scope"] == T
    assert insider.attrs["defined_in"] == [f"{T}/s101/31"]
    nv = by[f"{T}/s547/term/new-value"]
    assert nv.attrs["scope"] == f"{T}/s547" and nv.attrs["defined_in"] == [f"{T}/s547/a/2"]
    # "In this chapter—" in §1101
    dip = by[f"{T}/ch11/term/debtor-in-possession"]
    assert dip.attrs["scope"] == f"{T}/ch11"
    defines = {(e.src, e.dst) for e in ed2018.edges if e.type == EdgeType.DEFINES}
    assert (f"{T}/s101/31", f"{T}/term/insider") in defines
    assert (f"{T}/s547/a/1", f"{T}/s547/term/inventory") in defines


def test_547b4B_uses_insider(ed2018, uses2018):
    got = {(e.src, e.dst) for e in uses2018}
    assert (f"{T}/s547/b/4/B", f"{T}/term/insider") in got
    assert (f"{T}/s547/c/3/A", f"{T}/s547/term/new-value") in got
    # a section-scoped term is not used outside its section
    assert not any(
        dst == f"{T}/s547/term/new-value" and not src.startswith(f"{T}/s547") for src, dst in got
    )
    # the defining clause does not "use" its own term
    assert (f"{T}/s101/31", f"{T}/term/insider") not in got
    assert all(e.type == EdgeType.USES for e in uses2018)


def _node(nid: str, text: str, parent: str | None, ntype=NodeType.CLAUSE, **attrs) -> Node:
    return Node(
        id=nid,
        type=ntype,
        text=text,
        provenance=Provenance("cfr.xml", (0, len(text)), "test/1"),
        jurisdiction="us-federal/cfpb",
        authority=Authority.REGULATION,
        parent=parent,
        attrs=attrs,
    )


def test_generic_linker_scopes_plurals_and_shadowing():
    root = "/us/cfr/t12/pt1013"
    nodes = [
        _node(root, "", None, NodeType.DOCUMENT),
        _node(f"{root}/s1013.2", "Definitions.", root, NodeType.SECTION),
        _node(f"{root}/s1013.2/e", "Consumer lease means a contract ...", f"{root}/s1013.2"),
        _node(f"{root}/s1013.4", "Disclosures.", root, NodeType.SECTION),
        _node(
            f"{root}/s1013.4/a", "Lessors shall disclose all consumer leases.", f"{root}/s1013.4"
        ),
        _node(f"{root}/s1013.4/b", "A Lessor or lessee; the Board.", f"{root}/s1013.4"),
        _node(f"{root}/s1013.5", "Other.", root, NodeType.SECTION),
        _node(f"{root}/s1013.5/a", "A lessor here means something else.", f"{root}/s1013.5"),
        _node(f"{root}/s1013.4/note", "consumer lease", f"{root}/s1013.4", NodeType.NOTE),
    ]

    def term(tid: str, word: str, scope: str) -> Node:
        return _node(tid, word, None, NodeType.DEFINED_TERM, term=word, scope=scope)

    terms = [
        term(f"{root}/term/consumer-lease", "consumer lease", root),
        term(f"{root}/term/lessor", "lessor", root),
        term(f"{root}/s1013.5/term/lessor", "lessor", f"{root}/s1013.5"),
        term(f"{root}/term/board", "Board", root),
    ]
    terms[0].attrs["defined_in"] = [f"{root}/s1013.2/e"]
    got = {(e.src, e.dst, e.attrs["text"]) for e in link_term_uses(nodes, terms)}
    assert got == {
        (f"{root}/s1013.4/a", f"{root}/term/consumer-lease", "consumer leases"),
        (f"{root}/s1013.4/a", f"{root}/term/lessor", "Lessors"),
        (f"{root}/s1013.4/b", f"{root}/term/lessor", "Lessor"),
        (f"{root}/s1013.4/b", f"{root}/term/board", "Board"),
        # the nearer, section-scoped definition wins
        (f"{root}/s1013.5/a", f"{root}/s1013.5/term/lessor", "lessor"),
    }
    assert link_term_uses(nodes, []) == []
