"""The typed fact vocabulary the rules are written against, and validation of a query's facts.

A query carries facts by name (`transfer_amount`, `creditor_is_insider`, ...). Each name has a
type; a value is *known* (true/false for a boolean, a number, a date, one of an enumeration's
values) or *unknown* (absent, or given as None / "unknown"). `validate_facts` turns raw values
into a `FactSet`, raising `FactError` that names every fact with a value of the wrong type
(a date where an amount belongs, "maybe" for a boolean, a negative number of days, ...).

A few facts follow from others; `FactSet` derives them and marks them as derived:

- `days_before_filing` from `transfer_date` and `filing_date` (days between them); given as
  well, the three must agree.
- `relationship` = `none` when the query says the creditor is not an insider
  (`creditor_is_insider` = false) and names no relationship: the statement that the creditor
  is not an insider rules out every insider relationship of §101(31).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from typing import Any


class FactType(StrEnum):
    BOOL = "bool"
    USD = "usd"  # a non-negative dollar amount
    DAYS = "days"  # a non-negative whole number of days
    COUNT = "count"  # a non-negative whole number
    DATE = "date"
    ENUM = "enum"

    @property
    def numeric(self) -> bool:
        return self in (FactType.USD, FactType.DAYS, FactType.COUNT)


_TYPE_WORDS = {
    FactType.BOOL: "true or false",
    FactType.USD: "an amount in USD",
    FactType.DAYS: "a whole number of days",
    FactType.COUNT: "a whole number",
    FactType.DATE: "a date (YYYY-MM-DD)",
    FactType.ENUM: "one of",
}


@dataclass(frozen=True, slots=True)
class FactSpec:
    name: str
    type: FactType
    description: str
    values: tuple[str, ...] = ()  # the allowed values of an enumeration

    def expected(self) -> str:
        if self.type is FactType.ENUM:
            return "one of " + ", ".join(self.values)
        return _TYPE_WORDS[self.type]


RELATIONSHIPS = (
    "none",
    "relative",  # relative of the debtor (or of a general partner of the debtor)
    "general_partner",  # general partner of / in the debtor
    "partnership_with_debtor_as_general_partner",  # partnership in which the debtor is a GP
    "corporation_of_which_debtor_is_director_officer_or_in_control",
    "director",
    "officer",
    "person_in_control",
    "relative_of_insider",  # relative of a general partner, director, officer or person in control
    "elected_official",  # of a municipal debtor
    "relative_of_elected_official",
    "affiliate",  # an affiliate, or an insider of an affiliate as if it were the debtor
    "managing_agent",
)

DEBTOR_KINDS = ("individual", "corporation", "partnership", "municipality")


def _specs(*specs: FactSpec) -> dict[str, FactSpec]:
    return {s.name: s for s in specs}


B, U, D, C, T, E = (FactType.BOOL, FactType.USD, FactType.DAYS, FactType.COUNT, FactType.DATE,
                    FactType.ENUM)

VOCABULARY: dict[str, FactSpec] = _specs(
    # the case
    FactSpec("filing_date", T, "date the petition was filed (the as-of date of thresholds)"),
    FactSpec("debtor_kind", E, "kind of debtor", DEBTOR_KINDS),
    FactSpec("debtor_consumer_debts", B, "the debtor's debts are primarily consumer debts"),
    FactSpec("debtor_insolvent", B, "the debtor was insolvent when the transfer was made"),
    FactSpec("debtor_regular_income", B, "the debtor is an individual with regular income"),
    FactSpec("debtor_stockbroker_or_commodity_broker", B,
             "the debtor is a stockbroker or a commodity broker"),
    # a transfer (§547)
    FactSpec("transfer_amount", U, "value of the property transferred (aggregate)"),
    FactSpec("transfer_date", T, "date of the transfer"),
    FactSpec("days_before_filing", D, "days between the transfer and the petition"),
    FactSpec("to_benefit_of_creditor", B, "transfer to or for the benefit of a creditor"),
    FactSpec("antecedent_debt", B, "transfer for or on account of an antecedent debt"),
    FactSpec("creditor_receives_more", B,
             "the creditor receives more than in a chapter 7 liquidation"),
    FactSpec("creditor_is_insider", B, "the creditor was an insider at the time of the transfer"),
    FactSpec("relationship", E, "relationship of the creditor to the debtor (§101(31))",
             RELATIONSHIPS),
    FactSpec("contemporaneous_exchange", B,
             "intended as, and in fact, a substantially contemporaneous exchange for new value"),
    FactSpec("ordinary_course_debt", B, "debt incurred in the ordinary course of business"),
    FactSpec("ordinary_course_payment", B, "transfer made in the ordinary course of business"),
    FactSpec("ordinary_business_terms", B, "transfer made according to ordinary business terms"),
    FactSpec("other_preference_exception", B,
             "another §547(c) exception (c)(3)-(7) or §547(i) protects the transfer"),
    # chapter 13 eligibility (§109(e))
    FactSpec("noncontingent_unsecured_debts", U, "noncontingent, liquidated, unsecured debts"),
    FactSpec("secured_debts", U, "noncontingent, liquidated, secured debts"),
    # involuntary petitions (§303(b))
    FactSpec("petitioning_creditors", C, "number of petitioning creditors"),
    FactSpec("creditor_count", C, "number of holders of claims against the debtor (§303(b)(2))"),
    FactSpec("unsecured_claims_total", U,
             "petitioners' noncontingent, undisputed claims in excess of liens securing them"),
    # wage priority (§507(a)(4))
    FactSpec("wage_claim_amount", U, "the employee's claim for wages, salaries or commissions"),
    FactSpec("days_wages_earned_before_filing", D,
             "days before the petition (or cessation of business) the wages were earned"),
    # luxury goods and cash advances (§523(a)(2)(C))
    FactSpec("luxury_goods_amount", U, "consumer debts to one creditor for luxury goods/services"),
    FactSpec("days_luxury_before_relief", D, "days before the order for relief they were incurred"),
    FactSpec("cash_advance_amount", U, "open-end consumer-credit cash advances, aggregate"),
    FactSpec("days_cash_advance_before_relief", D, "days before the order for relief obtained"),
)

UNKNOWN_WORDS = frozenset({"unknown", "undetermined", "?", ""})
_TRUE = frozenset({"true", "yes", "y", "1"})
_FALSE = frozenset({"false", "no", "n", "0"})
_AMOUNT_RE = re.compile(r"^\$?\s*(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$")


class FactError(ValueError):
    """Facts of the wrong type or unknown names; `problems` lists one message per fact."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("invalid facts: " + "; ".join(problems))
        self.problems = problems


