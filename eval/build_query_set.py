"""Build the labeled query set in `data/queries/` (rerunnable, deterministic).

    python -m structfirst.eval.build_query_set            # validate + regenerate everything
    python -m structfirst.eval.build_query_set --check    # validate only, write nothing

What it does:

1. Reads the shared corpus with the project's own parsers and versioning (`CorpusView`:
   `parse_uscode`, `parse_regml`, `build_versions`), so every label names a node id the
   snapshot has and carries the interval of the version in force at the query's `as_of`.
2. Validates `data/queries/handwritten.jsonl` (written by hand): every label must have a
   version in force at `as_of`, and every expected verdict must agree with the rule library
   evaluated on the query's gold facts (`verdict_disagreements`). With `--fill-why` it fills
   the empty `why` fields of the hand-written file with the label's text at `as_of`, and an
   empty `provision` with the section of its first primary label (only empty ones;
   idempotent).
3. Generates the templated queries (`templated.jsonl`) from the versioned structure with
   paraphrase templates that do not copy a provision's own wording.
4. Applies the adjudicated label changes of `adjudications.json` (disagreements with the
   independent second labeler, each resolved by reading the provision), adds the §104 table
   of adjusted amounts to queries citing §104, fills `valid_from`/`valid_to` of every label,
   and writes `all.jsonl`, the provision-grouped `train/dev/test.jsonl` splits and
   `stats.json` (counts per type x split).

`structfirst.eval.query_set.fill_version_intervals` refreshes the intervals from a built
snapshot should its versioning differ from the one read here.
"""

from __future__ import annotations

import argparse
import bisect
import json
import random
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from datetime import date, timedelta
from pathlib import Path

from structfirst.eval.query_set import (
    QUERY_TYPES,
    Label,
    Query,
    dump_queries,
    load_queries,
    parse_query,
    verdict_disagreements,
)
from structfirst.ingest.corpus import REPO_ROOT, corpus_root
from structfirst.ingest.model import EdgeType, Node, NodeType
from structfirst.ingest.regml import parse_regml
from structfirst.ingest.uscode import parse_uscode
from structfirst.ingest.versioning import build_versions
from structfirst.rules.evaluator import evaluate
from structfirst.rules.library_loader import default_library

QUERIES_DIR = REPO_ROOT / "data" / "queries"
SEED = 20260101

# --------------------------------------------------------------------------------------------
# The corpus as the project versions it
# --------------------------------------------------------------------------------------------


def _natural(node_id: str) -> list:
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", node_id)]


class CorpusView:
    """Every version of the shared corpus, read with the project's own parsers
    (`parse_uscode`, `parse_regml`) and versioning (`build_versions`), so labels use exactly
    the node ids and version intervals a snapshot will have."""

    def __init__(self, root: Path | None = None) -> None:
        root = root or corpus_root()
        docs = [parse_uscode(p)
                for p in sorted((root / "us-code" / "title-11").glob("*/usc11.htm"))]
        for part in ("1002", "1005", "1013"):
            docs += [parse_regml(p)
                     for p in sorted((root / "cfr-12" / "regulation" / part).glob("*.xml"))]
        corpus = build_versions(docs)
        self.versions: dict[str, list[Node]] = defaultdict(list)  # node id -> versions
        self.children_of: dict[str, set[str]] = defaultdict(set)
        for node in corpus.nodes:
            self.versions[node.id].append(node)
            if node.parent:
                self.children_of[node.parent].add(node.id)
        for vs in self.versions.values():
            vs.sort(key=lambda n: n.effective_from or date.min)
        # defining paragraph -> defined-term node id (edges join version ids)
        node_of = {n.version_id: n.id for n in corpus.nodes}
        self.term_of: dict[str, str] = {}
        for e in corpus.edges:
            if e.type == EdgeType.DEFINES and e.src in node_of and e.dst in node_of:
                self.term_of.setdefault(node_of[e.src], node_of[e.dst])
        self.edition_dates = {fam: [e.effective_from for e in eds]
                              for fam, eds in corpus.editions.items()}

    @staticmethod
    def doc_of(node_id: str) -> str:
        """The family of a node id: `/us/usc/t11` or `/us/cfr/t12/p<part>`."""
        if node_id.startswith("/us/usc/t11/") or node_id == "/us/usc/t11":
            return "/us/usc/t11"
        m = re.match(r"/us/cfr/t12/[sp](\d+)", node_id)
        if m:
            return f"/us/cfr/t12/p{m.group(1)}"
        raise KeyError(f"no document in the corpus for {node_id}")

    def resolve(self, node_id: str, as_of: date) -> Node | None:
        """The version of `node_id` in force at `as_of` ([from, to)), or None."""
        for v in self.versions.get(node_id, ()):
            if (v.effective_from or date.min) <= as_of and (v.effective_to is None
                                                            or as_of < v.effective_to):
                return v
        return None

    def exists_ever(self, node_id: str) -> bool:
        return node_id in self.versions

    def children(self, node_id: str, as_of: date) -> list[str]:
        """Enumerated children (clauses) of a node in force at `as_of`, in natural order."""
        kids = [k for k in self.children_of.get(node_id, ())
                if (v := self.resolve(k, as_of)) is not None and v.type == NodeType.CLAUSE]
        return sorted(kids, key=_natural)

    def definitions_at(self, doc: str, as_of: date) -> dict[str, str]:
        """term -> defining provision, for the terms of `doc` in force at `as_of`."""
        out: dict[str, str] = {}
        for src, term_id in self.term_of.items():
            if self.doc_of(src) != doc or self.resolve(src, as_of) is None:
                continue
            term = self.resolve(term_id, as_of)
            if term is not None:
                out.setdefault(term.attrs.get("term", "").lower(), src)
        return out

    def text(self, node_id: str, as_of: date) -> str:
        """The version's text at `as_of` (its heading, or for an empty container its place in
        the hierarchy, when it has none)."""
        v = self.resolve(node_id, as_of)
        if v is None:
            return ""
        return v.text or v.heading or f"{v.attrs.get('hierarchy_path', node_id)} (container)"


# --------------------------------------------------------------------------------------------
# Reference rule evaluation (the ground truth the expected verdicts are checked against)
# --------------------------------------------------------------------------------------------

BAPCPA = date(2005, 10, 17)  # Pub. L. 109-8: cases commenced on or after this date
BTATCA = (date(2022, 6, 21), date(2024, 6, 21))  # temporary combined chapter 13 debt limit


def _adj(*rows: tuple[str, object]) -> list[tuple[date, object]]:
    return [(date.fromisoformat(d), v) for d, v in rows]


# Dollar amounts by the date a case is commenced (§104 adjustments apply to cases commenced on
# or after April 1 of the adjustment year; §104(c)). Amounts through the April 1, 2019
# adjustment are read from the §104 notes of the editions (see `check_thresholds_in_notes`);
# the 2022 and 2025 amounts are later than the corpus.
THRESHOLDS: dict[str, list[tuple[date, object]]] = {
    # §547(c)(9): non-consumer-debtor small preference floor ("less than"); BAPCPA-only
    "547c9": _adj(
        ("2005-10-17", 5000), ("2007-04-01", 5475), ("2010-04-01", 5850), ("2013-04-01", 6225),
        ("2016-04-01", 6425), ("2019-04-01", 6825), ("2022-04-01", 7575), ("2025-04-01", 8575),
    ),
    # §109(e): (unsecured, secured) "less than" limits for chapter 13
    "109e": _adj(
        ("1994-10-22", (250000, 750000)), ("1998-04-01", (269250, 807750)),
        ("2001-04-01", (290525, 871550)), ("2004-04-01", (307675, 922975)),
        ("2007-04-01", (336900, 1010650)), ("2010-04-01", (360475, 1081400)),
        ("2013-04-01", (383175, 1149525)), ("2016-04-01", (394725, 1184200)),
        ("2019-04-01", (419275, 1257850)), ("2022-04-01", (465275, 1395875)),
        ("2025-04-01", (526700, 1580125)),
    ),
    # §303(b)(1)/(2): petitioners' aggregate claims "at least"
    "303b": _adj(
        ("1994-10-22", 10000), ("1998-04-01", 10775), ("2001-04-01", 11625),
        ("2004-04-01", 12300), ("2007-04-01", 13475), ("2010-04-01", 14425),
        ("2013-04-01", 15325), ("2016-04-01", 15775), ("2019-04-01", 16750),
        ("2022-04-01", 18600), ("2025-04-01", 21050),
    ),
    # wage priority: (cap, window days, paragraph) — §507(a)(3) before BAPCPA, (a)(4) after
    "507wages": _adj(
        ("1994-10-22", (4000, 90, "3")), ("1998-04-01", (4300, 90, "3")),
        ("2001-04-01", (4650, 90, "3")), ("2004-04-01", (4925, 90, "3")),
        ("2005-10-17", (10000, 180, "4")), ("2007-04-01", (10950, 180, "4")),
        ("2010-04-01", (11725, 180, "4")), ("2013-04-01", (12475, 180, "4")),
        ("2016-04-01", (12850, 180, "4")), ("2019-04-01", (13650, 180, "4")),
        ("2022-04-01", (15150, 180, "4")), ("2025-04-01", (17150, 180, "4")),
    ),
    # §523(a)(2)(C): ((luxury amount, days), (cash-advance amount, days)), "more than"
    "523a2C": _adj(
        ("1994-10-22", ((1000, 60), (1000, 60))), ("1998-04-01", ((1075, 60), (1075, 60))),
        ("2001-04-01", ((1150, 60), (1150, 60))), ("2004-04-01", ((1225, 60), (1225, 60))),
        ("2005-10-17", ((500, 90), (750, 70))), ("2007-04-01", ((550, 90), (825, 70))),
        ("2010-04-01", ((600, 90), (875, 70))), ("2013-04-01", ((650, 90), (925, 70))),
        ("2016-04-01", ((675, 90), (950, 70))), ("2019-04-01", ((725, 90), (1000, 70))),
        ("2022-04-01", ((800, 90), (1100, 70))), ("2025-04-01", ((900, 90), (1250, 70))),
    ),
}
THRESHOLD_NOTE_AMOUNTS_UNTIL = date(2019, 4, 1)  # later amounts are not in the corpus


