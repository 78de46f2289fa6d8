"""LexicalPlane: BM25 over a tiny real Lucene index, with the allowed-set filter inside Lucene."""

from __future__ import annotations

import threading
from datetime import date
from pathlib import Path

import pytest
import structfirst.engine.lexical_plane as lp
from structfirst.engine.lexical_plane import LexicalPlane
from structfirst.engine.plane import PlaneQuery
from structfirst.engine.relevance_feedback import RM3
from structfirst.engine.text_planes import LexicalSearchPlane
from structfirst.ingest.index_builder import IndexableDoc
from structfirst.ingest.java_env import detach_thread
from structfirst.ingest.lucene_index import LuceneIndexBuilder

S547C9 = "/us/usc/t11/s547/c/9"
V2010, V2013, V2016 = (f"{S547C9}@{y}-04-01" for y in (2010, 2013, 2016))
C9_TEXT = (
    "11 U.S.C. § 547(c)(9). Preferences. The trustee may not avoid under this section a "
    "transfer if, in a case filed by a debtor whose debts are not primarily consumer debts, "
    "the aggregate value of all property that constitutes or is affected by such transfer is "
    "less than {amount}."
)


def _doc(version_id: str, text: str, authority: str = "statute") -> IndexableDoc:
    node_id, _, frm = version_id.partition("@")
    return IndexableDoc(
        version_id=version_id,
        node_id=node_id,
        contents=text,
        jurisdiction="us-federal" if "/usc/" in node_id else "us-federal/cfpb",
        authority=authority,
        effective_from=date.fromisoformat(frm),
        effective_to=None,
    )


DOCS = [
    _doc(V2010, C9_TEXT.format(amount="$5,850")),
    _doc(V2013, C9_TEXT.format(amount="$6,225")),
    _doc(V2016, C9_TEXT.format(amount="$6,425")),
    _doc(
        "/us/usc/t11/s547/b@2005-10-17",
        "11 U.S.C. § 547(b). Except as provided in subsections (c) and (i) of this section, the "
        "trustee may avoid any transfer of an interest of the debtor in property (1) to or for "
        "the benefit of a creditor; (2) for or on account of an antecedent debt.",
    ),
    _doc(
        "/us/usc/t11/s547/c@2005-10-17",
        "11 U.S.C. § 547(c). The trustee may not avoid under this section a transfer—",
    ),
    _doc(
        "/us/usc/t11/s548/a/1@2005-10-17",
        "11 U.S.C. § 548(a)(1). The trustee may avoid any transfer of an interest of the debtor "
        "in property that was made or incurred on or within 2 years before the date of the "
        "filing of the petition.",
    ),
    _doc(
        "/us/usc/t11/s362/a@2005-10-17",
        "11 U.S.C. § 362(a). Except as provided in subsection (b) of this section, a petition "
        "filed under section 301, 302, or 303 of this title operates as a stay.",
    ),
    _doc(
        "/us/usc/t11/s101/10A@2005-10-17",
        "11 U.S.C. § 101(10A). The term current monthly income means the average monthly "
        "income from all sources that the debtor receives.",
    ),
    _doc(
        "/us/cfr/t12/s1013.2/e/1@2011-12-30",
        "12 CFR § 1013.2(e)(1). Consumer lease means a contract in the form of a bailment or "
        "lease for the use of personal property by a natural person primarily for personal, "
        "family, or household purposes, for a period exceeding four months and for a total "
        "contractual obligation not exceeding $50,000.",
        authority="regulation",
    ),
    _doc(
        "/us/cfr/t12/s1013.4/b@2011-12-30",
        "12 CFR § 1013.4(b). The lessor shall disclose the following information, as "
        "applicable: a brief description or identification of the leased property.",
        authority="regulation",
    ),
]
ALL_IDS = {d.version_id for d in DOCS}


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("snap") / "lucene"
    LuceneIndexBuilder().build(DOCS, out)
    return out


@pytest.fixture(scope="module")
def plane(index_dir: Path) -> LexicalPlane:
    with LexicalPlane(index_dir) as p:
        yield p


def _ids(hits: list[tuple[str, float]]) -> list[str]:
    return [d for d, _ in hits]


@pytest.mark.parametrize("query", ["§ 547(c)(9)", "section 547(c)(9)", "547(c)(9)", "§547(c)(9)"])
def test_citation_queries_rank_the_cited_provision_first(plane: LexicalPlane, query: str) -> None:
    hits = plane.search(query, 5)
    assert set(_ids(hits)[:3]) == {V2010, V2013, V2016}
    assert hits[0][1] > hits[3][1]  # §547(b)/(c) share only the prefixes: ranked below