Value = bool | int | Decimal | date | str


def normalize_number(value: int | float | Decimal) -> int | Decimal:
    """Ints stay ints; floats become exact Decimals (pyDatalog rounds floats to 8 digits)."""
    if isinstance(value, bool):
        raise TypeError("a boolean is not a number")
    if isinstance(value, int):
        return value
    dec = value if isinstance(value, Decimal) else Decimal(repr(value))
    return int(dec) if dec == dec.to_integral_value() else dec


def coerce(spec: FactSpec, raw: Any) -> Value | None:
    """`raw` as a value of `spec`'s type, None for unknown; ValueError says what is wrong."""
    if raw is None or (isinstance(raw, str) and raw.strip().lower() in UNKNOWN_WORDS):
        return None
    kind = spec.type
    shown = f"{type(raw).__name__} {raw!r}" if not isinstance(raw, date) else f"date {raw}"
    if kind is FactType.BOOL:
        if isinstance(raw, bool):
            return raw
        if isinstance(raw, str) and raw.strip().lower() in _TRUE | _FALSE:
            return raw.strip().lower() in _TRUE
        raise ValueError(f"{spec.name}: expected {spec.expected()}, got {shown}")
    if kind is FactType.DATE:
        if isinstance(raw, datetime):
            return raw.date()
        if isinstance(raw, date):
            return raw
        if isinstance(raw, str):
            try:
                return date.fromisoformat(raw.strip())
            except ValueError:
                pass
        raise ValueError(f"{spec.name}: expected {spec.expected()}, got {shown}")
    if kind is FactType.ENUM:
        if isinstance(raw, str) and raw.strip() in spec.values:
            return raw.strip()
        raise ValueError(f"{spec.name}: expected {spec.expected()}, got {shown}")
    # numeric kinds
    number: int | Decimal | None = None
    if isinstance(raw, bool) or isinstance(raw, date):
        number = None
    elif isinstance(raw, int | float | Decimal):
        if isinstance(raw, float) and raw != raw:  # NaN
            number = None
        else:
            number = normalize_number(raw)
    elif isinstance(raw, str) and _AMOUNT_RE.match(raw.strip()):
        try:
            number = normalize_number(Decimal(raw.strip().lstrip("$").strip().replace(",", "")))
        except InvalidOperation:
            number = None
    if number is None:
        raise ValueError(f"{spec.name}: expected {spec.expected()}, got {shown}")
    if number < 0:
        raise ValueError(f"{spec.name}: expected {spec.expected()}, got a negative number {raw!r}")
    if kind in (FactType.DAYS, FactType.COUNT) and number != int(number):
        raise ValueError(f"{spec.name}: expected {spec.expected()}, got {raw!r}")
    return int(number) if kind in (FactType.DAYS, FactType.COUNT) else number