def threshold(name: str, on: date):
    """The amount in force for a case commenced on `on` (None before the provision existed)."""
    rows = THRESHOLDS[name]
    i = bisect.bisect_right([d for d, _ in rows], on)
    return rows[i - 1][1] if i else None


def reference_verdicts(facts: dict, as_of: date, rules: Iterable[str]) -> dict[str, object]:
    """The rule library's verdicts (its rule ids) on `facts` for a case commenced on
    `filing_date` (or as_of): what the rules mean is defined once, in the library."""
    lib = default_library()
    got = evaluate([r for rid in rules for r in lib.versions(rid)], facts, as_of, library=lib)
    return {v.rule_id: {"true": True, "false": False}.get(v.verdict.value, v.verdict.value)
            for v in got}


def check_thresholds_in_notes(cv: CorpusView) -> list[str]:
    """Each tabled amount up to 2019 must appear in some version of the §104 adjustment note
    or of the adjusted provisions' printed text."""
    texts = [v.text for nid, vs in cv.versions.items() for v in vs
             if nid.startswith(("/us/usc/t11/s104/note/adjustment", "/us/usc/t11/s109/e",
                                "/us/usc/t11/s303/b", "/us/usc/t11/s507/a",
                                "/us/usc/t11/s523/a/2", "/us/usc/t11/s547/c"))]
    texts += [v.attrs.get("printed_text", "") for nid, vs in cv.versions.items() for v in vs
              if nid.startswith("/us/usc/t11/s")]
    notes = " ".join(texts)
    problems = []
    for name, rows in THRESHOLDS.items():
        for d, v in rows:
            if d >= THRESHOLD_NOTE_AMOUNTS_UNTIL:
                continue
            amounts = []
            for x in v if isinstance(v, tuple) else (v,):
                if isinstance(x, tuple):
                    amounts.append(x[0])
                elif isinstance(x, int) and x > 365:
                    amounts.append(x)
            for amt in amounts:
                if f"{amt:,}" not in notes:
                    problems.append(f"{name} {d}: {amt:,} not found in any §104 note or text")
    return problems


# --------------------------------------------------------------------------------------------
# Paraphrase tables for the templated queries (written by hand; none repeats a heading or the
# provision's wording)
# --------------------------------------------------------------------------------------------

REG_NAME = {
    "/us/cfr/t12/p1002": ("Regulation B", "the equal-credit rules"),
    "/us/cfr/t12/p1005": ("Regulation E", "the electronic-payments rules"),
    "/us/cfr/t12/p1013": ("Regulation M", "the consumer-leasing rules"),
}

# section -> plain-language descriptions of what it is about (for lookup questions)
LOOKUP_TOPICS: dict[str, list[str]] = {
    "/us/usc/t11/s362": ["the freeze on collection activity that starts when someone files",
                         "when creditors have to stop suing or repossessing after a filing"],
    "/us/usc/t11/s341": ["the hearing where the trustee and creditors question the debtor under "
                         "oath"],
    "/us/usc/t11/s365": ["what a debtor can do with ongoing contracts and leases it is a party to",
                         "assuming or rejecting a commercial lease in bankruptcy"],
    "/us/usc/t11/s366": ["whether the power or water company can cut off a debtor after filing"],
    "/us/usc/t11/s502": ["how a creditor's claim gets approved or disallowed"],
    "/us/usc/t11/s506": ["splitting an undersecured lender's claim into secured and unsecured "
                         "parts"],
    "/us/usc/t11/s522": ["which property a person can keep out of the bankruptcy estate",
                         "protecting a home or car from creditors in a personal bankruptcy"],
    "/us/usc/t11/s524": ["what a discharge actually does to debts and lawsuits afterward"],
    "/us/usc/t11/s525": ["an employer or government agency treating someone badly because they "
                         "went bankrupt"],
    "/us/usc/t11/s541": ["what assets get swept into the bankruptcy estate"],
    "/us/usc/t11/s544": ["the trustee's power to step into the shoes of a hypothetical lien "
                         "creditor"],
    "/us/usc/t11/s548": ["undoing transfers made to cheat creditors or for too little value",
                         "the trustee attacking a sale for less than reasonably equivalent value"],
    "/us/usc/t11/s549": ["transfers of estate property made after the case was filed"],
    "/us/usc/t11/s553": ["a creditor netting what it owes the debtor against what the debtor "
                         "owes it"],
    "/us/usc/t11/s707": ["throwing out a chapter 7 case for abuse, including the income test"],
    "/us/usc/t11/s727": ["when an individual in a liquidation case gets (or is denied) a fresh "
                         "start"],
    "/us/usc/t11/s1129": ["the conditions a court checks before approving a reorganization plan"],
    "/us/usc/t11/s1141": ["what happens legally once a business reorganization plan is approved"],
    "/us/usc/t11/s1322": ["what a wage-earner repayment plan must and may contain"],
    "/us/usc/t11/s1328": ["the fresh start at the end of a wage-earner repayment plan"],
    "/us/usc/t11/s110": ["penalties for non-lawyer bankruptcy form preparers"],
    "/us/usc/t11/s521": ["the paperwork and cooperation obligations of the person who filed"],
    "/us/usc/t11/s1112": [
        "turning a business reorganization into a liquidation or throwing it out"],
    "/us/usc/t11/s1121": ["who gets to propose a reorganization plan and the exclusive period"],
    "/us/usc/t11/s1104": ["replacing management with a trustee or getting an examiner in a "
                          "business case"],
    "/us/usc/t11/s327": ["the trustee hiring lawyers, accountants and other professionals"],
    "/us/usc/t11/s1301": ["protection for co-signers while a repayment plan is pending"],
    "/us/usc/t11/s301": ["how someone starts a case on their own initiative"],
    "/us/usc/t11/s305": ["the court declining to hear a case or suspending it"],
    "/us/usc/t11/s526": ["what bankruptcy-help businesses are forbidden to do"],
    "/us/cfr/t12/s1002.4": ["the basic ban on treating credit applicants differently for "
                            "protected traits"],
    "/us/cfr/t12/s1002.5": ["which questions a lender may not ask on a credit application"],
    "/us/cfr/t12/s1002.6": ["how a lender may weigh age, income sources and credit history"],
    "/us/cfr/t12/s1002.7": ["requiring a spouse's signature and other account-opening practices"],
    "/us/cfr/t12/s1002.8": ["credit programs aimed at economically disadvantaged groups"],
    "/us/cfr/t12/s1002.9": ["telling an applicant that credit was denied and why"],
    "/us/cfr/t12/s1002.10": ["reporting an account in both spouses' names to credit bureaus"],
    "/us/cfr/t12/s1002.12": ["how long a lender must keep applications and denial letters"],
    "/us/cfr/t12/s1002.13": ["collecting race, sex and age data on home-loan applications"],
    "/us/cfr/t12/s1002.14": ["giving mortgage applicants copies of appraisals"],
    "/us/cfr/t12/s1002.15": ["protection for a lender's voluntary fair-lending self-test"],
    "/us/cfr/t12/s1002.16": ["penalties and liability for violating the equal-credit rules"],
    "/us/cfr/t12/s1005.3": ["which kinds of electronic payments the rules cover at all"],
    "/us/cfr/t12/s1005.5": ["mailing out debit cards nobody asked for"],
    "/us/cfr/t12/s1005.6": ["how much a customer pays when a stolen card is used",
                            "a consumer's exposure for fraudulent debits"],
    "/us/cfr/t12/s1005.7": ["what a bank must tell customers when they sign up for electronic "
                            "transfers"],
    "/us/cfr/t12/s1005.8": ["advance notice before a bank changes account terms for electronic "
                            "transfers"],
    "/us/cfr/t12/s1005.9": ["ATM receipts and monthly account statements"],
    "/us/cfr/t12/s1005.10": ["recurring automatic debits and credits, and stopping them"],
    "/us/cfr/t12/s1005.11": ["how a bank must investigate a disputed electronic transaction"],
    "/us/cfr/t12/s1005.13": ["how long payment-records must be kept and who enforces the rules"],
    "/us/cfr/t12/s1005.16": ["the fee warning an ATM owner must show"],
    "/us/cfr/t12/s1005.17": ["opting in to overdraft coverage for debit card and ATM transactions"],
    "/us/cfr/t12/s1005.18": ["wages paid onto a card account set up by the employer"],
    "/us/cfr/t12/s1005.20": [
        "expiration dates and inactivity fees on store and prepaid gift cards"],
    "/us/cfr/t12/s1005.31": ["the pre-payment and receipt information for money sent abroad"],
    "/us/cfr/t12/s1005.33": ["fixing mistakes in an international money transfer"],
    "/us/cfr/t12/s1005.34": ["calling off an international money transfer and getting the money "
                             "back"],
    "/us/cfr/t12/s1013.3": ["the form and timing of lease disclosures in general"],
    "/us/cfr/t12/s1013.4": ["the items a consumer lease disclosure has to contain"],
    "/us/cfr/t12/s1013.5": ["when a modified or extended lease needs fresh disclosures"],
    "/us/cfr/t12/s1013.7": ["what a car-lease ad must say"],
    "/us/cfr/t12/s1013.8": ["how long a leasing company keeps its compliance paperwork"],
    "/us/cfr/t12/s1013.9": ["how the federal leasing rules interact with state law"],
}

