"""Versioning: editions collapse into versions with the right intervals and edges."""

from __future__ import annotations

from datetime import date

import pytest
from structfirst.ingest.model import (
    Authority,
    Edge,
    EdgeType,
    Edition,
    Fact,
    FactKind,
    Node,
    NodeType,
    ParsedDocument,
    Provenance,
    UnresolvedRef,
)
from structfirst.ingest.versioning import build_versions, normalize_text, versions_of

T = "/us/usc/t11"
S547 = f"{T}/s547"
C9 = f"{S547}/c/9"
C9_TEXT = (
    "if, in a case filed by a debtor whose debts are not primarily consumer debts, the aggregate "
    "value of all property that constitutes or is affected by such transfer is less than $5,000."
)


def prov(source: str, start: int = 0) -> Provenance:
    return Provenance(source, (start, start + 10), "test/1")


def node(
    source: str,
    node_id: str,
    text: str,
    type_: NodeType = NodeType.CLAUSE,
    parent: str | None = None,
    heading: str | None = None,
) -> Node:
    return Node(
        node_id,
        type_,
        text,
        prov(source, hash(node_id) % 1000),
        "us-federal",
        Authority.STATUTE,
        parent=parent,
        heading=heading,
        citation="11 U.S.C. § " + node_id.rsplit("/s", 1)[-1],
    )


def edition(
    year: int,
    day: date,
    texts: dict[str, str] | None = None,
    facts: list[Fact] | None = None,
    drop: tuple[str, ...] = (),
) -> ParsedDocument:
    """A small Title 11 edition: the title, §547, (c), (c)(9) and §101."""
    src = f"us-code/title-11/{year}/usc11.htm"
    texts = {
        S547: "",
        f"{S547}/c": "The trustee may not avoid under this section a transfer—",
        C9: C9_TEXT,
        f"{T}/s101": "In this title the following definitions shall apply:",
        **(texts or {}),
    }
    nodes = [node(src, T, "TITLE 11—BANKRUPTCY", NodeType.DOCUMENT, heading="BANKRUPTCY")]
    parents = {S547: T, f"{S547}/c": S547, C9: f"{S547}/c", f"{T}/s101": T}
    for nid, text in texts.items():
        if nid in drop:
            continue
        type_ = NodeType.SECTION if nid.count("/") == 4 else NodeType.CLAUSE
        nodes.append(
            node(
                src,
                nid,
                text,
                type_,
                parents.get(nid, T),
                heading="Preferences" if nid == S547 else None,
            )
        )
    ids = {n.id for n in nodes}
    edges = [Edge(n.parent, n.id, EdgeType.CONTAINS, n.provenance) for n in nodes if n.parent]
    if C9 in ids:
        edges.append(Edge(C9, f"{T}/s101", EdgeType.CROSS_REFS, prov(src, 5)))
        edges.append(Edge(C9, f"{T}/s101", EdgeType.CROSS_REFS, prov(src, 7)))  # duplicate
    unresolved = [UnresolvedRef(C9, "section 1129(a)(9)", prov(src, 9), "no such section")]
    ed = Edition(src, f"{year} edition", day, day)
    return ParsedDocument(ed, nodes, edges, list(facts or []), unresolved if C9 in ids else [])


def threshold(src: str, new: float, old: float, day: date) -> Fact:
    return Fact(
        C9,
        FactKind.THRESHOLD,
        new,
        f"{old:,.0f} {new:,.0f}",
        prov(src, int(new)),
        unit="USD",
        effective_from=day,
        attrs={"series": "547(c)(9)", "old_value": old},
    )


def adjustments(src: str, upto: date) -> list[Fact]:
    series = [
        (5475, 5000, date(2007, 4, 1)),
        (5850, 5475, date(2010, 4, 1)),
        (6225, 5850, date(2013, 4, 1)),
        (6425, 6225, date(2016, 4, 1)),
    ]
    return [threshold(src, new, old, day) for new, old, day in series if day <= upto]


def valid_at(versions: list[Node], day: date) -> list[Node]:
    return [
        v
        for v in versions
        if v.effective_from <= day and (v.effective_to is None or day < v.effective_to)
    ]


D = [date(2008, 1, 8), date(2010, 2, 1), date(2011, 1, 7), date(2013, 1, 15), date(2014, 1, 16)]


def test_identical_text_across_editions_is_one_version():
    docs = [edition(2007 + i, d) for i, d in enumerate(D)]
    corpus = build_versions(docs)
    (only,) = versions_of(corpus, f"{T}/s101")
    assert only.effective_from == D[0] and only.effective_to is None
    assert len(only.attrs["editions"]) == len(D)


