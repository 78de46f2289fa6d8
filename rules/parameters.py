"""Versioned parameter tables: dollar thresholds and similar values as dated series.

Each parameter (e.g. `s547_c_9`, the §547(c)(9) floor) is a series of values, one per
half-open period [from, to), each with its source citation (compare OpenFisca's dated
parameters). Values come from two places and are merged:

1. **Ingested** §104 adjustments: THRESHOLD facts read from the Title 11 editions' §104 notes
   (1998 to 2016 and the 2019 table) by `structfirst.ingest.dollar_adjustments`, either from
   a snapshot's DuckDB `facts` table (`--index DIR`) or, without an index, by parsing the
   shared editions directly (cached per process).
2. **Library** values in `*.params.toml` files beside the rules: the statutory base amounts
   before the first adjustment, adjustments after the last edition (2022, 2025), and amounts
   set by statute outside §104 (e.g. the 2022-2024 chapter 13 limit), each with a citation.

Where both give a value for the same start date the ingested value wins; if they differ the
conflict is reported (a lint error). Each value runs until the next one starts; the last one
ends at its explicit `to` (or the series' `until`). A lookup outside every period returns
`NoValue` — never a default.

Parameter file format (TOML)::

    [s547_c_9]
    title = "§547(c)(9): floor for avoiding transfers by a non-consumer debtor"
    unit = "USD"
    provision = "/us/usc/t11/s547/c/9"
    ingest = { node_id = "/us/usc/t11/s547/c/9" }   # which THRESHOLD facts feed it

      [[s547_c_9.values]]
      from = 2005-10-17
      value = 5000
      source = "Pub. L. 109-8, §409, 119 Stat. 106 (base amount)"
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

from structfirst.rules.fact_schema import normalize_number
from structfirst.rules.rule_syntax import Issue
from structfirst.rules.toml_file import read_toml


@dataclass(frozen=True, slots=True)
class ParamValue:
    name: str
    value: int | Decimal
    start: date
    end: date | None  # exclusive; None = open-ended
    source: str  # the notice or statute the value comes from
    citation: str  # canonical id of the provision the amount appears in
    origin: str  # "ingested" | "library"
    note: str = ""

    def covers(self, day: date) -> bool:
        return self.start <= day and (self.end is None or day < self.end)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "value": float(self.value) if isinstance(self.value, Decimal) else self.value,
            "from": self.start.isoformat(),
            "to": self.end.isoformat() if self.end else None,
            "source": self.source,
            "citation": self.citation,
            "origin": self.origin,
            **({"note": self.note} if self.note else {}),
        }


@dataclass(frozen=True, slots=True)
class NoValue:
    """The explicit answer for a date outside every period of a parameter (or no such name)."""

    name: str
    as_of: date
    reason: str

    def __bool__(self) -> bool:
        return False

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "as_of": self.as_of.isoformat(), "no_value": self.reason}


@dataclass(frozen=True, slots=True)
class ThresholdRecord:
    """One ingested dated amount (a THRESHOLD fact), whatever it was read from."""

    node_id: str
    value: int | Decimal
    effective_from: date
    effective_to: date | None = None
    series: str | None = None
    notice_citation: str | None = None
    notice_date: str | None = None
    old_value: int | Decimal | None = None
    row_label: str | None = None
    source_id: str | None = None


@dataclass
class ParamSpec:
    name: str
    title: str
    unit: str
    provision: str
    file: str
    line: int
    ingest_node_ids: tuple[str, ...] = ()
    ingest_series: str | None = None  # match THRESHOLD facts of this series only
    ingest_pick: str | None = None  # "min" | "max" when one provision has several amounts
    ingest_from: date | None = None  # take ingested values starting in [from, until) only
    ingest_until: date | None = None
    until: date | None = None  # the series ends here (e.g. the paragraph was renumbered)
    values: list[tuple[ParamValue, int, bool]] = field(default_factory=list)  # (value, line, open)


@dataclass
class ParamSeries:
    spec: ParamSpec
    values: list[ParamValue]

    def lookup(self, as_of: date) -> ParamValue | NoValue:
        for v in self.values:
            if v.covers(as_of):
                return v
        if not self.values:
            return NoValue(self.spec.name, as_of, "the series has no values")
        first, last = self.values[0], self.values[-1]
        if as_of < first.start:
            why = f"before the first value (from {first.start})"
        elif last.end is not None and as_of >= last.end:
            why = f"after the last value (which ends {last.end})"
        else:
            why = "in a gap between periods"
        return NoValue(self.spec.name, as_of, why)


class ParameterTable:
    """Every parameter's merged series; `lookup(name, as_of)` answers a value or `NoValue`."""

    def __init__(self, series: Mapping[str, ParamSeries], issues: Sequence[Issue] = (),
                 ingested_source: str = "none") -> None:
        self.series = dict(series)
        self.issues = list(issues)
        self.ingested_source = ingested_source

    def __contains__(self, name: object) -> bool:
        return name in self.series

    def names(self) -> list[str]:
        return sorted(self.series)

    def lookup(self, name: str, as_of: date) -> ParamValue | NoValue:
        s = self.series.get(name)
        if s is None:
            return NoValue(name, as_of, "no parameter of that name")
        return s.lookup(as_of)

    def coverage_gaps(self, name: str, start: date, end: date) -> list[tuple[date, date]]:
        """The sub-periods of [start, end) where `name` has no value."""
        s = self.series.get(name)
        if s is None:
            return [(start, end)]
        gaps, cursor = [], start
        for v in s.values:
            if cursor >= end:
                break
            if v.end is not None and v.end <= cursor:
                continue
            if v.start > cursor:
                gaps.append((cursor, min(v.start, end)))
            cursor = max(cursor, v.end if v.end is not None else date.max)
        if cursor < end:
            gaps.append((cursor, end))
        return gaps

    def to_dict(self) -> dict[str, Any]:
        return {n: [v.to_dict() for v in s.values] for n, s in sorted(self.series.items())}


