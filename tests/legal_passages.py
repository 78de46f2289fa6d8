"""A tiny inline corpus for the dense and ColBERT plane tests: real provisions and distractors."""

from __future__ import annotations

from datetime import date
from typing import Any

from structfirst.engine.catalog import ArtifactVersion, Catalog
from structfirst.ingest.index_builder import IndexableDoc

S547_C9_2019 = "/us/usc/t11/s547/c/9@2019-04-01"
S547_C9_2005 = "/us/usc/t11/s547/c/9@2005-10-17"
S547_B = "/us/usc/t11/s547/b@2005-10-17"
S101_31 = "/us/usc/t11/s101/31@1994-10-22"

# queries for § 547(c)(9): a paraphrase of it, and one close to its own words
PARAPHRASE = "small payment by a business debtor that the trustee cannot claw back"
AMOUNT_QUERY = "transfer of less than $5,000 by a debtor whose debts are not consumer debts"

_TEXTS: list[tuple[str, str, str, str]] = [
    # (version id, jurisdiction, authority, contents)
    (S547_B, "us-federal", "statute",
     "11 U.S.C. § 547(b) Preferences. Except as provided in subsections (c) and (i) of this "
     "section, the trustee may avoid any transfer of an interest of the debtor in property (1) to "
     "or for the benefit of a creditor; (2) for or on account of an antecedent debt owed by the "
     "debtor before such transfer was made; (3) made while the debtor was insolvent; (4) made on "
     "or within 90 days before the date of the filing of the petition, or between ninety days "
     "and one year before the date of the filing of the petition, if such creditor at the time "
     "of such transfer was an insider; and (5) that enables such creditor to receive more than "
     "such creditor would receive if the case were a case under chapter 7 of this title."),
    ("/us/usc/t11/s547/c/1@2005-10-17", "us-federal", "statute",
     "11 U.S.C. § 547(c)(1) The trustee may not avoid under this section a transfer to the "
     "extent that such transfer was intended by the debtor and the creditor to or for whose "
     "benefit such transfer was made to be a contemporaneous exchange for new value given to "
     "the debtor, and in fact a substantially contemporaneous exchange."),
    ("/us/usc/t11/s547/c/2@2005-10-17", "us-federal", "statute",
     "11 U.S.C. § 547(c)(2) The trustee may not avoid under this section a transfer to the "
     "extent that such transfer was in payment of a debt incurred by the debtor in the ordinary "
     "course of business or financial affairs of the debtor and the transferee, and such "
     "transfer was (A) made in the ordinary course of business or financial affairs of the "
     "debtor and the transferee; or (B) made according to ordinary business terms."),
    ("/us/usc/t11/s547/c/4@2005-10-17", "us-federal", "statute",
     "11 U.S.C. § 547(c)(4) The trustee may not avoid under this section a transfer to or for "
     "the benefit of a creditor, to the extent that, after such transfer, such creditor gave new "
     "value to or for the benefit of the debtor not secured by an otherwise unavoidable "
     "security interest."),
    ("/us/usc/t11/s547/c/8@2005-10-17", "us-federal", "statute",
     "11 U.S.C. § 547(c)(8) The trustee may not avoid under this section a transfer if, in a "
     "case filed by an individual debtor whose debts are primarily consumer debts, the aggregate "
     "value of all property that constitutes or is affected by such transfer is less than $600."),
    (S547_C9_2005, "us-federal", "statute",
     "11 U.S.C. § 547(c)(9) The trustee may not avoid under this section a transfer if, in a "
     "case filed by a debtor whose debts are not primarily consumer debts, the aggregate value "
     "of all property that constitutes or is affected by such transfer is less than $5,000."),
    (S547_C9_2019, "us-federal", "statute",
     "11 U.S.C. § 547(c)(9) The trustee may not avoid under this section a transfer if, in a "
     "case filed by a debtor whose debts are not primarily consumer debts, the aggregate value "
     "of all property that constitutes or is affected by such transfer is less than $6,825."),
    ("/us/usc/t11/s547/e/1@2005-10-17", "us-federal", "statute",
     "11 U.S.C. § 547(e)(1) For the purposes of this section, a transfer of real property other "
     "than fixtures is perfected when a bona fide purchaser of such property from the debtor "
     "against whom applicable law permits such transfer to be perfected cannot acquire an "
     "interest that is superior to the interest of the transferee."),
    ("/us/usc/t11/s547/f@2005-10-17", "us-federal", "statute",
     "11 U.S.C. § 547(f) For the purposes of this section, the debtor is presumed to have been "
     "insolvent on and during the 90 days immediately preceding the date of the filing of the "
     "petition."),
    (S101_31, "us-federal", "statute",
     "11 U.S.C. § 101(31) The term \"insider\" includes (A) if the debtor is an individual, a "
     "relative of the debtor or of a general partner of the debtor; a partnership in which the "
     "debtor is a general partner; a general partner of the debtor; or a corporation of which "
     "the debtor is a director, officer, or person in control; (B) if the debtor is a "
     "corporation, a director of the debtor, an officer of the debtor, a person in control of "
     "the debtor, or a relative of a general partner, director, officer, or person in control."),
    ("/us/usc/t11/s101/10@1994-10-22", "us-federal", "statute",
     "11 U.S.C. § 101(10) The term \"creditor\" means an entity that has a claim against the "
     "debtor that arose at the time of or before the order for relief concerning the debtor."),
    ("/us/usc/t11/s101/8@1994-10-22", "us-federal", "statute",
     "11 U.S.C. § 101(8) The term \"consumer debt\" means debt incurred by an individual "
     "primarily for a personal, family, or household purpose."),
    ("/us/usc/t11/s362/a@1994-10-22", "us-federal", "statute",
     "11 U.S.C. § 362(a) Automatic stay. A petition filed under section 301, 302, or 303 of this "
     "title operates as a stay, applicable to all entities, of the commencement or continuation "
     "of a judicial, administrative, or other action or proceeding against the debtor."),
    ("/us/usc/t11/s523/a/2@1994-10-22", "us-federal", "statute",
     "11 U.S.C. § 523(a)(2) A discharge under section 727 of this title does not discharge an "
     "individual debtor from any debt for money, property, services, or an extension, renewal, "
     "or refinancing of credit, to the extent obtained by false pretenses, a false "
     "representation, or actual fraud."),
    ("/us/usc/t11/s1129/a/9@1994-10-22", "us-federal", "statute",
     "11 U.S.C. § 1129(a)(9) Confirmation of plan. Except to the extent that the holder of a "
     "particular claim has agreed to a different treatment, the plan provides that with respect "
     "to a claim of a kind specified in section 507(a)(2), on the effective date of the plan, "
     "the holder of such claim will receive cash equal to the allowed amount of such claim."),
    ("/us/usc/t11/s541/a@1994-10-22", "us-federal", "statute",
     "11 U.S.C. § 541(a) Property of the estate. The commencement of a case under section 301, "
     "302, or 303 of this title creates an estate, comprised of all legal or equitable interests "
     "of the debtor in property as of the commencement of the case."),
    ("/us/cfr/t12/s1013.2/e/1@2017-01-01", "us-federal/cfpb", "regulation",
     "12 CFR § 1013.2(e)(1) Consumer lease means a contract in the form of a bailment or lease "
     "for the use of personal property by a natural person primarily for personal, family, or "
     "household purposes, for a period exceeding four months and for a total contractual "
     "obligation not exceeding the applicable threshold amount."),
    ("/us/cfr/t12/s1013.2/g@2017-01-01", "us-federal/cfpb", "regulation",
     "12 CFR § 1013.2(g) Lessee means a natural person who leases or is offered a consumer "
     "lease."),
    ("/us/cfr/t12/s1013.2/h@2017-01-01", "us-federal/cfpb", "regulation",
     "12 CFR § 1013.2(h) Lessor means a person who regularly leases, offers to lease, or "
     "arranges for the lease of personal property under a consumer lease."),
    ("/us/cfr/t12/s1013.2/k@2017-01-01", "us-federal/cfpb", "regulation",
     "12 CFR § 1013.2(k) Realized value means (1) the price received by the lessor for the "
     "leased property at disposition; (2) the highest offer for disposition; or (3) the fair "
     "market value of the leased property at the end of the lease term."),
    ("/us/cfr/t12/s1013.4/g@2017-01-01", "us-federal/cfpb", "regulation",
     "12 CFR § 1013.4(g) Early termination. A statement of the conditions under which the lessee "
     "or lessor may terminate the lease prior to the end of the lease term and the amount or a "
     "description of the method for determining the amount of any penalty or other charge for "
     "early termination."),
    ("/us/cfr/t12/s1005.11/c@2017-01-01", "us-federal/cfpb", "regulation",
     "12 CFR § 1005.11(c) Time limits and extent of investigation. A financial institution shall "
     "investigate promptly and determine whether an error occurred within 10 business days of "
     "receiving a notice of error from the consumer."),
    ("/us/cfr/t12/s1002.9/a@2017-01-01", "us-federal/cfpb", "regulation",
     "12 CFR § 1002.9(a) Notification of action taken. A creditor shall notify an applicant of "
     "action taken within 30 days after receiving a completed application concerning the "
     "creditor's approval of, counteroffer to, or adverse action on the application."),
    ("/us-ia/code/s321A.1/11@2019-07-01", "us-ia", "statute",
     "Iowa Code § 321A.1(11) Proof of financial responsibility means proof of ability to respond "
     "in damages for liability on account of accidents arising out of the use of a motor vehicle "
     "in the amount of twenty thousand dollars because of bodily injury to or death of one "
     "person."),
    ("/other/weather@2020-01-01", "other", "other",
     "The forecast calls for light snow overnight with temperatures falling to ten degrees, "
     "followed by clear skies and a gusty northwest wind on Saturday afternoon."),
    ("/other/recipe@2020-01-01", "other", "other",
     "Whisk the eggs with sugar until pale, fold in the sifted flour and melted butter, then "
     "bake the sponge at 180 degrees for twenty-five minutes until golden."),
    ("/other/sports@2020-01-01", "other", "other",
     "The home team scored twice in the final period to win the championship game, and the "
     "goalkeeper was named the most valuable player of the tournament."),
    ("/other/astronomy@2020-01-01", "other", "other",
     "A total solar eclipse occurs when the Moon passes between the Sun and Earth and fully "
     "blocks the face of the Sun, casting a narrow shadow across the planet."),
]