def test_normalization_folds_quotes_dashes_and_spaces():
    assert normalize_text("“inventory”  means—\n x") == normalize_text('"inventory" means- x')
    docs = [
        edition(2012, D[3], {f"{T}/s101": "the term “debt” means"}),
        edition(2013, D[4], {f"{T}/s101": 'the term  "debt" means'}),
    ]
    assert len(versions_of(build_versions(docs), f"{T}/s101")) == 1


def test_changed_text_gives_a_new_version_and_supersedes_edge():
    docs = [
        edition(2008, D[0]),
        edition(2009, D[1]),
        edition(2010, D[2], {f"{T}/s101": "In this title the following shall apply:"}),
    ]
    corpus = build_versions(docs)
    old, new = versions_of(corpus, f"{T}/s101")
    assert (old.effective_from, old.effective_to) == (D[0], D[2])
    assert (new.effective_from, new.effective_to) == (D[2], None)
    sup = [e for e in corpus.edges if e.type == EdgeType.SUPERSEDES and e.src == new.version_id]
    assert [e.dst for e in sup] == [old.version_id]


def test_disappearing_provision_ends_at_first_edition_lacking_it():
    docs = [edition(2008, D[0]), edition(2009, D[1]), edition(2010, D[2], drop=(f"{T}/s101",))]
    (v,) = versions_of(build_versions(docs), f"{T}/s101")
    assert (v.effective_from, v.effective_to) == (D[0], D[2])


def test_precise_effective_date_overrides_edition_date():
    note_date, too_early, also_in = date(2010, 10, 17), date(2009, 6, 1), date(2010, 5, 1)
    facts = [
        Fact(
            S547,
            FactKind.EFFECTIVE_DATE,
            d.isoformat(),
            "effective ...",
            prov("n", i),
            effective_from=d,
        )
        for i, d in enumerate((note_date, too_early, also_in))
    ]
    changed = {f"{S547}/c": "The trustee may not avoid a transfer—"}
    docs = [edition(2009, D[1], facts=facts), edition(2010, D[2], changed, facts=facts)]
    corpus = build_versions(docs)
    old, new = versions_of(corpus, f"{S547}/c")
    # the latest precise date in (D[1], D[2]] wins, on the clause via its section's note
    assert new.effective_from == note_date and old.effective_to == note_date
    assert new.attrs["basis"] == "effective_date_note"
    eff = [e for e in corpus.edges if e.type == EdgeType.EFFECTIVE and e.src == new.version_id]
    assert eff and eff[0].dst == f"/date/{note_date.isoformat()}"
    # unchanged provisions keep their edition dates
    assert versions_of(corpus, f"{T}/s101")[0].effective_from == D[1]


def test_threshold_adjustments_split_versions_547c9():
    docs = [edition(2007 + i, d, facts=adjustments(f"e{i}", d)) for i, d in enumerate(D)]
    docs.append(edition(2016, date(2017, 1, 6), facts=adjustments("e9", date(2017, 1, 6))))
    corpus = build_versions(docs)
    versions = versions_of(corpus, C9)
    spans = [(v.effective_from, v.effective_to) for v in versions]
    assert (date(2010, 4, 1), date(2013, 4, 1)) in spans
    (at_2011,) = valid_at(versions, date(2011, 6, 1))
    assert (at_2011.effective_from, at_2011.effective_to) == (date(2010, 4, 1), date(2013, 4, 1))
    assert "$5,850" in at_2011.text and "$5,000" not in at_2011.text
    assert at_2011.attrs["printed_text"] == C9_TEXT
    for v in versions:  # no interval holds both 2012 and 2014
        assert not (valid_at([v], date(2012, 6, 1)) and valid_at([v], date(2014, 6, 1)))
    (before,) = valid_at(versions, date(2008, 6, 1))
    assert "$5,475" in before.text
    # thresholds are deduplicated across editions, each series' end is the next start
    facts = sorted(
        (f for f in corpus.facts if f.kind == FactKind.THRESHOLD), key=lambda f: f.effective_from
    )
    assert [f.value for f in facts] == [5475, 5850, 6225, 6425]
    assert [f.effective_to for f in facts] == [
        date(2010, 4, 1),
        date(2013, 4, 1),
        date(2016, 4, 1),
        None,
    ]
    assert facts[1].attrs["version_id"] == at_2011.version_id
    # one Threshold node per fact, annotating the provision's versions
    tnodes = [n for n in corpus.nodes if n.type == NodeType.THRESHOLD]
    assert len(tnodes) == 4
    t2010 = next(n for n in tnodes if n.effective_from == date(2010, 4, 1))
    ann = {
        e.dst for e in corpus.edges if e.type == EdgeType.ANNOTATES and e.src == t2010.version_id
    }
    assert ann == {at_2011.version_id}