# -- reading parameter files ----------------------------------------------------------------


class ParameterFileError(ValueError):
    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def _date(value: Any, where: str) -> date:
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value)
        except ValueError:
            pass
    raise ParameterFileError(f"{where}: expected a date YYYY-MM-DD, got {value!r}")


def _line_index(text: str) -> dict[str, list[int]]:
    """`[[name.values]]` header lines per parameter name, and `[name]` lines (key '')."""
    out: dict[str, list[int]] = {}
    for n, line in enumerate(text.splitlines(), 1):
        m = re.match(r"\s*\[\[\s*([A-Za-z0-9_]+)\.values\s*\]\]", line)
        if m:
            out.setdefault(m.group(1), []).append(n)
            continue
        m = re.match(r"\s*\[\s*([A-Za-z0-9_]+)\s*\]", line)
        if m:
            out.setdefault("[" + m.group(1), []).append(n)
    return out


def read_parameter_file(path: Path) -> tuple[list[ParamSpec], list[Issue]]:
    """Parse one `*.params.toml`; a bad entry is an Issue naming file and line, others load."""
    file = str(path)
    issues: list[Issue] = []
    read = read_toml(path, "param-syntax")
    if isinstance(read, Issue):
        return [], [read]
    text, data = read
    lines = _line_index(text)
    specs = []
    for name, body in data.items():
        line = (lines.get("[" + name) or [0])[0]
        if not isinstance(body, dict):
            issues.append(Issue("error", "param-syntax", f"{name}: expected a table", file, line))
            continue
        if not re.fullmatch(r"[a-z][A-Za-z0-9_]*", name):
            issues.append(Issue("error", "param-syntax",
                                f"{name}: parameter names start with a lowercase letter and use "
                                "letters, digits and '_'", file, line))
            continue
        try:
            spec = _spec(name, body, file, line, lines.get(name, []))
        except ParameterFileError as exc:
            issues.append(Issue("error", "param-syntax", str(exc), file, exc.line or line))
            continue
        specs.append(spec)
    return specs, issues