def test_section_query_matches_subdivision_text(plane: LexicalPlane) -> None:
    hits = _ids(plane.search("§547", 10))
    assert set(hits) == {V2010, V2013, V2016} | {
        "/us/usc/t11/s547/b@2005-10-17",
        "/us/usc/t11/s547/c@2005-10-17",
    }


def test_amount_matches_only_its_version(plane: LexicalPlane) -> None:
    assert _ids(plane.search("$6,225", 10)) == [V2013]
    assert _ids(plane.search("$6225.00", 10)) == [V2013]
    assert _ids(plane.search("$5,850", 10)) == [V2010]


def test_shall_is_searchable(plane: LexicalPlane) -> None:
    assert _ids(plane.search("shall", 10)) == ["/us/cfr/t12/s1013.4/b@2011-12-30"]
    assert plane.search("may not", 10)


def test_cfr_citation_query(plane: LexicalPlane) -> None:
    for query in ("12 CFR 1013.2(e)(1)", "§ 1013.2(e)(1)", "section 1013.2"):
        assert _ids(plane.search(query, 1)) == ["/us/cfr/t12/s1013.2/e/1@2011-12-30"]


@pytest.fixture(params=["terms", "ords"])
def filter_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test through the `id`-terms filter and through the `ord` doc-values filter."""
    if request.param == "ords":
        monkeypatch.setattr(lp, "TERMS_FILTER_MAX", 0)
    return request.param


def _postfiltered(plane: LexicalPlane, query: str, allowed: set[str], k: int) -> list:
    return [h for h in plane.search(query, len(ALL_IDS)) if h[0] in allowed][:k]


def test_filter_excludes_the_would_be_first_hit(plane: LexicalPlane, filter_path: str) -> None:
    query = "§ 547(c)(9) $6,225"
    assert _ids(plane.search(query, 1)) == [V2013]
    allowed = ALL_IDS - {V2013}  # most of the index: the complement (MUST_NOT) path for ords
    hits = plane.search(query, 3, allowed=allowed)
    assert V2013 not in _ids(hits)
    assert len(hits) == 3
    assert hits == _postfiltered(plane, query, allowed, 3)


def test_small_filter_is_applied_before_ranking(plane: LexicalPlane, filter_path: str) -> None:
    # k=1: a post-filter of the unfiltered top 1 would return nothing.
    allowed = {"/us/usc/t11/s362/a@2005-10-17", "/us/usc/t11/s548/a/1@2005-10-17", V2016}
    hits = plane.search("§ 547(c)(9) $6,225", 1, allowed=allowed)
    assert _ids(hits) == [V2016]
    hits = plane.search("trustee may avoid", 5, allowed=allowed)
    assert hits == _postfiltered(plane, "trustee may avoid", allowed, 5)


def test_filter_leaving_nothing_returns_empty(plane: LexicalPlane, filter_path: str) -> None:
    assert plane.search("§ 547(c)(9)", 5, allowed=set()) == []
    assert plane.search("§ 547(c)(9)", 5, allowed={"/not/indexed@2020-01-01"}) == []
    # allowed docs exist but none matches the query
    assert plane.search("§ 547(c)(9)", 5, allowed={"/us/cfr/t12/s1013.4/b@2011-12-30"}) == []


def test_filter_plan_by_size(plane: LexicalPlane, monkeypatch: pytest.MonkeyPatch) -> None:
    assert plane._plan_filter({V2013})[0] == "terms"
    monkeypatch.setattr(lp, "TERMS_FILTER_MAX", 2)
    kind, ords = plane._plan_filter({V2010, V2013, V2016})
    assert kind == "ords" and sorted(plane._docids[n] for n in ords) == [V2010, V2013, V2016]
    kind, ords = plane._plan_filter(ALL_IDS - {V2013})
    assert kind == "not_ords" and len(ords) == 1  # the complement, as a MUST_NOT clause
    assert plane._plan_filter(ALL_IDS)[0] is None
    assert plane._plan_filter({"/unknown@2020-01-01"})[0] == "empty"


def test_allowing_everything_is_no_filter(plane: LexicalPlane) -> None:
    query = "trustee may avoid any transfer"
    assert plane.search(query, 10, allowed=ALL_IDS | {"/extra@2020-01-01"}) == plane.search(
        query, 10
    )
    assert plane.search(query, 10, allowed=frozenset(ALL_IDS)) == plane.search(query, 10, None)


def test_k_and_empty_queries(plane: LexicalPlane) -> None:
    assert len(plane.search("trustee", 2)) == 2
    assert plane.search("trustee", 0) == []
    assert plane.search("", 5) == []
    assert plane.search("the of ... §", 5) == []
    assert plane.search("zebra", 5) == []
    hits = plane.search("trustee may avoid any transfer", 10)
    scores = [s for _, s in hits]
    assert scores == sorted(scores, reverse=True) and all(s > 0 for s in scores)


def test_bm25_parameters_are_configurable(index_dir: Path) -> None:
    query = "trustee transfer"
    with (
        LexicalPlane(index_dir, k1=0.9, b=0.0) as flat,
        LexicalPlane(index_dir, k1=1.2, b=1.0) as full,
    ):
        a = dict(flat.search(query, 10))
        c = dict(full.search(query, 10))
    assert a.keys() == c.keys()
    assert a != c


def test_concurrent_searches_agree_with_serial(plane: LexicalPlane) -> None:
    cases = [
        ("§ 547(c)(9)", None),
        ("$6,225", None),
        ("trustee may avoid", {V2010, "/us/usc/t11/s548/a/1@2005-10-17"}),
        ("consumer lease", ALL_IDS - {V2013}),
        ("shall disclose", set()),
    ]
    expected = [plane.search(q, 5, a) for q, a in cases]
    errors: list[BaseException] = []

    def work(offset: int) -> None:
        try:
            for i in range(40):
                idx = (i + offset) % len(cases)
                q, a = cases[idx]
                assert plane.search(q, 5, a) == expected[idx]
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            detach_thread()

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


def test_missing_index_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="not a lexical index"):
        LexicalPlane(tmp_path)


def test_empty_plane(tmp_path: Path) -> None:
    LuceneIndexBuilder().build([], tmp_path / "lucene")
    with LexicalPlane(tmp_path / "lucene") as p:
        assert len(p) == 0
        assert p.search("§ 547", 5) == []


def test_thesaurus_expansion_joins_the_query_below_the_questions_words(
    plane: LexicalPlane,
) -> None:
    question = "what stops creditors from collecting"
    plain = plane.search(question, 10)
    assert "/us/usc/t11/s362/a@2005-10-17" not in _ids(plain)
    expanded = plane.search(question, 10, expansion=("stay",), expansion_weight=0.3)
    assert "/us/usc/t11/s362/a@2005-10-17" in _ids(expanded)
    full = dict(plane.search("stay", 10))["/us/usc/t11/s362/a@2005-10-17"]
    assert dict(expanded)["/us/usc/t11/s362/a@2005-10-17"] == pytest.approx(0.3 * full, rel=1e-5)
    assert plane.search(question, 10, expansion=("stay",), expansion_weight=0.0) == plain


def test_rm3_weights_interpolate_the_question_with_the_feedback_model() -> None:
    rm3 = RM3(docs=2, terms=2, original_weight=0.5)
    got = rm3.weights({"a": 1.0, "b": 1.0}, [(["a", "c", "c", "d"], 3.0), (["c", "e"], 1.0)])
    # P(w|D) weighted by score share: c .5, a .1875, d .1875 (a wins the tie by name), e .125
    assert got == pytest.approx({"a": 0.25 + 0.5 * 0.1875 / 0.6875, "b": 0.25,
                                 "c": 0.5 * 0.5 / 0.6875})
    assert sum(got.values()) == pytest.approx(1.0)
    assert rm3.weights({"a": 2.0}, []) == {"a": 0.5}  # no feedback: the question's half only


@pytest.mark.parametrize("settings", [(0, 10, 0.5), (10, 0, 0.5), (10, 10, 1.5)])
def test_rm3_refuses_bad_settings(settings: tuple[int, int, float]) -> None:
    with pytest.raises(ValueError, match="RM3"):
        RM3(*settings)


def test_rm3_feedback_brings_in_passages_that_share_the_top_passages_terms(
    plane: LexicalPlane,
) -> None:
    texts = {d.version_id: d.contents for d in DOCS}
    lexical = LexicalSearchPlane("lexical", plane, texts.__getitem__)
    lease_disclosure = "/us/cfr/t12/s1013.4/b@2011-12-30"

    def query(feedback: RM3 | None) -> PlaneQuery:
        return PlaneQuery("bailment", date(2020, 1, 1), ALL_IDS, "definition", feedback=feedback)

    plain = [h.version_id for h in lexical.retrieve(query(None), 10)]
    assert plain == ["/us/cfr/t12/s1013.2/e/1@2011-12-30"]
    expanded = [h.version_id for h in lexical.retrieve(query(RM3(docs=1, terms=10)), 10)]
    assert expanded[0] == plain[0] and lease_disclosure in expanded
    with pytest.raises(ValueError, match="needs the passages' text"):
        LexicalSearchPlane("lexical", plane).retrieve(query(RM3()), 10)
