"""The structural features: every name documented, each group unit-tested, the stage on a
real fixture index."""

from __future__ import annotations

from datetime import date

import pytest
from structfirst.engine.catalog import ArtifactVersion
from structfirst.engine.configuration import get_configuration
from structfirst.engine.engine import Engine
from structfirst.engine.features import (
    FEATURE_DOCS,
    FEATURE_NAMES,
    MISSING_PATH,
    MISSING_SCORE,
    OPEN_END_DAYS,
    FamilyRanks,
    feature_agreement,
    feature_authority,
    feature_citation,
    feature_contradictions,
    feature_family,
    feature_graph_path,
    feature_headings,
    feature_hierarchy,
    feature_location,
    feature_matrix,
    feature_plane_scores,
    feature_query_type,
    feature_rule_support,
    feature_term_overlap,
    feature_validity,
    normalized,
    plane_positions,
    stated_values,
    words,
)
from structfirst.engine.plane import PlaneHit
from structfirst.engine.query_parser import QUERY_TYPES
from structfirst.engine.symbolic_plane import SymbolicPlane
from structfirst.fusion.rrf import FusedCandidate

pytest_plugins = ["engine_fixtures"]


def version(node_id: str = "/us/usc/t11/s547/c/9", **kw) -> ArtifactVersion:
    base = dict(
        version_id=f"{node_id}@2010-01-01", node_id=node_id, type="Clause", citation=None,
        heading=None, text="", hierarchy_path=None, jurisdiction="us-federal",
        authority="statute", effective_from=date(2010, 1, 1), effective_to=date(2013, 4, 1),
        source_id="s", span_start=0, span_end=1,
    )
    return ArtifactVersion(**{**base, **kw})


RANKED = {
    "lexical": [PlaneHit("a", 10.0), PlaneHit("b", 6.0), PlaneHit("c", 2.0)],
    "graph": [PlaneHit("b", 0.5)],
}


def test_every_feature_is_named_and_documented() -> None:
    assert len(FEATURE_NAMES) == len(set(FEATURE_NAMES)) >= 40
    assert all(FEATURE_DOCS[n].strip() for n in FEATURE_NAMES)


def test_plane_scores_are_normalized_with_sentinels_for_absent_planes() -> None:
    positions = plane_positions(RANKED)
    b = feature_plane_scores("b", positions)
    assert b["lexical_score"] == pytest.approx(0.5) and b["lexical_rrank"] == 0.5
    assert b["graph_score"] == 1.0 and b["graph_rrank"] == 1.0
    assert b["dense_score"] == MISSING_SCORE and b["dense_rrank"] == 0.0
    assert feature_plane_scores("c", positions)["lexical_score"] == 0.0


def test_agreement_counts_the_planes_that_returned_the_candidate() -> None:
    positions = plane_positions(RANKED)
    assert feature_agreement("b", positions) == {"planes_returning": 2.0, "planes_top10": 1.0}
    assert feature_agreement("a", positions) == {"planes_returning": 1.0, "planes_top10": 0.5}
    assert feature_agreement("z", positions)["planes_returning"] == 0.0


def test_graph_path_length_and_edge_types() -> None:
    f = feature_graph_path(["s547/b -cross_refs-> s547/c <-defines- s101/31", "s547/b"])
    assert f["graph_path_length"] == 0.0  # the seed itself is the shortest path
    f = feature_graph_path(["s547/b -cross_refs-> s547/c <-defines- s101/31"])
    assert f["graph_path_length"] == 2.0
    assert f["graph_via_cross_refs"] == f["graph_via_defines"] == 1.0
    assert f["graph_via_contains"] == 0.0
    assert feature_graph_path([])["graph_path_length"] == MISSING_PATH