def legal_docs() -> list[IndexableDoc]:
    docs = []
    for version_id, jurisdiction, authority, contents in _TEXTS:
        node_id, _, day = version_id.partition("@")
        docs.append(IndexableDoc(version_id=version_id, node_id=node_id, contents=contents,
                                 jurisdiction=jurisdiction, authority=authority,
                                 effective_from=date.fromisoformat(day), effective_to=None))
    return docs


def legal_catalog() -> Catalog:
    """The passages as a catalog for hard filters: the 2005 § 547(c)(9) ends where 2019's
    starts."""
    ends = {S547_C9_2005: date(2019, 4, 1)}
    return Catalog(
        ArtifactVersion(d.version_id, d.node_id, "Clause", None, None, d.contents, None,
                        d.jurisdiction, d.authority, d.effective_from, ends.get(d.version_id),
                        "legal_passages", 0, len(d.contents))
        for d in legal_docs()
    )


# (as_of, jurisdiction, authorities) of hard filters that admit different subsets
HARD_FILTERS = [
    (date(2010, 1, 1), "us-federal", None),  # the 2005 § 547(c)(9), no regulation yet
    (date(2019, 4, 1), "us-federal", None),  # the 2019 one from its first day
    (date(2020, 1, 1), "us-federal/cfpb", None),
    (date(2020, 1, 1), None, frozenset({"statute"})),
    (date(1990, 1, 1), None, None),  # nothing in force
]


def assert_hard_filter_gives_its_allowed_set(
    plane: Any, day: date, jurisdiction: str | None, authorities: frozenset[str] | None
) -> None:
    """A plane's search under the filter from interval and code columns returns exactly what
    the same search under the filter's enumerated allowed set returns, all of it admitted."""
    catalog = legal_catalog()
    where = catalog.hard_filter(day, jurisdiction, authorities)
    allowed = catalog.allowed(day, jurisdiction, authorities)
    hits = plane.search(AMOUNT_QUERY, 8, where)
    assert hits == plane.search(AMOUNT_QUERY, 8, allowed)
    assert len(hits) == min(8, len(allowed)) and all(d in allowed for d, _ in hits)
