"""A baseline relabeling method (TF-IDF and keyword routing), and its kappa against the labels.

    python -m structfirst.eval.label_review        # writes data/queries/review.json

The labels are those in `data/queries/all.jsonl`. This method never reads them, but it reads
each query's gold jurisdiction (rule 2), so its other-jurisdiction abstentions agree by
construction: it is a baseline, not an independent labeler (that is
`structfirst.eval.independent_labels`). For each of 100 queries drawn at random (seeded,
stratified by query type) it derives a primary citation, or an abstention, from the question
text, its date and its jurisdiction only, by rules:

1. An explicit citation in the question (`§ 547(c)(12)`, `11 U.S.C. 547(j)`, `12 CFR 1013.15`,
   `Regulation B § 1002.19`) is resolved: no such node in any version -> abstain
   (no_such_provision); no version in force at as_of -> abstain (before_any_version);
   otherwise that node.
2. A question about a state's own law (a query jurisdiction other than federal) -> abstain
   (other_jurisdiction).
3. The source is routed by keywords: a regulation the question names; else Title 11 when it
   uses bankruptcy words; else leases -> Regulation M, cards, ATMs, transfers, remittances ->
   Regulation E, credit applications, lenders, applicants -> Regulation B; otherwise
   Title 11. No version of it in force at as_of -> abstain (before_any_version).
4. A quoted term that the routed source defines -> the defining provision.
5. Otherwise the provisions in force at as_of are ranked by TF-IDF cosine between the
   question (with a short list of everyday-word expansions, `EXPANSIONS`) and each
   provision's text with its section heading and the text of its ancestors; the best one is
   the primary citation.

Agreement is measured per query on the primary citation, exactly (node) and at section level,
with Cohen's kappa over the categories (citations and abstention reasons); the share of
second-pass citations that are any graded (>=1) label of the first pass is reported too.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections import Counter, defaultdict
from datetime import date
from pathlib import Path

from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics.pairwise import linear_kernel
from structfirst.eval.build_query_set import QUERIES_DIR, SEED, CorpusView, section_of
from structfirst.eval.query_set import QUERY_TYPES, Query, load_queries
from structfirst.ingest.model import NodeType

SAMPLE_SIZE = 100
NAMED = (
    ("/us/cfr/t12/p1013",
     r"regulation m\b|reg m\b|consumer.leasing|leasing rules|lease regulation"),
    ("/us/cfr/t12/p1005", r"regulation e\b|reg e\b|electronic.(?:payment|transfer)s? rules"),
    ("/us/cfr/t12/p1002", r"regulation b\b|reg b\b|equal.credit|ecoa"),
)
TITLE11 = (r"bankrupt|chapter \d+|trustee|debtor|discharge|creditor|filing|filed|petition|"
           r"preference|estate|order for relief|exemption")
ROUTES = (
    ("/us/cfr/t12/p1013", r"\blease|lessor|lessee|leasing"),
    ("/us/cfr/t12/p1005", r"\batm\b|debit|card|electronic|transfer|remittance|overdraft|payroll|"
                          r"prepaid|statement|bank customer|direct deposit"),
    ("/us/cfr/t12/p1002", r"applicant|application|lender|lending|credit line|adverse action|"
                          r"marital|appraisal|equal.credit|co-?signer|signature"),
)
# everyday words -> the statute's words (a small, generic list; applied to the question only)
EXPANSIONS = {
    "claw": "avoid recover", "trustee": "trustee avoid", "payment": "transfer payment",
    "paid": "transfer", "small": "aggregate value less than", "freeze": "stay",
    "wipe": "discharge", "survive": "except discharge", "priority": "priority allowed claims",
    "stolen": "unauthorized loss theft", "fees": "fee charge", "deadline": "time days",
    "insider": "insider relative general partner director officer",
}
_CITE = re.compile(
    r"(?:(?P<cfr>(?:12 CFR|§)\s*(?:part\s*)?(?P<part>10(?:02|05|13))\.(?P<sec>\d+))"
    r"|(?:(?:11 U\.S\.C\.?|§)\s*(?P<usc>\d{3,4})))(?P<subs>(?:\([A-Za-z0-9]+\))*)"
)
_QUOTED = re.compile(r"[“\"']([^”\"']{3,60})[”\"']")


def cited_node(question: str) -> str | None:
    """The canonical id of the first explicit citation in the question, if any."""
    m = _CITE.search(question)
    if not m:
        return None
    subs = "".join(f"/{s}" for s in re.findall(r"\(([A-Za-z0-9]+)\)", m.group("subs")))
    if m.group("cfr"):
        return f"/us/cfr/t12/s{m.group('part')}.{m.group('sec')}{subs}"
    return f"/us/usc/t11/s{m.group('usc')}{subs}"


def route(question: str) -> str:
    """The source a question is about: a regulation it names, else Title 11 when it uses
    bankruptcy words, else the first regulation whose keywords it uses, else Title 11."""
    low = question.lower()
    for doc, pattern in NAMED:
        if re.search(pattern, low):
            return doc
    if re.search(TITLE11, low):
        return "/us/usc/t11"
    for doc, pattern in ROUTES:
        if re.search(pattern, low):
            return doc
    return "/us/usc/t11"


class Relabeler:
    """The rule-based second pass (see the module docstring)."""

    def __init__(self, cv: CorpusView) -> None:
        self.cv = cv
        heads: dict[str, str] = {}
        for nid, versions in cv.versions.items():
            if versions[-1].type == NodeType.SECTION:
                heads[nid] = versions[-1].heading or ""
        self.heads = heads

    def in_force(self, doc: str, as_of: date) -> list[tuple[str, str]]:
        out = []
        for nid in self.cv.versions:
            if not nid.startswith(("/us/usc/t11/s", "/us/cfr/t12/s")):
                continue
            if "/note/" in nid or "/term/" in nid or self.cv.doc_of(nid) != doc:
                continue
            v = self.cv.resolve(nid, as_of)
            if v is None or v.type not in (NodeType.CLAUSE, NodeType.SECTION):
                continue
            parts = nid.split("/")
            chain = [self.cv.text("/".join(parts[:k]), as_of)
                     for k in range(len(section_of(nid).split("/")) + 1, len(parts))]
            head = self.heads.get(section_of(nid), "")
            out.append((nid, " ".join([head, *chain, v.heading or "", v.text or ""])))
        return out

    def label(self, q: Query) -> str:
        cited = cited_node(q.question)
        if cited:
            if not self.cv.exists_ever(cited):
                return "abstain:no_such_provision"
            if self.cv.resolve(cited, q.as_of) is None:
                return "abstain:before_any_version"
            return cited
        if not q.jurisdiction.startswith("us-federal"):
            return "abstain:other_jurisdiction"
        doc = route(q.question)
        if q.as_of < self.cv.edition_dates[doc][0]:
            return "abstain:before_any_version"
        defs = self.cv.definitions_at(doc, q.as_of)
        for term in _QUOTED.findall(q.question):
            if term.lower() in defs:
                return defs[term.lower()]
        candidates = self.in_force(doc, q.as_of)
        words = q.question.lower()
        query = words + " " + " ".join(v for k, v in EXPANSIONS.items() if k in words)
        vec = TfidfVectorizer(stop_words="english", sublinear_tf=True)
        matrix = vec.fit_transform([t for _, t in candidates] + [query])
        scores = linear_kernel(matrix[-1], matrix[:-1]).ravel()
        return candidates[int(scores.argmax())][0]


def first_pass(q: Query) -> str:
    if not q.answerable:
        return f"abstain:{q.abstain_reason}"
    return next(lab.id for lab in q.labels if lab.grade == 2)


def section_level(label: str) -> str:
    return label if label.startswith("abstain:") else section_of(label)


def cohen_kappa(a: list[str], b: list[str]) -> dict:
    """Cohen's kappa of two categorical labelings of the same items.

    p_o = share of items with equal labels; p_e = sum over categories of the product of the
    two passes' marginal shares; kappa = (p_o - p_e) / (1 - p_e) (1.0 when p_e == 1).
    """
    if len(a) != len(b) or not a:
        raise ValueError("kappa needs two labelings of the same, non-empty set of items")
    n = len(a)
    p_o = sum(x == y for x, y in zip(a, b, strict=True)) / n
    ca, cb = Counter(a), Counter(b)
    p_e = sum(ca[c] * cb[c] for c in ca) / (n * n)
    kappa = 1.0 if p_e == 1 else (p_o - p_e) / (1 - p_e)
    return {"n": n, "p_observed": p_o, "p_expected": p_e, "kappa": kappa}


def stratified_sample(queries: list[Query], size: int, seed: int) -> list[Query]:
    """`size` queries, about equally many of each type, drawn with a seeded RNG."""
    rng = random.Random(seed)
    by_type: dict[str, list[Query]] = defaultdict(list)
    for q in queries:
        by_type[q.type].append(q)
    per = {t: size // len(QUERY_TYPES) for t in QUERY_TYPES}
    for t in QUERY_TYPES[: size - sum(per.values())]:
        per[t] += 1
    out = []
    for t in QUERY_TYPES:
        out += rng.sample(by_type[t], min(per[t], len(by_type[t])))
    return out


def review(queries: list[Query], cv: CorpusView, size: int = SAMPLE_SIZE,
           seed: int = SEED) -> dict:
    sample = stratified_sample(queries, size, seed)
    relabeler = Relabeler(cv)
    rows = []
    for q in sample:
        rows.append({"qid": q.qid, "type": q.type, "first": first_pass(q),
                     "second": relabeler.label(q),
                     "first_graded": sorted(q.relevant_ids(1))})
    first = [r["first"] for r in rows]
    second = [r["second"] for r in rows]
    lenient = sum(r["second"] in r["first_graded"] or r["second"] == r["first"] for r in rows)
    by_type = {}
    for t in QUERY_TYPES:
        sub = [r for r in rows if r["type"] == t]
        by_type[t] = {
            "n": len(sub),
            "node_agreement": sum(r["first"] == r["second"] for r in sub) / len(sub),
            "section_agreement": sum(section_level(r["first"]) == section_level(r["second"])
                                     for r in sub) / len(sub),
        }
    for r in rows:
        del r["first_graded"]
    return {
        "method": __doc__.split("\n\n", 2)[2].strip(),
        "sample_size": len(rows),
        "seed": seed,
        "kappa_node": cohen_kappa(first, second),
        "kappa_section": cohen_kappa([section_level(x) for x in first],
                                     [section_level(x) for x in second]),
        "second_pass_in_first_pass_labels": lenient / len(rows),
        "by_type": by_type,
        "items": rows,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Second labeling pass and Cohen's kappa.")
    ap.add_argument("--queries", type=Path, default=QUERIES_DIR / "all.jsonl")
    ap.add_argument("--out", type=Path, default=QUERIES_DIR / "review.json")
    ap.add_argument("--size", type=int, default=SAMPLE_SIZE)
    ap.add_argument("--seed", type=int, default=SEED)
    args = ap.parse_args(argv)
    result = review(load_queries(args.queries), CorpusView(), args.size, args.seed)
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    summary = {k: result[k] for k in ("sample_size", "kappa_node", "kappa_section",
                                      "second_pass_in_first_pass_labels")}
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