def _spec(name: str, body: dict[str, Any], file: str, line: int,
          value_lines: list[int]) -> ParamSpec:
    known = {"title", "unit", "provision", "ingest", "values", "until"}
    extra = set(body) - known
    if extra:
        raise ParameterFileError(f"{name}: unknown key(s) {', '.join(sorted(extra))}")
    provision = body.get("provision")
    if not isinstance(provision, str) or not provision.startswith("/"):
        raise ParameterFileError(
            f"{name}: 'provision' must be a canonical id like /us/usc/t11/s547/c/9")
    ingest = body.get("ingest", {})
    if not isinstance(ingest, dict):
        raise ParameterFileError(f"{name}: 'ingest' must be a table")
    bad = set(ingest) - {"node_id", "series", "pick", "from", "until"}
    if bad:
        raise ParameterFileError(f"{name}: unknown ingest key(s) {', '.join(sorted(bad))}")
    node_ids = ingest.get("node_id", ())
    node_ids = (node_ids,) if isinstance(node_ids, str) else tuple(node_ids)
    pick = ingest.get("pick")
    if pick not in (None, "min", "max"):
        raise ParameterFileError(f"{name}: ingest.pick must be 'min' or 'max'")
    spec = ParamSpec(
        name=name, title=str(body.get("title", "")), unit=str(body.get("unit", "USD")),
        provision=provision.rstrip("/"), file=file, line=line, ingest_node_ids=node_ids,
        ingest_series=ingest.get("series"), ingest_pick=pick,
        ingest_from=_date(ingest["from"], f"{name}.ingest.from") if "from" in ingest else None,
        ingest_until=_date(ingest["until"], f"{name}.ingest.until") if "until" in ingest else None,
        until=_date(body["until"], f"{name}.until") if "until" in body else None,
    )
    values = body.get("values", [])
    if not isinstance(values, list):
        raise ParameterFileError(f"{name}: 'values' must be an array of tables [[{name}.values]]")
    for i, entry in enumerate(values):
        vline = value_lines[i] if i < len(value_lines) else line
        where = f"{name}.values[{i}]"
        if not isinstance(entry, dict):
            raise ParameterFileError(f"{where}: expected a table", vline)
        bad = set(entry) - {"from", "to", "value", "source", "citation", "note"}
        if bad:
            raise ParameterFileError(f"{where}: unknown key(s) {', '.join(sorted(bad))}", vline)
        for key in ("from", "value", "source"):
            if key not in entry:
                raise ParameterFileError(f"{where}: missing '{key}'", vline)
        raw = entry["value"]
        if isinstance(raw, bool) or not isinstance(raw, int | float):
            raise ParameterFileError(f"{where}: value must be a number, got {raw!r}", vline)
        try:
            start = _date(entry["from"], f"{where}.from")
            end = _date(entry["to"], f"{where}.to") if "to" in entry else None
        except ParameterFileError as exc:
            raise ParameterFileError(str(exc), vline) from None
        if end is not None and end <= start:
            raise ParameterFileError(f"{where}: 'to' {end} is not after 'from' {start}", vline)
        pv = ParamValue(name, normalize_number(raw), start, end, str(entry["source"]),
                        str(entry.get("citation", spec.provision)), "library",
                        str(entry.get("note", "")))
        spec.values.append((pv, vline, "to" not in entry))
    return spec


# -- ingested thresholds --------------------------------------------------------------------


class ThresholdSourceError(RuntimeError):
    pass


def _num(value: Any) -> int | Decimal | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float | Decimal):
        return normalize_number(value)
    if isinstance(value, str):
        text = value.replace("$", "").replace(",", "").strip()
        try:
            return normalize_number(Decimal(text))
        except Exception:
            return None
    return None


