"""The snapshot's DuckDB store (`store.duckdb`): versions, edges, facts, unresolved refs, sources.

Tables (one row per ...):

- `artifacts` (version): version_id (primary key), node_id, type, citation, heading, text,
  hierarchy_path ("Title 11 > Chapter 5 > § 547 Preferences > (c) > (9)"), parent_version_id,
  jurisdiction, authority, effective_from, effective_to (DATE, half-open; NULL = open),
  source_id, span_start, span_end, parser_version, confidence, prov_id, family, attrs (JSON).
- `edges`: src, dst (version ids, or the ids of Jurisdiction/Authority/Date nodes), type,
  source_id, span_start, span_end, parser_version, confidence, prov_id, attrs (JSON).
- `facts`: fact_id, version_id (NULL when the node has no version), node_id, kind, value_num
  (DOUBLE; numeric values), value_text (ISO date or other text values), text, unit,
  effective_from, effective_to, series (threshold series), source_id, span_start, span_end,
  parser_version, confidence, prov_id, attrs (JSON).
- `unresolved_refs`: src_version_id, src_node_id, text, reason, source_id, span_start,
  span_end, parser_version, prov_id.
- `sources`: source_id, path, sha256, bytes, format, parser_version, family, edition_name,
  effective_from, laws_enacted_through, document_number, nodes, edges, facts, unresolved,
  warnings (JSON list).

All values go in through Arrow tables registered on the connection or `?` parameters, never by
string formatting. `valid_version_ids`, `get_artifacts` and `threshold_series` are the read
helpers of the query path.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
from structfirst.ingest.model import Fact, Node, Provenance, UnresolvedRef
from structfirst.ingest.versioning import VersionedCorpus, prov_id_of

STORE_FILE = "store.duckdb"

# a Provenance, flattened (`_provenance_values`), in the artifacts, edges and facts tables
_PROVENANCE_COLUMNS = [
    ("source_id", "VARCHAR"),
    ("span_start", "BIGINT"),
    ("span_end", "BIGINT"),
    ("parser_version", "VARCHAR"),
    ("confidence", "DOUBLE"),
    ("prov_id", "VARCHAR"),
]
SCHEMA: dict[str, list[tuple[str, str]]] = {
    "artifacts": [
        ("version_id", "VARCHAR PRIMARY KEY"),
        ("node_id", "VARCHAR NOT NULL"),
        ("type", "VARCHAR NOT NULL"),
        ("citation", "VARCHAR"),
        ("heading", "VARCHAR"),
        ("text", "VARCHAR"),
        ("hierarchy_path", "VARCHAR"),
        ("parent_version_id", "VARCHAR"),
        ("jurisdiction", "VARCHAR"),
        ("authority", "VARCHAR"),
        ("effective_from", "DATE"),
        ("effective_to", "DATE"),
        *_PROVENANCE_COLUMNS,
        ("family", "VARCHAR"),
        ("attrs", "JSON"),
    ],
    "edges": [
        ("src", "VARCHAR NOT NULL"),
        ("dst", "VARCHAR NOT NULL"),
        ("type", "VARCHAR NOT NULL"),
        *_PROVENANCE_COLUMNS,
        ("attrs", "JSON"),
    ],
    "facts": [
        ("fact_id", "VARCHAR NOT NULL"),
        ("version_id", "VARCHAR"),
        ("node_id", "VARCHAR NOT NULL"),
        ("kind", "VARCHAR NOT NULL"),
        ("value_num", "DOUBLE"),
        ("value_text", "VARCHAR"),
        ("text", "VARCHAR"),
        ("unit", "VARCHAR"),
        ("effective_from", "DATE"),
        ("effective_to", "DATE"),
        ("series", "VARCHAR"),
        *_PROVENANCE_COLUMNS,
        ("attrs", "JSON"),
    ],
    "unresolved_refs": [
        ("src_version_id", "VARCHAR NOT NULL"),
        ("src_node_id", "VARCHAR NOT NULL"),
        ("text", "VARCHAR"),
        ("reason", "VARCHAR"),
        ("source_id", "VARCHAR"),
        ("span_start", "BIGINT"),
        ("span_end", "BIGINT"),
        ("parser_version", "VARCHAR"),
        ("prov_id", "VARCHAR"),
    ],
    "sources": [
        ("source_id", "VARCHAR PRIMARY KEY"),
        ("path", "VARCHAR"),
        ("sha256", "VARCHAR"),
        ("bytes", "BIGINT"),
        ("format", "VARCHAR"),
        ("parser_version", "VARCHAR"),
        ("family", "VARCHAR"),
        ("edition_name", "VARCHAR"),
        ("effective_from", "DATE"),
        ("laws_enacted_through", "DATE"),
        ("document_number", "VARCHAR"),
        ("nodes", "BIGINT"),
        ("edges", "BIGINT"),
        ("facts", "BIGINT"),
        ("unresolved", "BIGINT"),
        ("warnings", "JSON"),
    ],
}
INDEXES = (
    "CREATE INDEX artifacts_node ON artifacts (node_id)",
    "CREATE INDEX edges_src ON edges (src)",
    "CREATE INDEX edges_dst ON edges (dst)",
    "CREATE INDEX facts_node ON facts (node_id)",
)
_ARROW_TYPES = {
    "VARCHAR": pa.string(),
    "JSON": pa.string(),
    "DATE": pa.date32(),
    "BIGINT": pa.int64(),
    "DOUBLE": pa.float64(),
}


def _arrow_type(sql_type: str) -> pa.DataType:
    return _ARROW_TYPES[sql_type.split()[0]]


def create_schema(con: duckdb.DuckDBPyConnection) -> None:
    for table, cols in SCHEMA.items():
        columns = ", ".join(f"{name} {sql}" for name, sql in cols)
        con.execute(f"CREATE TABLE IF NOT EXISTS {table} ({columns})")


def insert_rows(con: duckdb.DuckDBPyConnection, table: str, rows: Iterable[Sequence[Any]]) -> int:
    """Bulk-insert rows (tuples in schema column order) through one Arrow table."""
    cols = SCHEMA[table]
    columns: list[list[Any]] = [[] for _ in cols]
    count = 0
    for row in rows:
        for i, value in enumerate(row):
            columns[i].append(value)
        count += 1
    if not count:
        return 0
    arrow = pa.table(
        {
            name: pa.array(values, type=_arrow_type(sql))
            for (name, sql), values in zip(cols, columns, strict=True)
        }
    )
    con.register("_incoming", arrow)
    try:
        con.execute(f"INSERT INTO {table} SELECT * FROM _incoming")
    finally:
        con.unregister("_incoming")
    return count


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _provenance_values(prov: Provenance) -> tuple[Any, ...]:
    """The values of `_PROVENANCE_COLUMNS`."""
    return (
        prov.source_id,
        prov.span[0],
        prov.span[1],
        prov.parser_version,
        prov.confidence,
        prov_id_of(prov),
    )


def _artifact_row(node: Node, parent: str | None) -> tuple[Any, ...]:
    attrs = dict(node.attrs)
    return (
        node.version_id,
        node.id,
        str(node.type),
        node.citation,
        node.heading,
        node.text,
        attrs.pop("hierarchy_path", None),
        parent,
        node.jurisdiction,
        str(node.authority),
        node.effective_from,
        node.effective_to,
        *_provenance_values(node.provenance),
        attrs.pop("family", None),
        _json(attrs),
    )


def _fact_row(fact: Fact) -> tuple[Any, ...]:
    attrs = dict(fact.attrs)
    vid = attrs.pop("version_id", None)
    series = attrs.pop("series", None)
    numeric = isinstance(fact.value, int | float) and not isinstance(fact.value, bool)
    return (
        fact.fact_id,
        vid,
        fact.node_id,
        str(fact.kind),
        float(fact.value) if numeric else None,
        None if numeric else str(fact.value),
        fact.text,
        fact.unit,
        fact.effective_from,
        fact.effective_to,
        None if series is None else str(series),
        *_provenance_values(fact.provenance),
        _json(attrs),
    )


def _unresolved_row(ref: UnresolvedRef) -> tuple[Any, ...]:
    prov = ref.provenance
    return (
        ref.src,
        ref.src.split("@", 1)[0],
        ref.text,
        ref.reason,
        prov.source_id,
        prov.span[0],
        prov.span[1],
        prov.parser_version,
        prov_id_of(prov),
    )


def write_store(
    path: Path, corpus: VersionedCorpus, sources: Sequence[dict[str, Any]]
) -> dict[str, int]:
    """Write a fresh store at `path` (which must not exist); returns the row count per table."""
    path = Path(path)
    if path.exists():
        raise FileExistsError(f"{path}: store already exists")
    counts: dict[str, int] = {}
    con = duckdb.connect(str(path))
    try:
        create_schema(con)
        con.execute("BEGIN TRANSACTION")
        counts["artifacts"] = insert_rows(
            con,
            "artifacts",
            (_artifact_row(n, corpus.parent_version.get(n.version_id)) for n in corpus.nodes),
        )
        counts["edges"] = insert_rows(
            con,
            "edges",
            (
                (e.src, e.dst, str(e.type), *_provenance_values(e.provenance), _json(e.attrs))
                for e in corpus.edges
            ),
        )
        counts["facts"] = insert_rows(con, "facts", (_fact_row(f) for f in corpus.facts))
        counts["unresolved_refs"] = insert_rows(
            con, "unresolved_refs", (_unresolved_row(r) for r in corpus.unresolved)
        )
        names = [name for name, _ in SCHEMA["sources"]]
        counts["sources"] = insert_rows(
            con,
            "sources",
            (tuple(_source_value(s, n) for n in names) for s in sources),
        )
        con.execute("COMMIT")
        for ddl in INDEXES:
            con.execute(ddl)
        con.execute("CHECKPOINT")
    finally:
        con.close()
    return counts


def _source_value(source: dict[str, Any], name: str) -> Any:
    value = source.get(name)
    if name == "warnings":
        return _json(value or [])
    if name in ("effective_from", "laws_enacted_through") and isinstance(value, str):
        return date.fromisoformat(value)
    return value


@contextmanager
def connect_readonly(path: Path | str) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection to a snapshot's store; FileNotFoundError names a missing store."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no DuckDB store there")
    con = duckdb.connect(str(path), read_only=True)
    try:
        yield con
    finally:
        con.close()


# -- read helpers for the query path --------------------------------------------------------


def valid_version_ids(
    con: duckdb.DuckDBPyConnection,
    as_of: date,
    jurisdiction: str | None = None,
    authorities: set[str] | frozenset[str] | None = None,
) -> set[str]:
    """Version ids valid at `as_of`, in `jurisdiction` (a path prefix: "us-federal" admits
    "us-federal/cfpb") and of one of `authorities` (all when None)."""
    sql = (
        "SELECT version_id FROM artifacts WHERE (effective_from IS NULL OR effective_from <= ?) "
        "AND (effective_to IS NULL OR ? < effective_to)"
    )
    params: list[Any] = [as_of, as_of]
    if jurisdiction is not None:
        sql += " AND (jurisdiction = ? OR starts_with(jurisdiction, ?))"
        params += [jurisdiction, jurisdiction + "/"]
    if authorities is not None:
        if not authorities:
            return set()
        sql += " AND list_contains(?, authority)"
        params.append(sorted(authorities))
    return {row[0] for row in con.execute(sql, params).fetchall()}


def _records(cur: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """The rows of an executed query as dicts, their JSON `attrs` decoded ({} when NULL)."""
    names = [d[0] for d in cur.description]
    out = []
    for row in cur.fetchall():
        rec = dict(zip(names, row, strict=True))
        rec["attrs"] = json.loads(rec["attrs"]) if rec["attrs"] else {}
        out.append(rec)
    return out


def get_artifacts(
    con: duckdb.DuckDBPyConnection, version_ids: Iterable[str]
) -> list[dict[str, Any]]:
    """Artifact rows of `version_ids` (attrs decoded), in the order asked; unknown ids skipped."""
    ids = list(dict.fromkeys(version_ids))
    if not ids:
        return []
    cur = con.execute("SELECT * FROM artifacts WHERE list_contains(?, version_id)", [ids])
    rows = {rec["version_id"]: rec for rec in _records(cur)}
    return [rows[i] for i in ids if i in rows]


def threshold_series(con: duckdb.DuckDBPyConnection, node_id: str) -> list[dict[str, Any]]:
    """Every dated value of the thresholds of `node_id`, by series then effective_from."""
    cur = con.execute(
        "SELECT series, value_num, text, unit, effective_from, effective_to, version_id, "
        "fact_id, source_id, span_start, span_end, attrs FROM facts "
        "WHERE kind = 'threshold' AND node_id = ? ORDER BY series, effective_from",
        [node_id],
    )
    return _records(cur)


def hierarchy_path(con: duckdb.DuckDBPyConnection, version_id: str) -> list[dict[str, Any]]:
    """The chain of versions from the root document down to `version_id` (inclusive)."""
    cur = con.execute(
        """
        WITH RECURSIVE
        up(version_id, parent_version_id, node_id, type, citation, heading, depth) AS (
            SELECT version_id, parent_version_id, node_id, type, citation, heading, 0
            FROM artifacts WHERE version_id = ?
            UNION ALL
            SELECT a.version_id, a.parent_version_id, a.node_id, a.type, a.citation, a.heading,
                   up.depth + 1
            FROM artifacts a JOIN up ON a.version_id = up.parent_version_id
            WHERE up.depth < 64
        )
        SELECT version_id, node_id, type, citation, heading FROM up ORDER BY depth DESC
        """,
        [version_id],
    )
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]
