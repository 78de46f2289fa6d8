"""The functions and calendar arithmetic of the rule language, defined once: what the resolver
checks (`FUNCTIONS`: argument and result types) and what the evaluators compute.

- `days_between(a, b)`: calendar days from date a to date b (negative when b is earlier).
- `years_between(a, b)`, `months_between(a, b)`: whole years (months) from a to b, counted as
  anniversaries (2010-03-01 to 2018-02-28 is 7 years).
- `business_days_between(a, b)`: days from a (exclusive) to b (inclusive) that are business
  days, Monday to Friday except the legal public holidays of 5 U.S.C. § 6103(a) (a holiday
  on a Saturday is observed on the Friday before, on a Sunday on the Monday after).
- `min(x, y, ...)`, `max(x, y, ...)`: of values of one type.
- `date ± N days | months | years | business days`: calendar arithmetic; a month or year added
  to the 29th to 31st ends on the last day of a shorter month (2016-02-29 + 1 year is
  2017-02-28).
"""

from __future__ import annotations

import calendar
import functools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any


@dataclass(frozen=True, slots=True)
class Function:
    name: str
    args: tuple[str, ...]  # argument types ("date", "value": any one numeric type); () variadic
    result: str  # "duration" | "count" | "same" (the arguments' type)
    apply: Callable[..., Any]
    meaning: str


def add_span(day: date, count: int, unit: str) -> date:
    """`day` moved by `count` (negative: back) calendar units."""
    if unit == "days":
        return day + timedelta(days=count)
    if unit == "business_days":
        step = 1 if count >= 0 else -1
        left = abs(count)
        while left:
            day += timedelta(days=step)
            if is_business_day(day):
                left -= 1
        return day
    months = count * (12 if unit == "years" else 1)
    y, m = divmod(day.year * 12 + day.month - 1 + months, 12)
    return date(y, m + 1, min(day.day, calendar.monthrange(y, m + 1)[1]))


def _months_between(a: date, b: date) -> int:
    months = (b.year - a.year) * 12 + b.month - a.month
    if months > 0 and add_span(a, months, "months") > b:
        months -= 1
    elif months < 0 and add_span(a, months, "months") < b:
        months += 1
    return months


def _years_between(a: date, b: date) -> int:
    return int(_months_between(a, b) / 12)


def _days_between(a: date, b: date) -> int:
    return (b - a).days


def _business_days_between(a: date, b: date) -> int:
    sign, (lo, hi) = (1, (a, b)) if a <= b else (-1, (b, a))
    n, day = 0, lo
    while day < hi:
        day += timedelta(days=1)
        n += is_business_day(day)
    return sign * n


# the legal public holidays of 5 U.S.C. § 6103(a) on a weekday of their month: (month, weekday,
# which one; -1 the last)
WEEKDAY_HOLIDAYS = {
    "martin luther king day": (1, 0, 3),  # Martin Luther King Jr.'s birthday
    "presidents day": (2, 0, 3),  # Washington's birthday
    "memorial day": (5, 0, -1),
    "labor day": (9, 0, 1),
    "columbus day": (10, 0, 2),
    "thanksgiving day": (11, 3, 4),
}


def weekday_holiday(year: int, name: str) -> date:
    """The day of `name`, one of `WEEKDAY_HOLIDAYS`, in `year`."""
    return _nth_weekday(year, *WEEKDAY_HOLIDAYS[name])


def _nth_weekday(year: int, month: int, weekday: int, n: int) -> date:
    if n > 0:
        first = date(year, month, 1)
        return first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (n - 1))
    last = date(year, month, calendar.monthrange(year, month)[1])
    return last - timedelta(days=(last.weekday() - weekday) % 7)


@functools.cache
def federal_holidays(year: int) -> frozenset[date]:
    """The legal public holidays of 5 U.S.C. § 6103(a) observed in `year`."""
    fixed = [date(year, 1, 1), date(year, 7, 4), date(year, 11, 11), date(year, 12, 25)]
    if year >= 2021:
        fixed.append(date(year, 6, 19))  # Juneteenth, Pub. L. 117-17
    days = set()
    for d in fixed:
        days.add(d - timedelta(days=1) if d.weekday() == 5 else
                 d + timedelta(days=1) if d.weekday() == 6 else d)
    if date(year + 1, 1, 1).weekday() == 5:  # next New Year's Day observed on Dec 31
        days.add(date(year, 12, 31))
    days |= {weekday_holiday(year, name) for name in WEEKDAY_HOLIDAYS}
    return frozenset(days)


def is_business_day(day: date) -> bool:
    return day.weekday() < 5 and day not in federal_holidays(day.year)


FUNCTIONS: dict[str, Function] = {f.name: f for f in (
    Function("days_between", ("date", "date"), "duration", _days_between,
             "calendar days from the first date to the second"),
    Function("business_days_between", ("date", "date"), "duration", _business_days_between,
             "business days after the first date up to the second"),
    Function("months_between", ("date", "date"), "count", _months_between,
             "whole months from the first date to the second"),
    Function("years_between", ("date", "date"), "count", _years_between,
             "whole years from the first date to the second"),
    Function("min", (), "same", min, "the least of the values"),
    Function("max", (), "same", max, "the greatest of the values"),
)}