LOOKUP_TEMPLATES = {
    "/us/usc/t11": [
        "Which part of the Bankruptcy Code deals with {t}?",
        "Where in federal bankruptcy law would I find the rules on {t}?",
        "Point me to the bankruptcy provision covering {t}.",
        "What section governs {t}?",
    ],
    "cfr": [
        "Which part of {reg} covers {t}?",
        "Where in {nick} are the rules on {t}?",
        "Point me to the federal regulation on {t}.",
        "Which section of {reg} should a compliance officer read about {t}?",
    ],
}

DEF_TEMPLATES = {
    "/us/usc/t11": [
        "For bankruptcy purposes, what exactly counts as “{term}”?",
        "How does federal bankruptcy law pin down the meaning of “{term}”?",
        "A creditor's lawyer keeps using the phrase “{term}” — what does the Code mean by it?",
        "What is the statutory meaning of “{term}” in Title 11?",
        "Explain the Bankruptcy Code's meaning of “{term}”.",
    ],
    "cfr": [
        "Under {reg}, what does “{term}” mean?",
        "In {nick}, how is “{term}” defined?",
        "For compliance with {reg}, what falls within “{term}”?",
        "What is the regulatory meaning of “{term}” in {reg}?",
    ],
}
# §101 terms used for definition queries (others are too technical or too close to a section)
USC_DEF_TERMS = [
    "affiliate", "claim", "consumer debt", "creditor", "current monthly income", "debt",
    "debtor", "disinterested person", "domestic support obligation", "entity", "equity security",
    "family farmer", "farming operation", "governmental unit", "individual with regular income",
    "insider", "insolvent", "judicial lien", "lien", "median family income", "person", "relative",
    "security interest", "single asset real estate", "small business debtor", "statutory lien",
    "transfer", "debt relief agency", "assisted person", "bankruptcy assistance", "custodian",
    "petition", "swap agreement", "timeshare plan", "intellectual property", "purchaser",
]
CFR_SKIP_TERMS = {"act", "bureau", "state", "person", "credit", "account", "business day",
                  "security", "lease"}

# exception scenarios: (label id, parent id, question variants); the label is the exception
# that answers the question
EXCEPTION_SCENARIOS: list[tuple[list[tuple[str, int]], list[str]]] = [
    ([("/us/cfr/t12/s1005.3/c/1", 2), ("/us/cfr/t12/s1005.3/c", 1)],
     ["A customer paid the utility by mailing a paper check. Do the electronic-transfer error "
      "rules apply?"]),
    ([("/us/cfr/t12/s1005.3/c/3", 2), ("/us/cfr/t12/s1005.3/c", 1)],
     ["A business wired money through Fedwire to another bank. Is that covered by the consumer "
      "electronic-transfer rules?"]),
    ([("/us/cfr/t12/s1005.3/c/4", 2), ("/us/cfr/t12/s1005.3/c", 1)],
     ["A consumer's broker pulled funds electronically to buy SEC-registered stock. Does "
      "Regulation E cover that debit?"]),
    ([("/us/cfr/t12/s1005.3/c/5", 2), ("/us/cfr/t12/s1005.3/c", 1)],
     ["Under a standing agreement, the bank automatically sweeps money from a customer's "
      "checking into her savings at the same bank. Is that sweep an electronic fund transfer for "
      "Reg E?"]),
    ([("/us/cfr/t12/s1005.3/c/6", 2), ("/us/cfr/t12/s1005.3/c", 1)],
     ["A customer phoned a banker once and asked for a one-off transfer, with no bill-pay plan "
      "in place. Is that transfer covered?"]),
    ([("/us/cfr/t12/s1005.3/c/7", 2), ("/us/cfr/t12/s1005.3/c", 1)],
     ["A tiny community bank with $80 million in assets handles recurring direct debits. Are "
      "those preauthorized transfers exempt?"]),
    ([("/us/cfr/t12/s1005.9/e", 2), ("/us/cfr/t12/s1005.9/a", 1)],
     ["A customer bought a $12 coffee with a debit card at a terminal. Must the bank make a "
      "receipt available?"]),
    ([("/us/cfr/t12/s1005.8/a/2", 2), ("/us/cfr/t12/s1005.8/a/1", 1)],
     ["After a data breach the bank immediately tightened daily ATM limits. Did it have to give "
      "21 days' warning first?"]),
    ([("/us/cfr/t12/s1005.20/b/2", 2), ("/us/cfr/t12/s1005.20/b", 1)],
     ["A reloadable prepaid card is never marketed as a gift card. Do the gift-card expiration "
      "limits apply to it?"]),
    ([("/us/cfr/t12/s1005.20/b/1", 2), ("/us/cfr/t12/s1005.20/b", 1)],
     ["Is a prepaid phone card usable only for telephone service subject to the gift card fee "
      "limits?"]),
    ([("/us/cfr/t12/s1005.20/b/3", 2), ("/us/cfr/t12/s1005.20/b", 1)],
     ["A retailer hands out promotional cards as a loyalty reward. Are those treated as "
      "regulated gift cards?"]),
    ([("/us/cfr/t12/s1005.20/b/4", 2), ("/us/cfr/t12/s1005.20/b", 1)],
     ["A company's cards are issued only to its own employees as incentives and never sold to "
      "the public. Do the gift card rules reach them?"]),
    ([("/us/cfr/t12/s1013.5/d/1", 2), ("/us/cfr/t12/s1013.5/d", 1)],
     ["A lessor agreed to cut the rent charge midway through a car lease. Does it owe the lessee "
      "new disclosures?"]),
    ([("/us/cfr/t12/s1013.5/d/2", 2), ("/us/cfr/t12/s1013.5/d", 1)],
     ["The lessee skipped two payments under a deferral agreement for a fee. New lease "
      "disclosures required?"]),
    ([("/us/cfr/t12/s1013.5/d/3", 2), ("/us/cfr/t12/s1013.5/d", 1)],
     ["A consumer keeps the leased car month-to-month for four extra months after the term ends. "
      "Are new disclosures needed?"]),
    ([("/us/cfr/t12/s1013.5/d/4", 2), ("/us/cfr/t12/s1013.5/d", 1)],
     ["The lessor swapped the leased washer for a newer model of equal value without changing "
      "other terms. Must it re-disclose?"]),
    ([("/us/cfr/t12/s1013.5/d/6", 2), ("/us/cfr/t12/s1013.5/d", 1)],
     ["A lease modification came out of a court settlement. Does the lessor owe fresh "
      "disclosures?"]),
    ([("/us/cfr/t12/s1013.5/c", 2), ("/us/cfr/t12/s1013.5", 1)],
     ["My sister is taking over my car lease and the leasing company charges a transfer fee. "
      "Does she get new disclosures?"]),
    ([("/us/cfr/t12/s1013.2/e/2", 2), ("/us/cfr/t12/s1013.2/e/1", 1)],
     ["A farmer leases a tractor for the farm business for two years. Is that lease covered by "
      "the consumer leasing rules?",
      "A small LLC leases office copiers. Does the federal consumer lease regulation apply?"]),
    ([("/us/cfr/t12/s1002.3/a/2", 2), ("/us/cfr/t12/s1002.3/a/1", 1)],
     ["Does a gas utility extending service on credit have to follow the usual record-keeping "
      "rules for applications?"]),
    ([("/us/cfr/t12/s1002.3/b/2", 2), ("/us/cfr/t12/s1002.3/b/1", 1)],
     ["A broker-dealer opening a margin account asks the applicant's marital status. Is that "
      "allowed?"]),
    ([("/us/cfr/t12/s1002.3/c/2", 2), ("/us/cfr/t12/s1002.3/c/1", 1)],
     ["A dentist lets patients pay in three interest-free installments. Must the dentist send "
      "adverse action notices?"]),
    ([("/us/cfr/t12/s1002.3/d/2", 2), ("/us/cfr/t12/s1002.3/d/1", 1)],
     ["A bank lends to a county government. Which equal-credit rules still apply to that loan?"]),
    ([("/us/cfr/t12/s1002.9/d", 2), ("/us/cfr/t12/s1002.9/a", 1)],
     ["A small lender that took only 90 applications last year wants to give denial notices by "
      "phone. Is that allowed?"]),
    ([("/us/cfr/t12/s1005.18/b/1", 2), ("/us/cfr/t12/s1005.9/b", 1)],
     ["Our payroll card program gives balances by phone and 60 days of history online. Do we "
      "still have to send monthly statements?"]),
    ([("/us/cfr/t12/s1005.10/a/2", 2), ("/us/cfr/t12/s1005.10/a/1", 1)],
     ["The employer already tells each worker when a direct deposit is sent. Must the bank "
      "separately notify the worker of every deposit?"]),
    ([("/us/cfr/t12/s1002.12/b/5", 2), ("/us/cfr/t12/s1002.12/b/1", 1)],
     ["We turned down trade credit for a company with $5 million in revenue. Do we keep the file "
      "as long as for a small business?"]),
    ([("/us/usc/t11/s547/c/5", 2), ("/us/usc/t11/s547/c", 1)],
     ["A lender's floating lien on inventory and receivables got better covered during the 90 "
      "days before filing. Can the trustee recover any of that improvement?"]),
    ([("/us/usc/t11/s547/h", 2), ("/us/usc/t11/s547/b", 1)],
     ["The debtor paid creditors through a repayment schedule set up by an approved nonprofit "
      "credit counseling agency. Can the trustee avoid those payments?"]),
    ([("/us/usc/t11/s547/c/1", 2), ("/us/usc/t11/s547/c", 1)],
     ["The debtor paid cash on delivery for inventory it received the same day. Can the trustee "
      "undo that payment as a preference?"]),
    ([("/us/usc/t11/s547/c/4", 2), ("/us/usc/t11/s547/c", 1)],
     ["After being paid on an old invoice, the supplier shipped more goods on unsecured credit "
      "before the filing. Does that later shipment reduce what the trustee can recover?"]),
    ([("/us/usc/t11/s547/c/6", 2), ("/us/usc/t11/s547/c", 1)],
     ["A mechanic's statutory lien attached within 90 days of the filing and is not otherwise "
      "avoidable. Can the trustee attack it as a preference?"]),
    ([("/us/usc/t11/s362/b/1", 2), ("/us/usc/t11/s362/b", 1), ("/us/usc/t11/s362/a", 0)],
     ["Does the bankruptcy freeze stop a criminal prosecution of the debtor?"]),
    ([("/us/usc/t11/s362/b/2", 2), ("/us/usc/t11/s362/b", 1), ("/us/usc/t11/s362/a", 0)],
     ["Can a state still collect ongoing child support from a debtor's post-filing wages, "
      "despite the stay?"]),
    ([("/us/usc/t11/s523/a/2/A", 2), ("/us/usc/t11/s523/a", 1), ("/us/usc/t11/s727/b", 1)],
     ["A debtor got a liquidation discharge. Are debts for money obtained by lying to the lender "
      "wiped out along with everything else?"]),
]