def test_rule_support_by_verdict_and_role() -> None:
    f = feature_rule_support([
        {"rule": "s547.c.9", "verdict": "true", "role": "formalized clause"},
        {"rule": "s547.b", "verdict": "undetermined", "role": "premise"},
    ])
    assert f["rule_true"] == f["rule_undetermined"] == f["rule_formalized"] == 1.0
    assert f["rule_false"] == f["rule_value"] == 0.0
    assert feature_rule_support([])["rule_formalized"] == 0.0


def test_validity_jurisdiction_and_days() -> None:
    v = version()
    f = feature_validity(v, date(2011, 1, 1), "us-federal")
    assert f["jurisdiction_match"] == f["date_valid"] == 1.0
    assert f["days_since_start"] == 365.0 and f["days_until_end"] == 821.0
    f = feature_validity(v, date(2014, 1, 1), "us-ia")
    assert f["jurisdiction_match"] == f["date_valid"] == 0.0
    assert feature_validity(version(effective_to=None), date(2011, 1, 1), "us")[
        "days_until_end"
    ] == OPEN_END_DAYS


def test_authority_one_hot_and_defined_term() -> None:
    f = feature_authority(version(authority="interpretation", type="DefinedTerm"))
    assert f["authority_interpretation"] == f["is_defined_term"] == 1.0
    assert f["authority_statute"] == f["authority_note"] == f["legislative_history"] == 0.0
    revision = version("/us/usc/t11/s547/note/legislative-statements", type="Note",
                       authority="note", note_kind="historicalandrevision-note")
    report = version("/us/usc/t11/s547/note/senate-report-no-95-989", type="Note",
                     authority="note", note_kind="miscellaneous-note",
                     heading="Senate Report No. 95-989")  # the markup's class misses it
    assert feature_authority(revision)["legislative_history"] == 1.0
    assert feature_authority(report)["legislative_history"] == 1.0
    amounts = version("/us/usc/t11/s104/note/adjustment-of-dollar-amounts", type="Note",
                      authority="note", note_kind="adjustment-of-dollar-amounts")
    assert feature_authority(amounts)["legislative_history"] == 0.0


def test_hierarchy_depth_and_enclosing_provision_ranked_higher() -> None:
    f = feature_hierarchy("/us/usc/t11/s547/c/9", {"/us/usc/t11/s547/c"})
    assert f == {"hierarchy_depth": 2.0, "enclosing_ranks_higher": 1.0}
    f = feature_hierarchy("/us/usc/t11/s547", {"/us/usc/t11/s101"})
    assert f == {"hierarchy_depth": 0.0, "enclosing_ranks_higher": 0.0}


def test_family_ranks_of_provisions_inside_and_enclosing() -> None:
    family = FamilyRanks.of(["/us/usc/t11/s547/c/9", "/us/usc/t11/s101", "/us/usc/t11/s547/b"])
    section = feature_family("/us/usc/t11/s547", family, children=9)
    assert section == {"family_descendants_head": 2.0, "family_descendant_rrank": 1.0,
                       "family_ancestor_rrank": 0.0, "family_children": 9.0}
    clause = feature_family("/us/usc/t11/s547/c/9/A", family, children=0)
    assert clause["family_ancestor_rrank"] == 1.0 and clause["family_descendant_rrank"] == 0.0
    # a sibling is neither inside nor around; a prefix that is not a path step does not count
    assert feature_family("/us/usc/t11/s547/c/1", family, 0)["family_ancestor_rrank"] == 0.0
    assert feature_family("/us/usc/t11/s10", family, 0)["family_descendant_rrank"] == 0.0


def test_citation_overlap_exact_within_and_enclosing() -> None:
    cited = ("/us/usc/t11/s547/c",)
    assert feature_citation("/us/usc/t11/s547/c", cited)["citation_exact"] == 1.0
    assert feature_citation("/us/usc/t11/s547/c/9", cited)["citation_within"] == 1.0
    assert feature_citation("/us/usc/t11/s547", cited)["citation_encloses"] == 1.0
    assert sum(feature_citation("/us/usc/t11/s101", cited).values()) == 0.0