def _as_date(value: Any) -> date | None:
    if value is None:
        return None
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value)[:10])
    except ValueError:
        return None


def records_from_facts(facts: Iterable[Any]) -> list[ThresholdRecord]:
    """THRESHOLD facts (`structfirst.ingest.model.Fact`) as records; other kinds are skipped."""
    out = []
    for f in facts:
        if str(getattr(f, "kind", "")) != "threshold":
            continue
        attrs = dict(getattr(f, "attrs", {}) or {})
        rec = _record(f.node_id, f.value, f.effective_from, f.effective_to, attrs.get("series"),
                      attrs, getattr(getattr(f, "provenance", None), "source_id", None))
        if rec is not None:
            out.append(rec)
    return out


def _record(node_id: str, value: Any, start: Any, end: Any, series: Any, attrs: Mapping[str, Any],
            source_id: str | None) -> ThresholdRecord | None:
    num, begin = _num(value), _as_date(start)
    if num is None or begin is None or not node_id:
        return None
    return ThresholdRecord(
        node_id=str(node_id).rstrip("/"), value=num, effective_from=begin,
        effective_to=_as_date(end), series=None if series is None else str(series),
        notice_citation=_str_or_none(attrs.get("notice_citation")),
        notice_date=_str_or_none(attrs.get("notice_date")),
        old_value=_num(attrs.get("old_value")), row_label=_str_or_none(attrs.get("row_label")),
        source_id=source_id,
    )


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def records_from_index(
    index_dir: Path | str, snapshot_id: str | None = None
) -> list[ThresholdRecord]:
    """THRESHOLD facts from the DuckDB `facts` table of the current snapshot (or the one
    named)."""
    from structfirst.ingest.duckdb_store import connect_readonly
    from structfirst.ingest.snapshot import open_snapshot

    snap = open_snapshot(Path(index_dir), snapshot_id)
    with connect_readonly(snap.store_path) as con:
        cur = con.execute("SELECT * FROM facts WHERE kind = 'threshold'")
        names = [d[0] for d in cur.description]
        rows = [dict(zip(names, row, strict=True)) for row in cur.fetchall()]
    out = []
    for row in rows:
        attrs = row.get("attrs") or {}
        if isinstance(attrs, str):
            try:
                attrs = json.loads(attrs)
            except json.JSONDecodeError:
                attrs = {}
        value = row.get("value_num") if row.get("value_num") is not None else row.get("value_text")
        rec = _record(row.get("node_id", ""), value, row.get("effective_from"),
                      row.get("effective_to"), row.get("series", attrs.get("series")), attrs,
                      row.get("source_id"))
        if rec is not None:
            out.append(rec)
    return out


_EDITIONS_LOCK = threading.Lock()
_RECORD_FIELDS = ("node_id", "value", "effective_from", "effective_to", "series",
                  "notice_citation", "notice_date", "old_value", "row_label", "source_id")


def cache_dir() -> Path:
    """Where parsed thresholds are kept between runs: `$STRUCTFIRST_CACHE_DIR`, else
    `~/.cache/structfirst`."""
    return Path(os.environ.get("STRUCTFIRST_CACHE_DIR", Path.home() / ".cache" / "structfirst"))


def _sources(parser_file: Path) -> list[Path]:
    """The parser's module and the structfirst.ingest modules it imports, transitively."""
    seen: dict[Path, None] = {}
    todo = [parser_file]
    while todo:
        path = todo.pop()
        if path in seen or not path.is_file():
            continue
        seen[path] = None
        for name in re.findall(r"structfirst\.ingest\.(\w+)", path.read_text(encoding="utf-8")):
            todo.append(parser_file.parent / f"{name}.py")
    return sorted(seen)