# multi-clause containers: (container id, question variants); labels = container (2) and its
# direct enumerated children in the edition in force (1)
MULTI_CLAUSE: list[tuple[str, list[str]]] = [
    ("/us/usc/t11/s547/b", ["What does a trustee have to prove, element by element, to claw back "
                            "a pre-bankruptcy payment?",
                            "List every condition that makes a payment to a creditor before "
                            "filing recoverable by the trustee."]),
    ("/us/usc/t11/s547/c", ["What are all the defenses a creditor can raise against a preference "
                            "claim?"]),
    ("/us/usc/t11/s109/c", ["What does a city have to show to qualify for municipal debt "
                            "adjustment?"]),
    ("/us/usc/t11/s109/b", ["Which kinds of entities are barred from filing a liquidation case?"]),
    ("/us/usc/t11/s303/b", ["What are the different ways creditors can force someone into "
                            "bankruptcy?"]),
    ("/us/usc/t11/s101/31/B", ["Who all counts as an insider when the debtor is a corporation?"]),
    ("/us/usc/t11/s101/31/A", ["Which people are insiders of an individual debtor?"]),
    ("/us/usc/t11/s101/31/C", ["Who are the insiders of a debtor partnership?"]),
    ("/us/usc/t11/s548/a/1", ["What are the two routes for the trustee to set aside a transfer "
                              "as fraudulent?"]),
    ("/us/usc/t11/s727/a", ["Give me the full list of grounds for denying an individual's "
                            "liquidation discharge."]),
    ("/us/usc/t11/s1325/a", ["What must a court find before confirming a wage-earner's repayment "
                             "plan?"]),
    ("/us/usc/t11/s1322/a", ["What must every chapter 13 plan include?"]),
    ("/us/usc/t11/s522/f/1", ["Which liens can an individual debtor strip off exempt property?"]),
    ("/us/usc/t11/s1112/b/4", ["What counts as 'cause' to convert or dismiss a chapter 11 case?"]),
    ("/us/usc/t11/s1112/b", ["When will a court convert a chapter 11 case to liquidation or "
                             "dismiss it?"]),
    ("/us/usc/t11/s523/a/2", ["Which debts tied to lies, false financial statements or "
                              "pre-filing spending sprees survive a discharge?"]),
    ("/us/usc/t11/s365/c", ["When is a trustee barred from taking on or handing off a debtor's "
                            "contract?"]),
    ("/us/cfr/t12/s1013.4/i", ["What must a lease disclosure say about buying the property?"]),
    ("/us/cfr/t12/s1005.16/d", ["When may an ATM operator actually collect its fee?"]),
    ("/us/cfr/t12/s1002.7/d", ["In which situations may a lender insist on a spouse's or other "
                               "person's signature?"]),
    ("/us/cfr/t12/s1005.20/e", ["What has to be true before a gift card with an expiration date "
                                "can be sold?"]),
    ("/us/cfr/t12/s1013.3/f", ["Which small computational effects may a lessor ignore when "
                               "preparing lease disclosures?"]),
    ("/us/cfr/t12/s1013.4/f", ["Walk me through every line of the payment calculation a car "
                               "lease disclosure must show."]),
    ("/us/cfr/t12/s1013.4/h", ["What must a lease say about upkeep and wear-and-tear?"]),
    ("/us/cfr/t12/s1013.4/m", ["If the lessee is on the hook for the gap between residual and "
                               "realized value at lease end, what must be disclosed?"]),
    ("/us/cfr/t12/s1013.7/d/2", ["Once a lease ad mentions the monthly payment, what else must "
                                 "it state?"]),
    ("/us/cfr/t12/s1013.5/d", ["List all the lease changes that do not trigger new disclosures."]),
    ("/us/cfr/t12/s1013.9/b/1", ["What must a state show to get its leasing law exempted from "
                                 "the federal rules?"]),
    ("/us/cfr/t12/s1005.7/b", ["What has to go into the initial disclosures for an "
                               "electronic-transfer account?"]),
    ("/us/cfr/t12/s1005.9/a", ["What information must appear on an ATM receipt?"]),
    ("/us/cfr/t12/s1005.9/b", ["What must a monthly statement show for accounts with electronic "
                               "transfers?"]),
    ("/us/cfr/t12/s1005.11/c/2", ["If a bank needs more than 10 business days to investigate an "
                                  "error, what must it do in the meantime?"]),
    ("/us/cfr/t12/s1005.17/b/1", ["What steps must a bank take before charging overdraft fees on "
                                  "debit card purchases?"]),
    ("/us/cfr/t12/s1005.20/d", ["Under what conditions can a gift card issuer charge an "
                                "inactivity fee?"]),
    ("/us/cfr/t12/s1005.6/b", ["How does a consumer's liability for unauthorized debits step up "
                               "depending on how quickly they report?"]),
    ("/us/cfr/t12/s1005.11/a/1", ["What kinds of problems count as an 'error' a bank must "
                                  "investigate?"]),
    ("/us/cfr/t12/s1005.3/c", ["Which types of money movements are carved out of Regulation E "
                               "coverage?"]),
    ("/us/cfr/t12/s1005.12/b/2", ["When is a state's electronic-transfer law considered "
                                  "inconsistent with the federal rules?"]),
    ("/us/cfr/t12/s1002.9/a/1", ["What are all the deadlines for telling a credit applicant what "
                                 "happened to the application?"]),
    ("/us/cfr/t12/s1002.13/a/1", ["What demographic information must a mortgage lender ask for "
                                  "on a home purchase application?"]),
    ("/us/cfr/t12/s1002.5/c/2", ["When may a lender ask about the applicant's spouse?"]),
    ("/us/cfr/t12/s1002.11/b/1", ["Which kinds of state laws are treated as inconsistent with "
                                  "the federal equal-credit rules?"]),
    ("/us/cfr/t12/s1002.8/a", ["What kinds of special-purpose credit programs may lawfully favor "
                               "a disadvantaged group?"]),
    ("/us/cfr/t12/s1002.12/b", ["What records does a lender have to preserve, and for how long?"]),
]

STATES = [("Iowa", "us-ia"), ("California", "us-ca"), ("Texas", "us-tx"), ("New York", "us-ny"),
          ("Florida", "us-fl"), ("Ohio", "us-oh"), ("Illinois", "us-il"), ("Georgia", "us-ga")]

# answerable comparisons: (labels [(id, grade)], question template with {state})
JURIS_ANSWERABLE: list[tuple[list[tuple[str, int]], list[str]]] = [
    ([("/us/cfr/t12/s1013.9/a", 2)],
     ["If {state}'s leasing statute gives consumers more protection than the federal lease "
      "rules, which one controls?",
      "A {state} lessor can't satisfy both the state lease-disclosure law and the federal rule. "
      "Which one wins?"]),
    ([("/us/cfr/t12/s1013.9/b/1", 2), ("/us/cfr/t12/s1013.9/b/2", 1)],
     ["Could {state} get its own consumer-leasing law substituted for the federal requirements?"]),
    ([("/us/cfr/t12/s1005.12/b/1", 2), ("/us/cfr/t12/s1005.12/b/2", 1)],
     ["{state} wants a longer error-investigation period for debit card disputes than federal "
      "law allows. Is its law preempted?",
      "How do I tell whether a {state} electronic-payments statute is overridden by the federal "
      "rules?"]),
    ([("/us/cfr/t12/s1005.12/c/1", 2), ("/us/cfr/t12/s1005.12/c/2", 1)],
     ["Can {state} apply to run its own electronic-transfer regime instead of the federal one?"]),
    ([("/us/cfr/t12/s1005.6/b/6", 2), ("/us/cfr/t12/s1005.6/b", 1)],
     ["{state} law caps a cardholder's loss at less than the federal limits. Which cap applies "
      "to an unauthorized debit?"]),
    ([("/us/cfr/t12/s1002.11/a", 2), ("/us/cfr/t12/s1002.11/b/1", 1)],
     ["Does the federal equal-credit regulation override a {state} credit statute, and to what "
      "extent?"]),
    ([("/us/cfr/t12/s1002.11/e/1", 2), ("/us/cfr/t12/s1002.11/e/2", 1)],
     ["Can {state} obtain an exemption so its own fair-lending law governs a class of credit "
      "transactions?"]),
    ([("/us/usc/t11/s109/c/2", 2), ("/us/usc/t11/s109/c", 1)],
     ["Does a city in {state} need authorization under state law before it can file municipal "
      "bankruptcy?"]),
    ([("/us/cfr/t12/s1013.9/b/2", 2), ("/us/cfr/t12/s1013.9/b/1", 1)],
     ["If {state} won a federal exemption for its leasing law, which federal liability rules "
      "would still apply to lessors there?"]),
    ([("/us/cfr/t12/s1002.11/c", 2)],
     ["A {state} loan-ceiling law would add up a married couple's separate accounts. Is that "
      "allowed?"]),
]

