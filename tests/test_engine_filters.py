"""The hard metadata filter: no plane, and no bundle, ever holds a version outside the query's
allowed set, or one whose [effective_from, effective_to) misses the as-of date; jurisdiction
filters by path prefix. The allowed set itself is checked against SQL over the DuckDB store."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import date

import pytest
from structfirst.engine.catalog import ArtifactVersion
from structfirst.engine.configuration import EngineConfig, get_configuration
from structfirst.engine.engine import Engine
from structfirst.engine.plane import PlaneHit, PlaneQuery
from structfirst.engine.query_parser import parse_query, query_terms
from structfirst.engine.stages import merge_seeds
from structfirst.engine.symbolic_plane import SymbolicPlane, rule_seeds
from structfirst.ingest.duckdb_store import connect_readonly

pytest_plugins = ["engine_fixtures"]

FAST = "fast"
AS_OF_DATES = (
    date(1995, 6, 1),
    date(1999, 5, 1),
    date(2003, 1, 15),
    date(2007, 6, 1),
    date(2008, 6, 1),
    date(2010, 3, 31),  # the last day of the $5,475 § 547(c)(9) version
    date(2010, 4, 1),  # the first day of the $5,850 one
    date(2011, 6, 15),
    date(2012, 12, 31),
    date(2013, 4, 1),  # an effective_to is exclusive
    date(2016, 4, 1),
    date(2018, 6, 30),
)
QUESTIONS = (
    "A non-consumer debtor paid a $6,000 invoice to an outside vendor 100 days before filing. "
    "Can the trustee avoid this transfer under § 547?",  # exception_application
    "What is the §547(c)(9) threshold?",  # threshold_check
    "What does 'insider' mean under the Bankruptcy Code?",  # definition
    "What are all the requirements to avoid a preference under § 547(b)?",  # synthesis
    "Who presides at the meeting of creditors under § 341?",  # lookup
    "What must a lessor disclose before consummation of a consumer lease under Regulation M?",
)
# Graph scaffolding (not text), never allowed; see Catalog.allowed.
SCAFFOLDING = ("Date", "Jurisdiction", "Authority")


def sql_allowed(engine: Engine, day: date, jurisdiction: str) -> frozenset[str]:
    """The allowed set computed independently of the catalog, in SQL over the store."""
    with connect_readonly(engine.snapshot.store_path) as con:
        rows = con.execute(
            "SELECT version_id FROM artifacts "
            "WHERE (effective_from IS NULL OR effective_from <= ?) "
            "AND (effective_to IS NULL OR ? < effective_to) "
            "AND (jurisdiction = ? OR starts_with(jurisdiction, ? || '/')) "
            "AND NOT list_contains(?, type)",
            [day, day, jurisdiction, jurisdiction, list(SCAFFOLDING)],
        ).fetchall()
    return frozenset(r[0] for r in rows)


def plane_runs(
    engine: Engine,
    question: str,
    cfg: EngineConfig,
    as_of: date | None = None,
    jurisdiction: str | None = None,
) -> tuple[PlaneQuery, dict[str, list[PlaneHit]]]:
    """Each configured plane's hits for `question`, called directly with the `PlaneQuery`
    that `Engine.ask` builds (the symbolic plane first; its rules' clauses seed the graph)."""
    parsed = parse_query(question, as_of=as_of, jurisdiction=jurisdiction)
    query = PlaneQuery(
        text=query_terms(parsed),
        as_of=parsed.as_of.value,
        allowed=engine.catalog.allowed(parsed.as_of.value, parsed.jurisdiction.value),
        query_type=parsed.query_type,
        seeds=parsed.seeds,
        terms=tuple(t.term for t in parsed.terms),
        facts=parsed.fact_values(),
        predicate=parsed.predicate.name if parsed.predicate else None,
    )
    hits: dict[str, list[PlaneHit]] = {}
    for name in sorted(cfg.planes, key=lambda n: n != "symbolic"):
        plane = engine.plane(name, cfg)
        if isinstance(plane, SymbolicPlane):
            hits[name], verdicts = plane.evaluate(query, cfg.k_per_plane)
            query = replace(query, seeds=merge_seeds(query.seeds, rule_seeds(verdicts)))
        else:
            hits[name] = plane.retrieve(query, cfg.k_per_plane)
    return query, hits


def assert_in_force(version: ArtifactVersion, day: date) -> None:
    start = version.effective_from or date.min
    end = version.effective_to or date.max
    assert start <= day < end, f"{version.version_id} [{start}, {end}) not in force on {day}"


def test_every_plane_and_bundle_respects_the_filter(engine: Engine) -> None:
    cfg = get_configuration(FAST)
    expected_allowed: dict[tuple[date, str], frozenset[str]] = {}
    hits_per_plane: Counter[str] = Counter()
    c9_versions: set[str] = set()
    for day in AS_OF_DATES:
        for question in QUESTIONS:
            query, hits = plane_runs(engine, question, cfg, as_of=day)
            jurisdiction = parse_query(question, as_of=day).jurisdiction.value
            key = (day, jurisdiction)
            if key not in expected_allowed:
                expected_allowed[key] = sql_allowed(engine, day, jurisdiction)
            assert query.allowed == expected_allowed[key], (day, jurisdiction)
            for plane, plane_hits in hits.items():
                assert len(plane_hits) <= cfg.k_per_plane
                for hit in plane_hits:
                    assert hit.version_id in query.allowed, (plane, question, day, hit)
                    assert_in_force(engine.catalog.versions[hit.version_id], day)
                hits_per_plane[plane] += len(plane_hits)
            bundle = engine.ask(question, as_of=day, config=FAST)
            assert bundle.parsed_query["as_of"]["value"] == day.isoformat()
            for cand in bundle.candidates + bundle.definitions:
                assert cand.version_id in query.allowed, (question, day, cand.version_id)
                assert_in_force(engine.catalog.versions[cand.version_id], day)
                assert cand.jurisdiction == jurisdiction or cand.jurisdiction.startswith(
                    jurisdiction + "/"
                )
                if cand.node_id == "/us/usc/t11/s547/c/9":
                    c9_versions.add(cand.version_id)
            if not query.allowed:
                assert not bundle.candidates and bundle.decision.answer is False
    # not vacuous: every plane returned hits, and the filter moved between § 547(c)(9) versions
    assert all(hits_per_plane[p] > 20 for p in cfg.planes), hits_per_plane
    assert len(c9_versions) >= 3, c9_versions
    assert any(not allowed for allowed in expected_allowed.values())  # 1995: nothing in force


def test_boundary_dates_pick_one_version(engine: Engine) -> None:
    """On the day a new § 547(c)(9) amount takes effect only the new version is allowed."""
    versions = sorted(
        engine.catalog.by_node["/us/usc/t11/s547/c/9"], key=lambda v: v.effective_from
    )
    assert len(versions) >= 4
    for old, new in zip(versions, versions[1:], strict=False):
        assert old.effective_to == new.effective_from
        day = new.effective_from
        allowed = engine.catalog.allowed(day, "us-federal")
        assert new.version_id in allowed and old.version_id not in allowed


@pytest.mark.parametrize(
    "question",
    [
        "What must a lessor disclose before consummation of a consumer lease?",
        "Can the trustee avoid a transfer under § 547(b)?",
        "What is a consumer lease?",
    ],
)
def test_cfpb_jurisdiction_returns_only_regulation_m(engine: Engine, question: str) -> None:
    cfg = get_configuration(FAST)
    day = date(2016, 6, 1)
    query, hits = plane_runs(engine, question, cfg, as_of=day, jurisdiction="us-federal/cfpb")
    assert query.allowed and all(v.startswith("/us/cfr/t12/") for v in query.allowed)
    for plane_hits in hits.values():
        assert all(h.version_id.startswith("/us/cfr/t12/") for h in plane_hits)
    bundle = engine.ask(question, as_of=day, jurisdiction="us-federal/cfpb", config=FAST)
    assert bundle.candidates
    for cand in bundle.candidates + bundle.definitions:
        assert cand.node_id.startswith("/us/cfr/t12/"), cand.node_id
        assert cand.jurisdiction == "us-federal/cfpb"


def test_federal_jurisdiction_admits_both(engine: Engine) -> None:
    day = date(2016, 6, 1)
    allowed = engine.catalog.allowed(day, "us-federal")
    assert any(v.startswith("/us/usc/t11/") for v in allowed)
    assert any(v.startswith("/us/cfr/t12/") for v in allowed)
    assert engine.catalog.allowed(day, "us-federal/cfpb") < allowed
    lease = engine.ask(
        "What must a lessor disclose before consummation of a consumer lease?",
        as_of=day,
        jurisdiction="us-federal",
        config=FAST,
    )
    preference = engine.ask(
        "Can the trustee avoid a preferential transfer under § 547(b)?",
        as_of=day,
        jurisdiction="us-federal",
        config=FAST,
    )
    assert lease.candidates[0].node_id.startswith("/us/cfr/t12/")
    assert preference.candidates[0].node_id.startswith("/us/usc/t11/")


def test_baseline_filters_today_and_none(engine: Engine) -> None:
    """`BM25-today` searches today's versions in every jurisdiction whatever the question's
    date; `BM25-all` searches every version; H0 keeps the as-of filter."""
    question = "What was the §547(c)(9) threshold for a case filed in June 2011?"
    today = {
        c.version_id for c in engine.ask(question, config="BM25-today", k=100).candidates
    }
    unfiltered = engine.ask(question, config="BM25-all", k=100).candidates
    as_of = engine.ask(question, config="H0", k=100).candidates
    june_2011 = date(2011, 6, 15)
    assert today and all(engine.catalog.versions[v].valid_at(date.today()) for v in today)
    assert all(c.effective_from is None or date.fromisoformat(c.effective_from) <= june_2011
               for c in as_of)
    versions = {date.fromisoformat(c.effective_from).year for c in unfiltered
                if c.node_id == "/us/usc/t11/s547/c/9" and c.effective_from}
    assert len(versions) > 1  # several editions of § 547(c)(9) compete with no filter
    assert {c.version_id for c in unfiltered} - engine.catalog.allowed(june_2011, "us-federal")
