"""The hard filter as criteria: its numpy columns agree with its per-version check, and the
lexical plane's Lucene clauses over indexed fields select exactly the versions it admits."""

from __future__ import annotations

from datetime import date

import pytest
from structfirst.engine.catalog import ArtifactVersion, Catalog, VersionColumns
from structfirst.engine.configuration import get_configuration
from structfirst.engine.engine import Engine
from structfirst.engine.lexical_plane import LexicalPlane

pytest_plugins = ["engine_fixtures"]

DAYS = (date(1995, 6, 1), date(2010, 3, 31), date(2010, 4, 1), date(2013, 4, 1), date(2018, 6, 30))
JURISDICTIONS = (None, "us-federal", "us-federal/cfpb", "us-ia")
QUERIES = (
    "trustee may avoid a transfer of an interest of the debtor",
    "lessor shall disclose consumer lease",
    "insider means",
)


def version(vid: str, start: date | None, end: date | None, jurisdiction: str = "us-federal",
            authority: str = "statute", kind: str = "Clause") -> ArtifactVersion:
    return ArtifactVersion(vid, vid.split("@")[0], kind, None, None, "text", None, jurisdiction,
                           authority, start, end, "src", 0, 4)


def test_columns_agree_with_the_per_version_check() -> None:
    versions = [
        version("/a@1", None, date(2010, 4, 1)),
        version("/a@2", date(2010, 4, 1), None),
        version("/b@1", date(2001, 1, 1), date(2002, 1, 1), "us-federal/cfpb", "regulation"),
        version("/c@1", date(2001, 1, 1), None, "us-federalx"),  # not under us-federal
        version("/d@1", None, None, kind="Date"),  # scaffolding: never
    ]
    catalog = Catalog(versions)
    columns = VersionColumns([*versions, None])  # an index row the catalog lacks: never
    for day in (date(2001, 6, 1), date(2010, 3, 31), date(2010, 4, 1), date(2030, 1, 1)):
        for jurisdiction in (None, "us-federal", "us-federal/cfpb", "us-ia"):
            for authorities in (None, frozenset({"regulation"}), frozenset()):
                where = catalog.hard_filter(day, jurisdiction, authorities)
                expected = [where.admits(v) for v in versions] + [False]
                assert columns.mask(where).tolist() == expected, (day, jurisdiction, authorities)
                assert [v.version_id in where for v in versions] == expected[:-1]
                assert bool(where) == any(expected)
    assert "/a@1" in catalog.hard_filter(date(2010, 3, 31), "us-federal")
    assert "/a@1" not in catalog.hard_filter(date(2010, 4, 1), "us-federal")  # `to` exclusive


@pytest.fixture(scope="module")
def lexical(engine: Engine) -> LexicalPlane:
    return engine.plane("lexical", get_configuration("fast")).searcher


def test_lucene_clauses_select_what_the_allowed_set_selects(
    engine: Engine, lexical: LexicalPlane
) -> None:
    nonempty = 0
    for day in DAYS:
        for jurisdiction in JURISDICTIONS:
            where = engine.catalog.hard_filter(day, jurisdiction)
            allowed = engine.catalog.allowed(day, jurisdiction)
            for query in QUERIES:
                hits = lexical.search(query, 30, where)
                assert hits == lexical.search(query, 30, allowed), (day, jurisdiction, query)
                nonempty += bool(hits)
    assert nonempty >= 20  # not vacuous


def test_lucene_authority_clause(engine: Engine, lexical: LexicalPlane) -> None:
    day = date(2018, 6, 30)
    for authorities in (frozenset({"regulation"}), frozenset({"statute", "regulation"})):
        where = engine.catalog.hard_filter(day, "us-federal", authorities)
        hits = lexical.search("consumer lease disclosure", 20, where)
        assert hits and hits == lexical.search(
            "consumer lease disclosure", 20, engine.catalog.allowed(day, "us-federal", authorities)
        )
    assert lexical.search("lease", 5, engine.catalog.hard_filter(day, None, frozenset())) == []