# unanswerable: state-law questions (the corpus holds only federal law)
STATE_TOPICS = [
    "What is the homestead exemption amount under {state} law?",
    "How long is the statute of limitations on written contracts in {state}?",
    "What are {state}'s minimum auto liability insurance limits?",
    "Does {state} law cap late fees on consumer car leases, and at what amount?",
    "What notice must a {state} landlord give before evicting a tenant for nonpayment?",
    "Under the {state} consumer credit code, what is the maximum interest rate on a small loan?",
    "What does {state}'s unclaimed property law say about dormant gift card balances?",
    "How does {state} law treat wage garnishment for consumer debts?",
]

# provisions that exist in no edition/version of the corpus: (missing id, question, type)
NONEXISTENT: list[tuple[str, str, str]] = [
    ("/us/usc/t11/s547/c/12", "What does § 547(c)(12) of the Bankruptcy Code protect?", "lookup"),
    ("/us/usc/t11/s547/j", "Explain the safe harbor in 11 U.S.C. 547(j).", "lookup"),
    ("/us/usc/t11/s101/60", "What term is defined in 11 U.S.C. § 101(60)?", "definition"),
    ("/us/usc/t11/s523/a/25",
     "Which debts does § 523(a)(25) make nondischargeable?",
     "exception_application"),
    ("/us/usc/t11/s507/a/12", "What claims get twelfth priority under § 507(a)(12)?", "lookup"),
    ("/us/usc/t11/s109/k", "What does § 109(k) require of a chapter 13 debtor?", "lookup"),
    ("/us/usc/t11/s1176", "What does 11 U.S.C. § 1176 say about plan modification?", "lookup"),
    ("/us/usc/t11/s362/q", "What stay exception is in § 362(q)?", "exception_application"),
    ("/us/cfr/t12/s1013.15", "What does 12 CFR 1013.15 require of lessors?", "lookup"),
    ("/us/cfr/t12/s1013.2/z", "How does 12 CFR 1013.2(z) define a balloon payment?", "definition"),
    ("/us/cfr/t12/s1005.45", "What remittance disclosures are in 12 CFR 1005.45?", "lookup"),
    ("/us/cfr/t12/s1005.6/b/9", "What liability tier is set by § 1005.6(b)(9)?", "threshold_check"),
    ("/us/cfr/t12/s1002.19",
     "What does Regulation B § 1002.19 say about credit scoring?",
     "lookup"),
    ("/us/cfr/t12/s1002.9/k", "What does § 1002.9(k) say about notices by text message?", "lookup"),
    ("/us/cfr/t12/s1013.7/h",
     "What is required by 12 CFR 1013.7(h) for social media lease ads?",
     "lookup"),
    ("/us/usc/t11/s303/b/7",
     "How many creditors must join a petition under § 303(b)(7)?",
     "threshold_check"),
]


# --------------------------------------------------------------------------------------------
# Templated queries
# --------------------------------------------------------------------------------------------

USC_J, CFR_J = "us-federal", "us-federal/cfpb"
REG_M_THRESHOLDS = "/us/cfr/t12/p1013/supp-i/s1013.2/e/cmt11"  # comment 2(e)-11, by year
ADJUSTMENT_NOTE = "/us/usc/t11/s104/note/adjustment-of-dollar-amounts"
NUMBER_WORDS = {1: "One", 2: "Two", 3: "Three", 4: "Four"}
TYPE_CODE = {"lookup": "lk", "definition": "df", "exception_application": "ex",
             "threshold_check": "th", "multi_clause_synthesis": "mc",
             "jurisdiction_comparison": "jc"}
WHY_CHARS = 400


def section_of(node_id: str) -> str:
    """`/us/usc/t11/s547/c/9` -> `/us/usc/t11/s547`; `/us/cfr/t12/s1013.2/e/1` -> `...s1013.2`."""
    m = re.match(r"(/us/(?:usc/t\d+|cfr/t\d+)/s[^/]+)", node_id)
    return m.group(1) if m else node_id


def _money(x: float) -> str:
    return f"${x:,.0f}"


def _when(d: date) -> str:
    return f"{d:%B} {d.day}, {d.year}"


