"""Every named configuration end to end on a small index with every plane: lexical, dense and
ColBERT indexes, the graph and the rule library. Each configuration keeps the hard filter, and
each plane (and the reranker) it names actually contributes candidates or scores."""

from __future__ import annotations

import json
from datetime import date

import pytest
from legal_passages import PARAPHRASE, S547_C9_2005, legal_docs
from structfirst.engine.configuration import load_configurations
from structfirst.engine.engine import Engine
from structfirst.ingest.pipeline import ingest

QUESTION = (
    "A non-consumer debtor paid $6,000 to an outside vendor 100 days before filing in 2012. "
    "Can the trustee avoid this transfer as a preference under § 547(b)?"
)
AS_OF = date(2012, 6, 1)


def _editions() -> dict[str, list[dict]]:
    """The test passages as JSONL editions, one file per document and date, each line with its
    ancestors as lines of their own (the tree the graph plane walks, as a parsed code has it).
    Title 11 comes in two editions, 2005 and 2019, which differ in § 547(c)(9)'s amount."""
    docs = legal_docs()
    t11 = [d for d in docs if d.node_id.startswith("/us/usc/t11")]
    editions = {
        "t11-2005": (date(2005, 10, 17), [d for d in t11 if d.effective_from.year < 2019]),
        "t11-2019": (date(2019, 4, 1), [d for d in t11 if d.version_id != S547_C9_2005]),
    }
    for doc in docs:
        if not doc.node_id.startswith("/us/usc/t11"):
            name = f"{doc.jurisdiction.replace('/', '-')}-{doc.authority}"
            editions.setdefault(name, (doc.effective_from, []))[1].append(doc)
    return {name: _lines(day, group) for name, (day, group) in editions.items()}


def _lines(day: date, docs: list) -> list[dict]:
    lines: dict[str, dict] = {}
    start = day.isoformat()
    for doc in docs:
        parts = doc.node_id.split("/")
        depth = 4 if doc.node_id.startswith(("/us/usc", "/us/cfr")) else 3
        for n in range(depth, len(parts) + 1):
            node = "/".join(parts[:n])
            lines.setdefault(node, {
                "id": node, "text": doc.contents if n == len(parts) else "",
                "jurisdiction": doc.jurisdiction, "authority": doc.authority,
                "effective_from": start,
                **({"parent": "/".join(parts[: n - 1])} if n > depth else {}),
            })
    return list(lines.values())


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory, one_thread: None) -> Engine:
    root = tmp_path_factory.mktemp("every-plane")
    sources = root / "sources"
    sources.mkdir()
    for name, lines in _editions().items():
        text = "".join(json.dumps(line) + "\n" for line in lines)
        (sources / f"{name}.jsonl").write_text(text, "utf-8")
    info = ingest([sources], root / "index", dense=True, progress=False,
                  parser_options={"jsonl": {"jurisdictions": ("other",)}})
    assert {"lucene", "dense", "colbert"} <= set(info.indexes)
    return Engine.open(root / "index")


# every configuration without learned steps (those are fitted and run end to end on the
# fixture in test_stages.py and test_calibration.py)
CONFIGS = {
    name: cfg for name, cfg in load_configurations().items()
    if not (cfg.fusion_model or cfg.reranker_model or cfg.calibration_model)
}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_configuration_keeps_the_filter_and_every_plane_contributes(
    engine: Engine, name: str
) -> None:
    cfg = CONFIGS[name]
    bundle = engine.ask(QUESTION, as_of=AS_OF, config=name, k=30)
    assert bundle.candidates, name
    versions = [engine.catalog.versions[c.version_id] for c in bundle.candidates]
    if cfg.hard_filters == "as_of":
        assert all(v.valid_at(AS_OF) and v.jurisdiction.startswith("us-federal")
                   for v in versions), name
    elif cfg.hard_filters == "today":
        assert all(v.valid_at(date.today()) for v in versions), name
    contributed = {plane for c in bundle.candidates for plane in c.plane_ranks}
    assert set(cfg.planes) <= contributed, (name, contributed)
    if cfg.reranker:
        assert all(c.rerank_score is not None for c in bundle.candidates[: cfg.rerank_depth])
    else:
        assert all(c.rerank_score is None for c in bundle.candidates)
    if "symbolic" in cfg.planes:
        assert any(v["rule"] == "s547.b" for v in bundle.verdicts), name


def test_dense_plane_finds_a_paraphrase_that_shares_no_statutory_words(engine: Engine) -> None:
    bundle = engine.ask(PARAPHRASE, as_of=date(2020, 1, 1), config="H1", k=30)
    c9 = next(c for c in bundle.candidates if c.node_id == "/us/usc/t11/s547/c/9")
    assert c9.plane_ranks["dense"] <= 10
    assert c9.plane_ranks.get("lexical", 101) > c9.plane_ranks["dense"]


def test_no_filter_baseline_mixes_versions_the_as_of_filter_keeps_apart(engine: Engine) -> None:
    question = "transfer of less than $5,000 by a debtor whose debts are not consumer debts"
    filtered = engine.ask(question, as_of=AS_OF, config="H0", k=30).candidates
    unfiltered = engine.ask(question, as_of=AS_OF, config="BM25-all", k=30).candidates
    c9 = "/us/usc/t11/s547/c/9"
    assert [c.version_id for c in filtered if c.node_id == c9] == [f"{c9}@2005-10-17"]
    assert {c.version_id for c in unfiltered if c.node_id == c9} == {
        f"{c9}@2005-10-17", f"{c9}@2019-04-01"}