def test_term_overlap_counts_terms_whose_words_the_question_uses() -> None:
    question = words("Is a corporation's director an insider of the debtor?")
    assert feature_term_overlap(["insider", "debtor", "transfer"], question) == {
        "term_overlap": 2.0
    }


def test_heading_overlap_counts_content_words_of_the_headings() -> None:
    question = words("Where are the rules on ATM receipts and monthly periodic statements?")
    got = feature_headings("Periodic statements.", "Receipts at electronic terminals; "
                           "periodic statements.", question)
    assert got == {"heading_overlap": 1.0, "section_heading_overlap": 0.6}
    assert feature_headings(None, "Contents of plan", question) == {
        "heading_overlap": 0.0, "section_heading_overlap": 0.0}


def test_query_type_one_hot() -> None:
    f = feature_query_type("threshold_check")
    assert f["qtype_threshold_check"] == 1.0 and sum(f.values()) == 1.0
    assert set(f) == {f"qtype_{t}" for t in QUERY_TYPES}


def test_a_question_asking_where_prefers_whole_sections() -> None:
    section = version("/us/usc/t11/s541", type="Section")
    assert feature_location(True, section) == {"location_section": 1.0}
    assert feature_location(True, version()) == {"location_section": 0.0}  # a clause
    assert feature_location(False, section) == {"location_section": 0.0}


def test_stated_values_and_contradictions_against_the_dated_parameter(engine: Engine) -> None:
    assert stated_values("less than $5,475, or $600 in", "USD") == {5475, 600}
    assert stated_values("within 90 days before", "days") == {90}
    parameters = engine.plane("symbolic", get_configuration("fast"))
    assert isinstance(parameters, SymbolicPlane)
    table = parameters.library.parameters
    node = "/us/usc/t11/s547/c/9"
    old = version(node, text="the aggregate value is less than $5,475")
    # in 2011 the § 547(c)(9) amount was $5,850: the 2005 text's $5,475 contradicts it
    assert feature_contradictions(old, date(2011, 6, 1), table) == {"contradictions": 1.0}
    current = version(node, text="the aggregate value is less than $5,850")
    assert feature_contradictions(current, date(2011, 6, 1), table) == {"contradictions": 0.0}
    silent = version(node, text="no amount stated")
    assert feature_contradictions(silent, date(2011, 6, 1), table) == {"contradictions": 0.0}


def test_normalized_and_feature_matrix() -> None:
    assert normalized({"a": 2.0, "b": 4.0}) == {"a": 0.0, "b": 1.0}
    assert normalized({"a": 3.0}) == {"a": 1.0}
    with pytest.raises(ValueError, match="has no structural features"):
        feature_matrix([FusedCandidate("x")])


def test_the_features_stage_on_the_worked_example(engine: Engine) -> None:
    cfg = get_configuration("fast")
    question = (
        "A non-consumer debtor paid a $6,000 invoice to an outside vendor 100 days before "
        "filing. Can the trustee avoid this transfer under § 547?"
    )
    frame = engine.start_frame(question, date(2019, 1, 1), None, cfg)
    for stage in engine.stages(cfg)[:4]:
        frame = stage.transform(frame)
    out = engine.features_stage(cfg).transform(frame)
    assert [c.version_id for c in out.candidates] == [c.version_id for c in frame.candidates]
    by_node = {c.version_id.split("@")[0]: c.features for c in out.candidates}
    c9 = by_node["/us/usc/t11/s547/c/9"]
    assert list(c9) == list(FEATURE_NAMES)
    assert c9["rule_true"] == 1.0 and c9["citation_within"] == 1.0
    assert c9["qtype_exception_application"] == 1.0 and c9["date_valid"] == 1.0
    assert c9["contradictions"] == 0.0 and c9["graph_path_length"] >= 0
    assert any(f["exception_link"] == 1.0 for f in by_node.values())
    assert by_node["/us/usc/t11/s547/b"]["rule_false"] == 1.0