class Templater:
    """Generates the templated queries, deterministic under `seed`."""

    def __init__(self, cv: CorpusView, seed: int = SEED) -> None:
        self.cv = cv
        self.rng = random.Random(seed)
        self.out: list[Query] = []
        self.n = Counter()

    # -- helpers ------------------------------------------------------------------------------

    def valid(self, ids: Iterable[str], as_of: date) -> bool:
        return all(self.cv.resolve(i, as_of) is not None for i in ids)

    def random_date(self, doc: str, lo: int | None = None, hi: int = 2026) -> date:
        """A random date for `doc`: Title 11 from 1995 (no 2005, when the 2005 amendments and
        the editions disagree), regulations from 2012; never within 15 days of an edition."""
        if lo is None:
            lo = 1995 if doc == "/us/usc/t11" else 2012
        starts = self.cv.edition_dates[doc]
        while True:
            d = date(self.rng.randint(lo, hi), self.rng.randint(1, 12), self.rng.randint(1, 28))
            if d.year == 2005 or d < starts[0] or any(abs((d - s).days) < 15 for s in starts):
                continue
            return d

    def pick_date(self, ids: list[str], lo: int | None = None, hi: int = 2026,
                  tries: int = 80) -> date | None:
        doc = self.cv.doc_of(ids[0])
        for _ in range(tries):
            d = self.random_date(doc, lo, hi)
            if self.valid(ids, d):
                return d
        return None

    def add(self, qtype: str, question: str, as_of: date, labels: list[tuple[str, int]], *,
            jurisdiction: str | None = None, facts: dict | None = None,
            verdicts: dict | None = None, reason: str | None = None,
            provision: str | None = None) -> Query:
        answerable = reason is None
        if answerable and not self.valid([i for i, _ in labels], as_of):
            raise ValueError(f"templated label not in force at {as_of}: {labels}")
        labs = [{"id": nid, "grade": grade, "why": self.cv.text(nid, as_of)[:WHY_CHARS]}
                for nid, grade in labels]
        if jurisdiction is None:
            first = labels[0][0] if labels else provision or ""
            jurisdiction = CFR_J if first.startswith("/us/cfr/") else USC_J
        self.n[qtype] += 1
        rec = {
            "qid": f"tp-{TYPE_CODE[qtype]}-{self.n[qtype]:03d}",
            "question": question, "type": qtype, "as_of": as_of.isoformat(),
            "jurisdiction": jurisdiction, "answerable": answerable, "abstain_reason": reason,
            "labels": labs, "facts": facts or {}, "expected_verdicts": verdicts or {},
            "origin": "templated",
            "provision": provision or (section_of(labels[0][0]) if labels else ""),
            "split": None,
        }
        q = parse_query(rec, "<templated>", len(self.out) + 1)
        self.out.append(q)
        return q

    # -- generators ---------------------------------------------------------------------------

    def lookups(self, n: int = 40) -> None:
        sections = sorted(LOOKUP_TOPICS)
        for sec in sorted(self.rng.sample(sections, min(n, len(sections)))):
            doc = self.cv.doc_of(sec)
            t = self.rng.choice(LOOKUP_TOPICS[sec])
            d = self.pick_date([sec])
            if d is None:
                continue
            if doc == "/us/usc/t11":
                q = self.rng.choice(LOOKUP_TEMPLATES[doc]).format(t=t)
            else:
                reg, nick = REG_NAME[doc]
                q = self.rng.choice(LOOKUP_TEMPLATES["cfr"]).format(t=t, reg=reg, nick=nick)
            self.add("lookup", q, d, [(sec, 2)])

    def definitions(self, n_usc: int = 27, n_cfr: int = 27) -> None:
        terms = list(USC_DEF_TERMS)
        self.rng.shuffle(terms)
        made = 0
        for term in terms:
            if made >= n_usc:
                break
            for _ in range(40):
                d = self.random_date("/us/usc/t11")
                nid = self.cv.definitions_at("/us/usc/t11", d).get(term)
                if nid:
                    q = self.rng.choice(DEF_TEMPLATES["/us/usc/t11"]).format(term=term)
                    self.add("definition", q, d, [(nid, 2), ("/us/usc/t11/s101", 0)])
                    made += 1
                    break
        pool = []
        for doc in REG_NAME:
            defs = self.cv.definitions_at(doc, date(2026, 1, 1))
            by_place = Counter(defs.values())
            for term, nid in sorted(defs.items()):
                # skip generic terms, odd ones, and paragraphs that define several terms
                if term in CFR_SKIP_TERMS or len(term) > 40 or "," in term or by_place[nid] > 1:
                    continue
                pool.append((doc, term, nid))
        self.rng.shuffle(pool)
        for doc, term, nid in pool[:n_cfr]:
            d = self.pick_date([nid])
            if d is None or self.cv.definitions_at(doc, d).get(term) != nid:
                continue
            reg, nick = REG_NAME[doc]
            q = self.rng.choice(DEF_TEMPLATES["cfr"]).format(term=term, reg=reg, nick=nick)
            self.add("definition", q, d, [(nid, 2)])

    def _t11_date(self, lo: int = 1995, hi: int = 2026, avoid_btatca: bool = False) -> date:
        while True:
            d = self.random_date("/us/usc/t11", lo, hi)
            margin = timedelta(days=10)
            if avoid_btatca and BTATCA[0] - margin <= d < BTATCA[1] + margin:
                continue
            return d

    def _near(self, limit: float, kind: str) -> float:
        """An amount near `limit`: below, above, or exactly at it."""
        r = self.rng.random()
        if r < 0.15:
            return float(limit)
        frac = self.rng.uniform(0.04, 0.35)
        amt = limit * (1 - frac) if kind == "below" else limit * (1 + frac)
        return float(round(amt / 25) * 25)

    def thresholds(self) -> None:
        biz = ["machine shop", "restaurant group", "regional trucking company", "software startup",
               "furniture retailer", "family-owned bakery", "construction subcontractor"]
        # §547(c)(9) and (c)(8)
        for i in range(10):
            d = self._t11_date(1996 if i < 3 else 2006)
            floor = threshold("547c9", d)
            consumer = i in (4, 9)
            base = floor if floor else 5000
            amt = self._near(600 if consumer else base, self.rng.choice(["below", "above"]))
            days = self.rng.randint(8, 88)
            facts = {"transfer_amount": amt, "days_before_filing": days,
                     "filing_date": d.isoformat(), "debtor_consumer_debts": consumer,
                     "debtor_kind": "individual" if consumer else self.rng.choice(
                         ["corporation", "partnership"]),
                     "antecedent_debt": True, "creditor_is_insider": False}
            verdicts = reference_verdicts(facts, d, ["s547.c.9", "s547.b"])
            if consumer:
                q = (f"An individual whose debts are mostly credit cards and medical bills filed "
                     f"chapter 7 on {_when(d)}. {days} days before, she paid a department store "
                     f"{_money(amt)} on her old balance. Is that payment too small for the "
                     f"trustee to recover?")
                labels = [("/us/usc/t11/s547/c/8", 2), ("/us/usc/t11/s547/b", 1)]
            else:
                who = self.rng.choice(biz)
                q = self.rng.choice([
                    f"A {who} filed for bankruptcy on {_when(d)}. {days} days earlier it paid a "
                    f"supplier {_money(amt)} on an overdue invoice. Is that payment below the "
                    f"floor for a preference suit?",
                    f"Our client, a {who} with business debts, paid a vendor {_money(amt)} "
                    f"{days} days before filing on {_when(d)}. Can the trustee claw it back, or "
                    f"is it too small to bother?",
                ])
                labels = ([("/us/usc/t11/s547/c/9", 2), ("/us/usc/t11/s104", 1),
                           ("/us/usc/t11/s547/b", 1)] if floor else
                          [("/us/usc/t11/s547/c/8", 2), ("/us/usc/t11/s547/b", 1)])
            self.add("threshold_check", q, d, labels, facts=facts, verdicts=verdicts)
        # §109(e)
        names = ["Dana", "Luis", "Priya", "Tom", "Keisha", "Mark", "Ana", "Sam", "Ivy", "Raj"]
        for i in range(9):
            d = self._t11_date(1995, 2026, avoid_btatca=True)
            lim_u, lim_s = threshold("109e", d)
            corp = i == 7
            if i % 2:
                uns = self._near(lim_u, self.rng.choice(["below", "above"]))
                sec = float(round(lim_s * self.rng.uniform(0.2, 0.7) / 1000) * 1000)
            else:
                sec = self._near(lim_s, self.rng.choice(["below", "above"]))
                uns = float(round(lim_u * self.rng.uniform(0.1, 0.6) / 100) * 100)
            facts = {"debtor_kind": "corporation" if corp else "individual",
                     "noncontingent_unsecured_debts": uns, "secured_debts": sec,
                     "filing_date": d.isoformat()}
            if not corp:  # "who earns a steady paycheck"
                facts["debtor_regular_income"] = True
            verdicts = reference_verdicts(facts, d, ["s109.e.eligible"])
            who = ("A small family corporation" if corp
                   else f"{names[i]}, who earns a steady paycheck,")
            q = (f"{who} owes {_money(uns)} in unsecured debt and {_money(sec)} secured by real "
                 f"estate, all fixed amounts, as of a planned filing on {_when(d)}. Is a chapter "
                 f"13 repayment plan available?")
            self.add("threshold_check", q, d, [("/us/usc/t11/s109/e", 2), ("/us/usc/t11/s104", 1)],
                     facts=facts, verdicts=verdicts)
        # §303(b)
        for i in range(8):
            d = self._t11_date()
            floor = threshold("303b", d)
            many = i % 3 != 2
            petitioners = self.rng.choice([3, 3, 4]) if many else 1
            if i == 5:
                petitioners = 2
            count = self.rng.randint(15, 60) if many else self.rng.randint(4, 11)
            total = self._near(floor, self.rng.choice(["below", "above"]))
            facts = {"petitioning_creditors": petitioners, "creditor_count": count,
                     "unsecured_claims_total": total, "filing_date": d.isoformat()}
            verdicts = reference_verdicts(facts, d, ["s303.b"])
            q = (f"{NUMBER_WORDS[petitioners]} unpaid creditor{'s' if petitioners > 1 else ''} "
                 f"of a business "
                 f"with about {count} creditors in all want{'s' if petitioners == 1 else ''} to "
                 f"put it into bankruptcy on {_when(d)}. Their undisputed, unsecured claims add "
                 f"up to {_money(total)}. Can they file an involuntary petition?")
            para = "1" if count >= 12 else "2"
            self.add("threshold_check", q, d,
                     [(f"/us/usc/t11/s303/b/{para}", 2), ("/us/usc/t11/s303/b", 1),
                      ("/us/usc/t11/s104", 1)], facts=facts, verdicts=verdicts)
        # wage priority §507(a)(3)/(a)(4)
        for i in range(8):
            d = self._t11_date(1995 if i < 3 else 2006)
            cap, window, para = threshold("507wages", d)
            amt = self._near(cap, self.rng.choice(["below", "above"]))
            days = self.rng.randint(20, window - 5) if i != 6 else window + self.rng.randint(5, 40)
            facts = {"wage_claim_amount": amt, "days_wages_earned_before_filing": days,
                     "filing_date": d.isoformat()}
            verdicts = reference_verdicts(facts, d, ["s507.a.4.cap"])
            q = self.rng.choice([
                f"A warehouse worker is owed {_money(amt)} in back pay earned {days} days before "
                f"her employer's bankruptcy filing on {_when(d)}. Does all of it get paid ahead of "
                f"general unsecured creditors?",
                f"The company filed on {_when(d)} owing a sales rep {_money(amt)} in commissions "
                f"earned within the last {days} days. Is the whole claim a priority claim?",
            ])
            self.add("threshold_check", q, d,
                     [(f"/us/usc/t11/s507/a/{para}", 2), ("/us/usc/t11/s104", 1)],
                     facts=facts, verdicts=verdicts)
        # §523(a)(2)(C) luxury goods / cash advances
        for i in range(10):
            d = self._t11_date(1995 if i % 4 == 0 else 2006)
            (lux, lux_days), (cash, cash_days) = threshold("523a2C", d)
            post = d >= BAPCPA
            if i % 2 == 0:
                amt = self._near(lux, self.rng.choice(["below", "above"]))
                days = self.rng.randint(5, lux_days + 15)
                facts = {"luxury_goods_amount": amt, "days_luxury_before_relief": days,
                         "debtor_consumer_debts": True, "filing_date": d.isoformat()}
                rule = "s523.a.2.C.luxury"
                q = (f"{days} days before her chapter 7 order for relief on {_when(d)}, a "
                     f"consumer charged {_money(amt)} of jewelry on one store card. Is that debt "
                     f"presumed to survive the discharge?")
                labels = ([("/us/usc/t11/s523/a/2/C/i/I", 2), ("/us/usc/t11/s523/a/2/C/ii/II", 1)]
                          if post else [("/us/usc/t11/s523/a/2/C", 2)])
            else:
                amt = self._near(cash, self.rng.choice(["below", "above"]))
                days = self.rng.randint(5, cash_days + 15)
                facts = {"cash_advance_amount": amt, "days_cash_advance_before_relief": days,
                         "debtor_consumer_debts": True, "filing_date": d.isoformat()}
                rule = "s523.a.2.C.cash"
                q = (f"A debtor took {_money(amt)} in cash advances on a credit card {days} days "
                     f"before the bankruptcy order for relief on {_when(d)}. Is that balance "
                     f"presumed nondischargeable?")
                labels = ([("/us/usc/t11/s523/a/2/C/i/II", 2)] if post
                          else [("/us/usc/t11/s523/a/2/C", 2)])
            verdicts = reference_verdicts(facts, d, [rule])
            self.add("threshold_check", q, d, labels + [("/us/usc/t11/s104", 1)],
                     facts=facts, verdicts=verdicts)
        # Regulation M consumer-lease ceiling (amounts in comment 2(e)-11)
        made = 0
        while made < 5:
            d = self.random_date("/us/cfr/t12/p1013", 2012, 2018)
            span = f"January 1, {d.year} through December 31, {d.year}"
            item = next((k for k in self.cv.children(REG_M_THRESHOLDS, d)
                         if span in self.cv.text(k, d)), None)
            if item is None:
                continue
            amount = re.search(r"\$([\d,]+)", self.cv.text(item, d)).group(1)
            limit = float(amount.replace(",", ""))
            amt = self._near(limit, self.rng.choice(["below", "above"]))
            q = (f"A household signs a 39-month car lease on {_when(d)} with a total contractual "
                 f"obligation of {_money(amt)}. Is it a consumer lease covered by the federal "
                 f"leasing disclosures?")
            self.add("threshold_check", q, d, [("/us/cfr/t12/s1013.2/e/1", 2), (item, 1)])
            made += 1

    def exceptions(self) -> None:
        for labels, questions in EXCEPTION_SCENARIOS:
            for q in questions:
                d = self.pick_date([i for i, _ in labels])
                if d is not None:
                    self.add("exception_application", q, d, labels)
        # ordinary-course defence
        for i in range(8):
            d = self._t11_date(1996 if i < 3 else 2006)
            ordinary = i % 2 == 0
            days = self.rng.randint(15, 85)
            amt = float(self.rng.randrange(9000, 60000, 250))
            facts = {"transfer_amount": amt, "days_before_filing": days,
                     "filing_date": d.isoformat(), "debtor_consumer_debts": False,
                     "debtor_kind": "corporation", "antecedent_debt": True,
                     "creditor_is_insider": False, "debtor_insolvent": True,
                     "ordinary_course_payment": ordinary}
            if ordinary:  # a monthly freight invoice paid on the usual terms
                facts.update(ordinary_course_debt=True, ordinary_business_terms=True)
            rules = ["s547.b", "s547.c.2", "s547.c.9"]
            verdicts = reference_verdicts(facts, d, rules)
            if ordinary:
                q = (f"An insolvent distributor paid its freight carrier's {_money(amt)} monthly "
                     f"invoice on the usual 30-day terms, {days} days before filing on {_when(d)}. "
                     f"Can the trustee recover the payment?")
            else:
                q = (f"Days after a supplier threatened to cut it off, an insolvent manufacturer "
                     f"paid the supplier {_money(amt)} in a lump sum far outside their usual "
                     f"terms, {days} days before filing on {_when(d)}. Does the supplier have an "
                     f"ordinary-course defense?")
            self.add("exception_application", q, d,
                     [("/us/usc/t11/s547/c/2", 2), ("/us/usc/t11/s547/b", 1)],
                     facts=facts, verdicts=verdicts)
        # insider reach-back (§547(b)(4)(B) with §101(31))
        rels = [("brother", "relative"), ("mother", "relative"), ("business partner in a general "
                "partnership with him", "general_partner"), ("company where he is an officer",
                "corporation_of_which_debtor_is_director_officer_or_in_control"), ("close friend",
                "close_personal"),
                ("landlord, who is unrelated to him", "none"), ("uncle", "relative"),
                ("longtime girlfriend", "close_personal")]
        for words, rel in rels:
            d = self._t11_date()
            days = self.rng.randint(100, 360)
            amt = float(self.rng.randrange(8000, 40000, 500))
            facts = {"transfer_amount": amt, "days_before_filing": days,
                     "filing_date": d.isoformat(), "relationship": rel,
                     "debtor_kind": "individual", "antecedent_debt": True,
                     "debtor_insolvent": True, "debtor_consumer_debts": True}
            verdicts = reference_verdicts(facts, d, ["s101.31", "s547.b"])
            q = (f"While insolvent, a man repaid a {_money(amt)} loan from his {words} {days} "
                 f"days before filing his bankruptcy petition on {_when(d)}. Can the trustee "
                 f"recover the repayment?")
            labels = [("/us/usc/t11/s547/b/4/B", 2), ("/us/usc/t11/s101/31/A", 1)]
            if rel.startswith("relative"):
                labels.append(("/us/usc/t11/s101/45", 1))
            self.add("exception_application", q, d, labels, facts=facts, verdicts=verdicts)

    def multi_clause(self) -> None:
        for container, questions in MULTI_CLAUSE:
            usc = container.startswith("/us/usc/")
            eras = [(1995, 2004), (2006, 2026)] if usc else [(None, 2026)]
            for q in questions:
                # Title 11 containers once in each era (before/after the 2005 amendments) where
                # they exist, so the children lists follow the text in force
                for lo, hi in eras if len(questions) == 1 else [(None, 2026)]:
                    d = self.pick_date([container], lo, hi)
                    if d is None:
                        continue
                    kids = self.cv.children(container, d)
                    if not 2 <= len(kids) <= 10:
                        continue
                    self.add("multi_clause_synthesis", q, d,
                             [(container, 2)] + [(k, 1) for k in kids])

    def jurisdiction(self) -> None:
        for labels, questions in JURIS_ANSWERABLE:
            for q in questions:
                for state, _ in self.rng.sample(STATES, 2):
                    d = self.pick_date([i for i, _ in labels])
                    if d is not None:
                        self.add("jurisdiction_comparison", q.format(state=state), d, labels,
                                 jurisdiction=USC_J)
        # state vs federal exemption lists, before and after BAPCPA renumbering
        for i, (state, _) in enumerate(self.rng.sample(STATES, 6)):
            d = self._t11_date(1996 if i < 3 else 2006, 2004 if i < 3 else 2026)
            labels = ([("/us/usc/t11/s522/b", 2), ("/us/usc/t11/s522/b/1", 1),
                       ("/us/usc/t11/s522/b/2/A", 1)] if d < BAPCPA else
                      [("/us/usc/t11/s522/b/1", 2), ("/us/usc/t11/s522/b/2", 1),
                       ("/us/usc/t11/s522/b/3/A", 1)])
            q = (f"A debtor living in {state} files on {_when(d)}. Can she pick the federal list "
                 f"of exemptions instead of {state}'s, or does the state decide?")
            self.add("jurisdiction_comparison", q, d, labels, jurisdiction=USC_J)
        for state_a, state_b in [("Florida", "Iowa"), ("Texas", "Ohio"), ("California", "New York"),
                                 ("Georgia", "Illinois")]:
            d = self._t11_date(2006)
            q = (f"A couple moved from {state_a} to {state_b} fourteen months before filing on "
                 f"{_when(d)}. Whose exemption law applies to them?")
            self.add("jurisdiction_comparison", q, d,
                     [("/us/usc/t11/s522/b/3/A", 2), ("/us/usc/t11/s522/b/3", 1)],
                     jurisdiction=USC_J)

    def unanswerable(self) -> None:
        # another jurisdiction
        for topic in STATE_TOPICS:
            for state, code in self.rng.sample(STATES, 3):
                d = self.random_date("/us/usc/t11", 2000)
                self.add("jurisdiction_comparison", topic.format(state=state), d, [],
                         jurisdiction=code, reason="other_jurisdiction", provision=f"state:{code}")
        # provisions that do not exist in any version
        for missing, q, qtype in NONEXISTENT:
            if self.cv.exists_ever(missing):
                raise ValueError(f"{missing} exists in the corpus; not a no_such_provision case")
            d = self.random_date(self.cv.doc_of(missing))
            self.add(qtype, q, d, [], reason="no_such_provision", provision=section_of(missing))
        # dates before any version of the source
        early_usc = [
            ("lookup",
             "In 1990, which Bankruptcy Code section governed the automatic stay?",
             "/us/usc/t11/s362"),
            ("definition",
             "As the Code read in 1991, what counted as an “insider”?",
             "/us/usc/t11/s101"),
            ("threshold_check", "For a case filed in March 1992, what were the chapter 13 debt "
                                "limits?", "/us/usc/t11/s109"),
            ("threshold_check",
             "What was the wage priority cap for a bankruptcy filed in 1989?",
             "/us/usc/t11/s507"),
            ("exception_application", "In 1993, could a business debtor's small payments to "
                                      "suppliers escape preference attack?", "/us/usc/t11/s547"),
            ("multi_clause_synthesis", "What were all the elements of a preference under the "
                                       "Code as it stood in 1988?", "/us/usc/t11/s547"),
            ("lookup",
             "Where did the 1990 Bankruptcy Code deal with executory contracts?",
             "/us/usc/t11/s365"),
            ("threshold_check", "How much in luxury purchases before filing triggered the "
                                "nondischargeability presumption in 1987?", "/us/usc/t11/s523"),
        ]
        for qtype, q, prov in early_usc:
            d = date(int(re.search(r"(19\d\d)", q).group(1)), self.rng.randint(2, 11),
                     self.rng.randint(1, 28))
            self.add(qtype, q, d, [], reason="before_any_version", provision=prov)
        early_cfr = [
            ("lookup", "Under 12 CFR part 1013 as it stood in 2009, where were the lease "
                       "advertising rules?", "/us/cfr/t12/s1013.7"),
            ("definition",
             "How did 12 CFR 1005.2 define an access device in 2008?",
             "/us/cfr/t12/s1005.2"),
            ("threshold_check", "What was the consumer-lease dollar ceiling in 12 CFR 1013.2 "
                                "during 2010?", "/us/cfr/t12/s1013.2"),
            ("lookup",
             "Which section of 12 CFR part 1002 held the record-retention rule in 2006?",
             "/us/cfr/t12/s1002.12"),
            ("exception_application", "In 2010, did 12 CFR 1005.20 exempt loyalty cards from the "
                                      "gift card rules?", "/us/cfr/t12/s1005.20"),
            ("multi_clause_synthesis", "In 2007, what did 12 CFR 1002.9 require in an adverse "
                                       "action notice?", "/us/cfr/t12/s1002.9"),
            ("lookup", "What did the remittance transfer error rules in 12 CFR 1005.33 require "
                       "in June 2012?", "/us/cfr/t12/s1005.33"),
            ("definition", "How did 12 CFR 1005.30 define a remittance transfer provider in "
                           "early 2013?", "/us/cfr/t12/s1005.30"),
        ]
        for qtype, q, prov in early_cfr:
            year = int(re.search(r"(20\d\d)", q).group(1))
            while True:
                d = date(year, self.rng.randint(1, 12) if "June" not in q else 6,
                         self.rng.randint(1, 28))
                if "early 2013" in q:
                    d = date(2013, self.rng.randint(1, 2), self.rng.randint(1, 28))
                if self.cv.resolve(prov, d) is None:
                    break
            self.add(qtype, q, d, [], reason="before_any_version", provision=prov)

    def generate(self) -> list[Query]:
        self.lookups()
        self.definitions()
        self.thresholds()
        self.exceptions()
        self.multi_clause()
        self.jurisdiction()
        self.unanswerable()
        return self.out