def _cache_key(paths: Sequence[str], parser_file: str | None) -> str:
    """The editions' names, sizes and times, and the source of the parser's modules."""
    h = hashlib.sha256()
    for p in paths:
        st = os.stat(p)
        h.update(f"{p}\x1f{st.st_size}\x1f{st.st_mtime_ns}\n".encode())
    if parser_file:
        for source in _sources(Path(parser_file)):
            h.update(source.read_bytes())
    return h.hexdigest()[:24]


def _to_json(rec: ThresholdRecord) -> dict[str, Any]:
    out = {}
    for name in _RECORD_FIELDS:
        v = getattr(rec, name)
        if isinstance(v, date):
            v = v.isoformat()
        elif isinstance(v, Decimal):
            v = str(v)
        out[name] = v
    return out


def _from_json(row: dict[str, Any]) -> ThresholdRecord:
    return ThresholdRecord(
        node_id=row["node_id"], value=_num(row["value"]) or 0,
        effective_from=date.fromisoformat(row["effective_from"]),
        effective_to=_as_date(row["effective_to"]), series=row["series"],
        notice_citation=row["notice_citation"], notice_date=row["notice_date"],
        old_value=_num(row["old_value"]), row_label=row["row_label"], source_id=row["source_id"])


@functools.cache
def _edition_records_cached(paths: tuple[str, ...]) -> tuple[ThresholdRecord, ...]:
    try:
        from structfirst.ingest import dollar_adjustments
    except ImportError as exc:
        raise ThresholdSourceError(
            "structfirst.ingest.dollar_adjustments.parse_adjustments is not available "
            f"({exc}); give --index with an ingested snapshot instead"
        ) from exc
    cache_file = cache_dir() / f"thresholds-{_cache_key(paths, dollar_adjustments.__file__)}.json"
    try:
        return tuple(_from_json(r) for r in json.loads(cache_file.read_text()))
    except (OSError, ValueError, KeyError, TypeError):
        pass  # no usable cache: parse the editions
    out: list[ThresholdRecord] = []
    for path in paths:
        out += records_from_facts(dollar_adjustments.parse_adjustments(Path(path)))
    try:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache_file.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps([_to_json(r) for r in out]))
        os.replace(tmp, cache_file)
    except OSError:
        pass  # a read-only home: parse again next time
    return tuple(out)


def records_from_editions(paths: Sequence[Path] | None = None) -> list[ThresholdRecord]:
    """THRESHOLD facts parsed from the shared Title 11 editions by
    `structfirst.ingest.dollar_adjustments`; cached for the process and on disk (keyed by the
    editions' sizes and times and the parser's source)."""
    if paths is None:
        from structfirst.ingest.corpus import title11_editions

        try:
            paths = title11_editions()
        except FileNotFoundError as exc:
            raise ThresholdSourceError(str(exc)) from exc
    if not paths:
        raise ThresholdSourceError("no Title 11 editions found")
    with _EDITIONS_LOCK:
        return list(_edition_records_cached(tuple(str(p) for p in paths)))


# -- merging --------------------------------------------------------------------------------


def _matches(spec: ParamSpec, rec: ThresholdRecord) -> bool:
    if rec.node_id not in spec.ingest_node_ids:
        return False
    if spec.ingest_series is not None and rec.series != spec.ingest_series:
        return False
    if spec.ingest_from is not None and rec.effective_from < spec.ingest_from:
        return False
    if spec.ingest_until is not None and rec.effective_from >= spec.ingest_until:
        return False
    return True


def _ingested_value(spec: ParamSpec, rec: ThresholdRecord) -> ParamValue:
    notice = rec.notice_citation or "§104 adjustment notice"
    if rec.notice_date:
        notice += f" ({rec.notice_date})"
    where = f"; read from the §104 note of {rec.source_id}" if rec.source_id else ""
    return ParamValue(spec.name, rec.value, rec.effective_from, None, notice + where,
                      spec.provision, "ingested")