@dataclass(frozen=True)
class FactSet:
    """The facts of one query: known values by name; every other vocabulary name is unknown."""

    known: Mapping[str, Value]
    derived: Mapping[str, str] = field(default_factory=dict)  # derived name -> how

    def value(self, name: str) -> Value | None:
        return self.known.get(name)



def validate_facts(raw: Mapping[str, Any] | FactSet, *, strict_names: bool = True) -> FactSet:
    """Check and coerce a query's facts; FactError lists every problem at once."""
    if isinstance(raw, FactSet):
        return raw
    problems: list[str] = []
    known: dict[str, Value] = {}
    for name, value in raw.items():
        spec = VOCABULARY.get(name)
        if spec is None:
            if strict_names:
                problems.append(f"{name}: not a fact of the rule vocabulary ({_near(name)})")
            continue
        try:
            coerced = coerce(spec, value)
        except ValueError as exc:
            problems.append(str(exc))
            continue
        if coerced is not None:
            known[name] = coerced
    derived: dict[str, str] = {}
    t, f = known.get("transfer_date"), known.get("filing_date")
    if isinstance(t, date) and isinstance(f, date):
        days = (f - t).days
        if days < 0:
            problems.append(f"transfer_date: {t} is after filing_date {f}")
        elif "days_before_filing" in known and known["days_before_filing"] != days:
            problems.append(
                f"days_before_filing: given {known['days_before_filing']}, but transfer_date {t} "
                f"and filing_date {f} are {days} days apart"
            )
        elif "days_before_filing" not in known:
            known["days_before_filing"] = days
            derived["days_before_filing"] = (f"days_before_filing = {days}, from transfer_date "
                                             "and filing_date")
    if known.get("creditor_is_insider") is False and "relationship" not in known:
        known["relationship"] = "none"
        derived["relationship"] = ("relationship = none, since the creditor is stated not to be "
                                   "an insider")
    if problems:
        raise FactError(problems)
    return FactSet(known, derived)


def _near(name: str) -> str:
    close = difflib.get_close_matches(name, list(VOCABULARY), n=1)
    return f"did you mean {close[0]}?" if close else "see structfirst.rules.fact_schema"