# --------------------------------------------------------------------------------------------
# Validation of the hand-written set
# --------------------------------------------------------------------------------------------


def validate(cv: CorpusView, queries: list[Query], fill_why: bool = False) -> list[str]:
    """Check labels against the versioned corpus and verdicts against the rule library.

    Returns the errors: a label with no version in force at as_of, a verdict that disagrees
    with the rule library on the gold facts, a before_any_version query whose provision is in
    force at as_of (whether a no_such_provision query's provision is missing is checked where it is
    made), a query without a provision. With `fill_why`, empty `why` fields get the label's
    text at as_of and an empty provision the section of the first primary label.
    """
    errors = []
    for q in queries:
        for lab in q.labels:
            if cv.resolve(lab.id, q.as_of) is None:
                errors.append(f"{q.qid}: label {lab.id} has no version in force at {q.as_of}")
            elif fill_why and not lab.why:
                lab.why = cv.text(lab.id, q.as_of)[:WHY_CHARS]
        if fill_why and not q.provision and q.labels:
            q.provision = section_of(next(lab.id for lab in q.labels if lab.grade == 2))
        if q.expected_verdicts:
            errors += verdict_disagreements([q], default_library())
        if not q.provision:
            errors.append(f"{q.qid}: no provision (the section it is about)")
        if (not q.answerable and q.abstain_reason == "before_any_version"
                and cv.resolve(q.provision, q.as_of) is not None):
            errors.append(f"{q.qid}: {q.provision} is in force at {q.as_of}")
    return errors