def test_the_note_that_published_an_amount_annotates_the_provision():
    """The §104 table an adjusted amount was read from annotates the provision it adjusts, so a
    walk from §547(c)(9) reaches the authority for the amount in force; a note that does not
    hold the amount does not."""
    adjusting, other = f"{T}/s104/note/adjustment-of-dollar-amounts", f"{T}/s101/note/amendments"
    docs = []
    for i, d in enumerate(D):
        src = f"us-code/title-11/{2007 + i}/usc11.htm"
        doc = edition(2007 + i, d, facts=adjustments(src, d))
        for nid, span in ((adjusting, (5000, 7000)), (other, (0, 100))):
            doc.nodes.append(
                Node(nid, NodeType.NOTE, nid[-12:], Provenance(src, span, "test/1"), "us-federal",
                     Authority.NOTE, parent=T)
            )
        docs.append(doc)
    corpus = build_versions(docs)
    (at_2011,) = valid_at(versions_of(corpus, C9), date(2011, 6, 1))
    annotating = {
        e.src.split("@")[0]
        for e in corpus.edges
        if e.type == EdgeType.ANNOTATES and e.dst == at_2011.version_id
    }
    assert annotating == {f"{C9}#threshold", adjusting}


def test_an_amount_ends_with_the_provision_that_states_it():
    """A clause renumbered away (as BAPCPA did to § 507(a)(4)(B)(i)) takes its last adjusted
    amount with it: the Threshold node and fact end where the clause's last version ends."""
    docs = [edition(2007 + i, d, facts=adjustments(f"e{i}", d)) for i, d in enumerate(D[:3])]
    docs.append(edition(2012, D[3], drop=(C9,)))
    corpus = build_versions(docs)
    (last,) = [v for v in versions_of(corpus, C9) if v.effective_to == D[3]]
    tnodes = [n for n in corpus.nodes if n.type == NodeType.THRESHOLD]
    assert max(n.effective_from for n in tnodes) == date(2010, 4, 1)
    assert all(n.effective_to is not None and n.effective_to <= D[3] for n in tnodes)
    facts = [f for f in corpus.facts if f.kind == FactKind.THRESHOLD]
    assert max(f.effective_to for f in facts) == last.effective_to


def test_edges_map_to_coexisting_versions_and_dedupe():
    docs = [
        edition(2008, D[0]),
        edition(2009, D[1]),
        edition(2010, D[2], {f"{T}/s101": "In this title the following shall apply:"}),
    ]
    corpus = build_versions(docs)
    (c9,) = versions_of(corpus, C9)
    old101, new101 = versions_of(corpus, f"{T}/s101")
    refs = [(e.src, e.dst) for e in corpus.edges if e.type == EdgeType.CROSS_REFS]
    assert sorted(refs) == sorted(
        [(c9.version_id, old101.version_id), (c9.version_id, new101.version_id)]
    )
    contains = [e for e in corpus.edges if e.type == EdgeType.CONTAINS and e.dst == c9.version_id]
    assert len(contains) == 1
    assert corpus.parent_version[c9.version_id] == contains[0].src
    assert [u.src for u in corpus.unresolved] == [c9.version_id]


def test_jurisdiction_authority_nodes_and_applies_in():
    corpus = build_versions([edition(2008, D[0])])
    types = {n.type for n in corpus.nodes}
    assert {NodeType.JURISDICTION, NodeType.AUTHORITY, NodeType.DATE} <= types
    (c9,) = versions_of(corpus, C9)
    applies = [
        e.dst for e in corpus.edges if e.type == EdgeType.APPLIES_IN and e.src == c9.version_id
    ]
    assert applies == ["/jurisdiction/us-federal"]


def test_deterministic_ids_and_order():
    def run():
        docs = [edition(2008, D[0], facts=adjustments("a", D[0])), edition(2010, D[2])]
        corpus = build_versions(list(reversed(docs)))
        return (
            [n.version_id for n in corpus.nodes],
            [(e.src, e.dst, e.type) for e in corpus.edges],
            sorted(f.fact_id for f in corpus.facts),
        )

    assert run() == run()


def test_same_family_same_date_is_reported_and_skipped():
    corpus = build_versions([edition(2008, D[0]), edition(2018, D[0])])
    assert any("same family" in w for w in corpus.warnings)


@pytest.mark.parametrize("year", [2009, 2010])
def test_real_edition_versions(corpus, year):
    from structfirst.ingest.uscode import parse_uscode

    docs = [
        parse_uscode(corpus / "us-code" / "title-11" / str(y) / "usc11.htm")
        for y in (year, year + 1)
    ]
    out = build_versions(docs)
    versions = versions_of(out, f"{T}/s547/b")
    assert versions and all(v.effective_from for v in versions)
    # most provisions are unchanged between two consecutive editions
    per_node = {}
    for n in out.nodes:
        per_node.setdefault(n.id, 0)
        per_node[n.id] += 1
    assert sum(1 for c in per_node.values() if c == 1) > 0.8 * len(per_node)
