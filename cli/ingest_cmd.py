"""`structfirst ingest` and `structfirst stats`."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

err = Console(stderr=True)
out = Console()

EXAMPLE_PROVISION = "/us/usc/t11/s547/c/9"
# unresolved references whose reason says the target lies outside the citing document; the
# others (a missing subsection of this title, a label absent from this version) count against
# the in-title resolution rate
OUT_OF_DOCUMENT = re.compile(
    r"not in this (title|document|part|regulation)|outside|other title|another title|external"
    r"|different title|not ingested",
    re.I,
)
_BUCKETS = ((1, 1), (2, 2), (3, 3), (4, 5), (6, 10), (11, 20), (21, 10**9))


def _fail(message: str) -> None:
    err.print(f"[red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code=1)


def ingest_command(
    sources: Annotated[list[Path], typer.Argument(help="Source files or directories.")],
    index: Annotated[Path, typer.Option("--index", help="Index directory (holds snapshots).")],
    no_dense: Annotated[
        bool, typer.Option("--no-dense", help="Build only the lexical index.")
    ] = False,
    no_colbert: Annotated[
        bool, typer.Option("--no-colbert", help="Build the lexical and dense indexes only.")
    ] = False,
    no_progress: Annotated[bool, typer.Option("--no-progress", help="No progress bar.")] = False,
    pdf_jurisdiction: Annotated[
        str, typer.Option(help="Jurisdiction of PDF sources (e.g. us-ia).")
    ] = "us-federal",
    pdf_authority: Annotated[str, typer.Option(help="Authority of PDF sources.")] = "statute",
    declare_jurisdiction: Annotated[
        list[str] | None,
        typer.Option(help="A new jurisdiction JSONL sources may use (repeatable)."),
    ] = None,
    strict: Annotated[
        bool,
        typer.Option(help="Refuse a US Code file missing sections its table of contents lists."),
    ] = False,
    ray: Annotated[
        str | None,
        typer.Option("--ray", help="Parse and dense-encode on Ray: a cluster address or 'local'."),
    ] = None,
    workers: Annotated[
        int, typer.Option("--workers", help="With --ray: encoder actors (and local Ray's CPUs).")
    ] = 1,
) -> None:
    """Parse SOURCES into a new snapshot of the index and make it current."""
    from structfirst.ingest.model import Authority, IngestError
    from structfirst.ingest.pipeline import ingest
    from structfirst.ingest.ray_ingest import RayIngest
    from structfirst.ingest.snapshot import SnapshotError

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    try:
        authority = Authority(pdf_authority)
    except ValueError:
        _fail(f"--pdf-authority must be one of {', '.join(a.value for a in Authority)}")
        return
    if workers < 1 or (workers > 1 and ray is None):
        _fail(f"--workers {workers}: a positive count of Ray workers, with --ray")
        return
    cluster = RayIngest(ray, workers) if ray else None
    try:
        info = ingest(
            sources,
            index,
            progress=not no_progress,
            dense=not no_dense,
            colbert=not no_colbert,
            parser_options={
                "pdf": {"jurisdiction": pdf_jurisdiction, "authority": authority},
                "jsonl": {"jurisdictions": tuple(declare_jurisdiction or ())},
                "uscode": {"strict": strict},
            },
            console=err,
            ray=cluster,
        )
    except (IngestError, SnapshotError, FileNotFoundError) as exc:
        _fail(f"{exc} (the previous snapshot, if any, is still current)")
        return
    finally:
        if cluster is not None:
            cluster.close()
    table = Table(title=f"snapshot {info.snapshot_id}", show_header=False)
    table.add_row("path", str(info.path))
    table.add_row("sources", f"{len(info.sources)} ingested, {len(info.skipped)} skipped")
    for name, count in info.counts.items():
        table.add_row(name, f"{count:,}")
    for name, figures in info.indexes.items():
        table.add_row(f"index {name}", _short(figures))
    table.add_row("seconds", f"{info.seconds.get('total', 0):.1f} (" + ", ".join(
        f"{stage} {s:.1f}" for stage, s in info.seconds.items() if stage != "total") + ")")
    table.add_row("artifacts/s", f"{info.artifacts_per_second:,.0f}")
    out.print(table)
    for path, reason in info.skipped[:10]:
        err.print(f"[dim]skipped {path}: {reason}[/]", highlight=False)
    if len(info.skipped) > 10:
        err.print(f"[dim]... and {len(info.skipped) - 10} more skipped[/]")
    if info.warnings:
        err.print(f"[yellow]{len(info.warnings)} warnings[/] (listed in meta.json)")


def _short(figures: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in figures.items() if not isinstance(v, dict | list))


def stats_command(
    index: Annotated[Path, typer.Option("--index", help="Index directory.")],
    node: Annotated[
        str, typer.Option("--node", help="A provision whose versions to list.")
    ] = EXAMPLE_PROVISION,
    top: Annotated[int, typer.Option("--top", help="Examples to show per table.")] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """Counts, versions, thresholds and unresolved references of the current snapshot."""
    from structfirst.ingest.duckdb_store import connect_readonly
    from structfirst.ingest.snapshot import SnapshotError, open_snapshot

    try:
        snap = open_snapshot(index)
    except (SnapshotError, FileNotFoundError) as exc:
        _fail(str(exc))
        return
    try:
        with connect_readonly(snap.store_path) as con:
            figures = collect_stats(con, node, top)
    except Exception as exc:  # a corrupt store: say so without a traceback
        _fail(f"{snap.store_path}: cannot read the store ({type(exc).__name__}: {exc})")
        return
    figures["snapshot"] = {
        "id": snap.snapshot_id,
        "path": str(snap.path),
        "created_at": snap.meta.get("created_at"),
        "sources": len(snap.sources),
    }
    if as_json:
        out.print_json(json.dumps(figures, default=str))
        return
    render_stats(figures)


def collect_stats(con: Any, node: str, top: int) -> dict[str, Any]:
    q = con.execute
    figures: dict[str, Any] = {}
    figures["node_types"] = q(
        "SELECT type, count(*), count(DISTINCT node_id) FROM artifacts GROUP BY type "
        "ORDER BY 2 DESC"
    ).fetchall()
    figures["edge_types"] = q(
        "SELECT type, count(*) FROM edges GROUP BY type ORDER BY 2 DESC"
    ).fetchall()
    per_node = q(
        "SELECT node_id, count(*) AS n FROM artifacts WHERE type IN ('Section', 'Clause') "
        "GROUP BY node_id"
    ).fetchall()
    counts = [n for _, n in per_node]
    figures["provisions"] = len(counts)
    figures["versions_total"] = sum(counts)
    figures["versions_per_provision"] = [
        (
            f"{lo}" if lo == hi else (f"{lo}-{hi}" if hi < 10**9 else f"{lo}+"),
            sum(1 for c in counts if lo <= c <= hi),
        )
        for lo, hi in _BUCKETS
    ]
    figures["most_versions"] = q(
        "SELECT node_id, count(*) AS n, min(effective_from), max(effective_from) FROM artifacts "
        "WHERE type IN ('Section', 'Clause') GROUP BY node_id ORDER BY n DESC, node_id LIMIT ?",
        [top],
    ).fetchall()
    figures["example"] = {
        "node_id": node,
        "versions": q(
            "SELECT version_id, effective_from, effective_to, text FROM artifacts "
            "WHERE node_id = ? ORDER BY effective_from",
            [node],
        ).fetchall(),
    }
    figures["threshold_series"] = q(
        "SELECT node_id, series, count(*), min(effective_from), max(effective_from), "
        "arg_min(value_num, effective_from), arg_max(value_num, effective_from) FROM facts "
        "WHERE kind = 'threshold' GROUP BY node_id, series ORDER BY node_id, series"
    ).fetchall()
    figures["fact_kinds"] = q(
        "SELECT kind, count(*) FROM facts GROUP BY kind ORDER BY 2 DESC"
    ).fetchall()
    unresolved = q("SELECT reason, count(*) FROM unresolved_refs GROUP BY reason").fetchall()
    figures["unresolved_by_reason"] = sorted(unresolved, key=lambda r: -r[1])
    figures["unresolved_examples"] = q(
        "SELECT src_version_id, text, reason FROM unresolved_refs ORDER BY src_version_id, text "
        "LIMIT ?",
        [top],
    ).fetchall()
    resolved = q("SELECT count(*) FROM edges WHERE type = 'cross_refs'").fetchone()[0]
    in_doc = sum(n for reason, n in unresolved if not OUT_OF_DOCUMENT.search(reason or ""))
    figures["cross_refs"] = {
        "resolved": resolved,
        "unresolved_in_document": in_doc,
        "unresolved_elsewhere": sum(n for _, n in unresolved) - in_doc,
        "resolution_rate": resolved / (resolved + in_doc) if resolved + in_doc else None,
    }
    return figures


def render_stats(f: dict[str, Any]) -> None:
    s = f["snapshot"]
    out.print(f"[bold]snapshot[/] {s['id']}  ({s['sources']} sources, created {s['created_at']})")
    t = Table(title="artifacts by node type")
    for col in ("type", "versions", "provisions"):
        t.add_column(col, justify="right" if col != "type" else "left")
    for typ, n, d in f["node_types"]:
        t.add_row(typ, f"{n:,}", f"{d:,}")
    out.print(t)
    t = Table(title="edges by type")
    t.add_column("type")
    t.add_column("edges", justify="right")
    for typ, n in f["edge_types"]:
        t.add_row(typ, f"{n:,}")
    out.print(t)
    t = Table(
        title=f"versions per provision ({f['provisions']:,} sections and clauses, "
        f"{f['versions_total']:,} versions)"
    )
    t.add_column("versions")
    t.add_column("provisions", justify="right")
    for bucket, n in f["versions_per_provision"]:
        t.add_row(bucket, f"{n:,}")
    out.print(t)
    t = Table(title="provisions with the most versions")
    for col in ("node", "versions", "first", "last"):
        t.add_column(col)
    for node_id, n, first, last in f["most_versions"]:
        t.add_row(node_id, str(n), str(first), str(last))
    out.print(t)
    ex = f["example"]
    t = Table(title=f"versions of {ex['node_id']}")
    for col in ("version", "from", "to", "text"):
        t.add_column(col, overflow="fold")
    for vid, start, end, text in ex["versions"]:
        t.add_row(vid, str(start), str(end or "(current)"), _tail(text))
    out.print(t if ex["versions"] else f"[dim]no versions of {ex['node_id']}[/]")
    t = Table(title=f"threshold series ({len(f['threshold_series'])})")
    for col in ("provision", "series", "adjustments", "first", "last", "from value", "to value"):
        t.add_column(col)
    for row in f["threshold_series"]:
        node_id, series, n, first, last, v0, v1 = row
        t.add_row(node_id, str(series), str(n), str(first), str(last), _money(v0), _money(v1))
    out.print(t)
    cr = f["cross_refs"]
    rate = cr["resolution_rate"]
    out.print(
        f"[bold]cross-references[/]: {cr['resolved']:,} resolved edges, "
        f"{cr['unresolved_in_document']:,} unresolved in-title, "
        f"{cr['unresolved_elsewhere']:,} unresolved to other documents; in-title resolution "
        f"rate {'n/a' if rate is None else f'{rate:.1%}'}"
    )
    t = Table(title="unresolved references by reason")
    t.add_column("reason", overflow="fold")
    t.add_column("count", justify="right")
    for reason, n in f["unresolved_by_reason"][:15]:
        t.add_row(str(reason), f"{n:,}")
    out.print(t)
    t = Table(title="unresolved reference examples")
    for col in ("from", "text", "reason"):
        t.add_column(col, overflow="fold")
    for row in f["unresolved_examples"]:
        t.add_row(*(str(x) for x in row))
    out.print(t)


def _tail(text: str | None, width: int = 90) -> str:
    text = text or ""
    return text if len(text) <= width else "…" + text[-width:]


def _money(value: float | None) -> str:
    return "" if value is None else f"${value:,.0f}"


def verify_command(
    index: Annotated[Path, typer.Option("--index", help="Index directory.")],
    snapshot: Annotated[
        str | None, typer.Option("--snapshot", help="A snapshot id (default: the current one).")
    ] = None,
) -> None:
    """Check every file of a snapshot against the sizes and sha256s in its meta.json."""
    from structfirst.ingest.snapshot import FILES_KEY, SnapshotError, open_snapshot

    try:
        snap = open_snapshot(index, snapshot, full=True)
    except (SnapshotError, FileNotFoundError) as exc:
        _fail(str(exc))
        return
    files = snap.meta.get(FILES_KEY)
    if not isinstance(files, dict):
        _fail(f"snapshot {snap.snapshot_id} records no checksums (ingested before they were)")
        return
    total = sum(f.get("bytes", 0) for f in files.values())
    out.print(f"snapshot {snap.snapshot_id}: {len(files)} files, {total:,} bytes verified")


def rollback_command(
    index: Annotated[Path, typer.Option("--index", help="Index directory.")],
) -> None:
    """Make the newest verified snapshot older than the current one current."""
    from structfirst.ingest.snapshot import SnapshotError, current_id, rollback

    before = current_id(index)
    try:
        snap = rollback(index)
    except (SnapshotError, FileNotFoundError) as exc:
        _fail(str(exc))
        return
    out.print(f"CURRENT: {before} -> {snap.snapshot_id}")


def use_command(
    snapshot: Annotated[str, typer.Argument(help="The snapshot id to make current.")],
    index: Annotated[Path, typer.Option("--index", help="Index directory.")],
) -> None:
    """Verify SNAPSHOT and make it current."""
    from structfirst.ingest.snapshot import SnapshotError, use_snapshot

    try:
        snap = use_snapshot(index, snapshot)
    except (SnapshotError, FileNotFoundError) as exc:
        _fail(str(exc))
        return
    out.print(f"CURRENT: {snap.snapshot_id}")


def register(app: typer.Typer) -> None:
    """Add this module's commands to `app`."""
    app.command("ingest")(ingest_command)
    app.command("stats")(stats_command)
    app.command("verify")(verify_command)
    app.command("rollback")(rollback_command)
    app.command("use")(use_command)