def build_table(specs: Sequence[ParamSpec], records: Sequence[ThresholdRecord] = (),
                issues: Sequence[Issue] = (), ingested_source: str = "none") -> ParameterTable:
    """Merge library values with ingested records into one series per parameter."""
    out_issues = list(issues)
    series: dict[str, ParamSeries] = {}
    for spec in specs:
        if spec.name in series:
            out_issues.append(Issue("error", "param-duplicate",
                                    f"parameter {spec.name} is defined twice", spec.file,
                                    spec.line))
            continue
        # ingested values of this parameter, one per start date
        by_start: dict[date, list[ThresholdRecord]] = {}
        for rec in records:
            if _matches(spec, rec):
                by_start.setdefault(rec.effective_from, []).append(rec)
        ingested: dict[date, tuple[ParamValue, ThresholdRecord]] = {}
        for start, recs in sorted(by_start.items()):
            values = sorted({r.value for r in recs})
            if spec.ingest_pick == "min":
                values = values[:1]
            elif spec.ingest_pick == "max":
                values = values[-1:]
            if len(values) > 1:
                out_issues.append(Issue(
                    "error", "param-conflict",
                    f"{spec.name}: the ingested facts give {len(values)} values from {start} "
                    f"({', '.join(map(str, values))}); set ingest.pick or ingest.series",
                    spec.file, spec.line))
            chosen = next(r for r in recs if r.value == values[0])
            ingested[start] = (_ingested_value(spec, chosen), chosen)
        merged: dict[date, ParamValue] = {s: pv for s, (pv, _) in ingested.items()}
        explicit_end: dict[date, date] = {}
        for pv, vline, _open in spec.values:
            if pv.start in ingested:
                ing = ingested[pv.start][0]
                if ing.value != pv.value:
                    out_issues.append(Issue(
                        "error", "param-conflict",
                        f"{spec.name}: the library gives {pv.value} from {pv.start} but the "
                        f"ingested §104 table gives {ing.value} ({ing.source}); the ingested "
                        "value is used", spec.file, vline))
            else:
                merged[pv.start] = pv
            if pv.end is not None:
                explicit_end[pv.start] = pv.end
        starts = sorted(merged)
        final: list[ParamValue] = []
        for i, start in enumerate(starts):
            pv = merged[start]
            nxt = starts[i + 1] if i + 1 < len(starts) else None
            end = explicit_end.get(start)
            if nxt is not None:
                end = nxt if end is None or end > nxt else end
            elif end is None:
                end = spec.until
            if spec.until is not None and end is not None and end > spec.until:
                end = spec.until
            if spec.until is not None and start >= spec.until:
                out_issues.append(Issue("warning", "param-after-until",
                                        f"{spec.name}: value from {start} is after the series "
                                        f"ends ({spec.until}); ignored", spec.file, spec.line))
                continue
            final.append(ParamValue(pv.name, pv.value, pv.start, end, pv.source, pv.citation,
                                    pv.origin, pv.note))
        # an ingested adjustment names the amount it replaced: check it against the series
        for i, pv in enumerate(final):
            got = ingested.get(pv.start)
            if got is None or got[1].old_value is None or i == 0:
                continue
            prev = final[i - 1]
            if prev.end == pv.start and prev.value != got[1].old_value:
                out_issues.append(Issue(
                    "warning", "param-old-value",
                    f"{spec.name}: the {pv.start} adjustment replaced {got[1].old_value}, but the "
                    f"series has {prev.value} before it ({prev.source})", spec.file, spec.line))
        series[spec.name] = ParamSeries(spec, final)
    return ParameterTable(series, out_issues, ingested_source)


def load_parameter_files(paths: Iterable[Path]) -> tuple[list[ParamSpec], list[Issue]]:
    specs, issues = [], []
    for path in sorted(paths):
        s, i = read_parameter_file(path)
        specs += s
        issues += i
    return specs, issues