def apply_adjudications(queries: list[Query], path: Path) -> list[str]:
    """Set the grade of each adjudicated label (adding it when absent); errors name the qid.
    Labels come from reading the provision, never from the project's linkers: no DefinedTerm
    node (made by our own term linker) is a label; definitions grade the defining provision."""
    by_qid = {q.qid: q for q in queries}
    errors = []
    for qid, changes in json.loads(path.read_text("utf-8")).items():
        q = by_qid.get(qid)
        if q is None:
            errors.append(f"{path.name}: {qid}: no such query")
            continue
        for change in changes:
            lab = next((lab for lab in q.labels if lab.id == change["id"]), None)
            if lab is None:
                q.labels.append(Label(change["id"], change["grade"], change["why"]))
            else:
                lab.grade, lab.why = change["grade"], change["why"]
    return errors


def complete_labels(cv: CorpusView, queries: list[Query]) -> None:
    """Fill each label's version interval at as_of; give queries citing §104 its table of
    adjusted amounts (the note, once there is one) as a supporting label."""
    for q in queries:
        q.labels = [lab for lab in q.labels if "/term/" not in lab.id]
        if any(lab.id == "/us/usc/t11/s104" for lab in q.labels) and cv.resolve(
            ADJUSTMENT_NOTE, q.as_of
        ):
            if all(lab.id != ADJUSTMENT_NOTE for lab in q.labels):
                q.labels.append(Label(ADJUSTMENT_NOTE, 1, "the §104 table of adjusted amounts"))
        for lab in q.labels:
            v = cv.resolve(lab.id, q.as_of)
            lab.valid_from, lab.valid_to = v.effective_from, v.effective_to


# --------------------------------------------------------------------------------------------
# Splits by provision
# --------------------------------------------------------------------------------------------

SPLIT_TARGET = {"train": 0.5, "dev": 0.2, "test": 0.3}
# definitions sections are split per defined term: each paragraph is its own provision, and
# grouping them by section would put every Title 11 definition query on one side
DEFINITION_SECTIONS = ("/us/usc/t11/s101", "/us/cfr/t12/s1002.2", "/us/cfr/t12/s1005.2",
                       "/us/cfr/t12/s1013.2", "/us/cfr/t12/s1005.30")


def split_unit(q: Query) -> str:
    """The unit a split keeps together: the query's section, or for a definitions section
    the defined paragraph (`/us/usc/t11/s101/31`) of its primary label."""
    if q.provision in DEFINITION_SECTIONS:
        primary = next((lab.id for lab in q.labels if lab.grade == 2), None)
        if primary and primary.startswith(q.provision + "/"):
            return "/".join(primary.split("/")[: q.provision.count("/") + 2])
    return q.provision or q.qid


def assign_splits(queries: list[Query], seed: int = SEED) -> None:
    """Assign whole provisions to train/dev/test, about 50/20/30, stratified by type.

    The unit is `split_unit` (the section; a defined term in a definitions section), so a
    unit's queries never straddle splits. Units are placed largest first (ties in seeded
    random order) where the squared shortfall against the per-type and overall targets drops
    most; then single units are moved between splits while that lowers the same objective.
    """
    groups: dict[str, list[Query]] = defaultdict(list)
    for q in queries:
        groups[split_unit(q)].append(q)
    keys = sorted(groups)
    random.Random(seed).shuffle(keys)
    keys.sort(key=lambda k: -len(groups[k]))
    kinds = list(QUERY_TYPES) + ["*"]
    g_count = {k: Counter([q.type for q in groups[k]] + ["*"] * len(groups[k])) for k in keys}
    total = Counter()
    for k in keys:
        total.update(g_count[k])
    have = {s: Counter() for s in SPLIT_TARGET}

    def cost() -> float:
        return sum((have[s][t] - SPLIT_TARGET[s] * total[t]) ** 2 / max(1, total[t])
                   for s in SPLIT_TARGET for t in kinds)

    def place(k: str, s: str, sign: int) -> None:
        for t, c in g_count[k].items():
            have[s][t] += sign * c

    where: dict[str, str] = {}
    for k in keys:
        best, best_cost = None, None
        for s in SPLIT_TARGET:
            place(k, s, 1)
            c = cost()
            place(k, s, -1)
            if best_cost is None or c < best_cost:
                best, best_cost = s, c
        where[k] = best
        place(k, best, 1)
    improved = True
    while improved:
        improved = False
        for k in keys:
            current = cost()
            for s in SPLIT_TARGET:
                if s == where[k]:
                    continue
                place(k, where[k], -1)
                place(k, s, 1)
                if cost() < current - 1e-9:
                    where[k], improved = s, True
                    break
                place(k, s, -1)
                place(k, where[k], 1)
    for k in keys:
        for q in groups[k]:
            q.split = where[k]


# --------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------


def build(out_dir: Path = QUERIES_DIR, check_only: bool = False, fill_why: bool = False,
          seed: int = SEED) -> dict:
    """Validate the hand-written queries, generate the templated ones, split, and write."""
    cv = CorpusView()
    hw_path = out_dir / "handwritten.jsonl"
    hand = load_queries(hw_path)
    templ = Templater(cv, seed).generate()
    errors = check_thresholds_in_notes(cv) + validate(cv, hand, fill_why) + validate(cv, templ)
    dup = [k for k, v in Counter(q.qid for q in hand + templ).items() if v > 1]
    if dup:
        errors.append(f"duplicate qids: {dup}")
    if errors:
        raise SystemExit("query set does not validate:\n  " + "\n  ".join(errors))
    if fill_why and not check_only:
        dump_queries(hand, hw_path)  # the source file keeps its labels as written
    everything = hand + templ
    errors = apply_adjudications(everything, out_dir / "adjudications.json")
    if errors:
        raise SystemExit("adjudications do not apply:\n  " + "\n  ".join(errors))
    complete_labels(cv, everything)
    assign_splits(everything, seed)
    stats = {
        "total": len(everything),
        "by_origin": dict(Counter(q.origin for q in everything)),
        "by_type": dict(sorted(Counter(q.type for q in everything).items())),
        "unanswerable": sum(not q.answerable for q in everything),
        "by_abstain_reason": dict(Counter(q.abstain_reason for q in everything
                                          if not q.answerable)),
        "type_x_split": {t: {s: sum(q.type == t and q.split == s for q in everything)
                             for s in SPLIT_TARGET} for t in QUERY_TYPES},
        "by_split": {s: sum(q.split == s for q in everything) for s in SPLIT_TARGET},
        "split_units_by_split": {s: len({split_unit(q) for q in everything if q.split == s})
                                 for s in SPLIT_TARGET},
        "with_expected_verdicts": sum(bool(q.expected_verdicts) for q in everything),
        "as_of_years": [min(q.as_of.year for q in everything),
                        max(q.as_of.year for q in everything)],
        "seed": seed,
    }
    if not check_only:
        dump_queries(templ, out_dir / "templated.jsonl")
        dump_queries(everything, out_dir / "all.jsonl")
        for s in SPLIT_TARGET:
            dump_queries([q for q in everything if q.split == s], out_dir / f"{s}.jsonl")
        (out_dir / "stats.json").write_text(json.dumps(stats, indent=2) + "\n", encoding="utf-8")
    return stats


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="validate only, write nothing")
    ap.add_argument("--fill-why", action="store_true",
                    help="fill empty `why` fields of handwritten.jsonl from the corpus")
    ap.add_argument("--out", type=Path, default=QUERIES_DIR)
    ap.add_argument("--seed", type=int, default=SEED)
    args = ap.parse_args(argv)
    stats = build(args.out, check_only=args.check, fill_why=args.fill_why, seed=args.seed)
    print(json.dumps(stats, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
