"""The risk-coverage report: one self-contained HTML page and its figures as PNG files.

    structfirst report --eval DIR --out DIR

From an evaluation folder (`metrics.json` and `runs/` written by `structfirst eval`) it draws:

- `risk_coverage.png`: selective risk against coverage for every configuration, answering the
  most confident first (a configuration without a confidence is ordered by its top fused
  score); the calibrated configuration's operating point (its theta) marked;
- `reliability.png`: accuracy against confidence in 10 equal-width bins, with the ECE, for every
  configuration that has a confidence;
- `ndcg_by_type.png`: nDCG@10 per query type and configuration, bars with 95% CI whiskers;

and writes `report.html` with the figures embedded (base64), the table of AURC, ECE, Brier and
selective accuracy with their CIs (from `metrics.json`), the protocol, snapshot id, query-set
hash and tuning record, and the calibrated configuration's abstentions grouped by reason with
three example questions each.
"""

from __future__ import annotations

import base64
import html
import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from structfirst.eval import metrics as M
from structfirst.eval.query_set import QUERY_TYPES, Query, load_queries, load_run

FIGURES = ("risk_coverage.png", "reliability.png", "ndcg_by_type.png")
TABLE_METRICS = ("aurc", "ece", "ece_floor", "brier", "selective_accuracy@90", "coverage@95",
                 "nDCG@10")
BINS = M.DEFAULT_BINS
EXAMPLES_PER_REASON = 3


class ReportError(ValueError):
    """An evaluation folder the report cannot read; the message names the file."""


@dataclass(slots=True)
class ConfigCurve:
    name: str
    calibrated: bool
    score: np.ndarray  # confidence, or the top fused score
    correct: np.ndarray
    answered_at_theta: float | None  # coverage of the operating point (calibrated only)
    accuracy_at_theta: float | None


def _read_json(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ReportError(f"{path}: missing (run `structfirst eval --out` first)") from None
    except json.JSONDecodeError as exc:
        raise ReportError(f"{path}: not JSON ({exc})") from None


def _outputs(path: Path) -> dict[str, dict[str, Any]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise ReportError(f"{path}: missing") from None
    return {(rec := json.loads(line))["qid"]: rec for line in lines if line.strip()}


def curves(
    metrics: dict[str, Any], queries: Sequence[Query], eval_dir: Path
) -> tuple[list[ConfigCurve], dict[str, dict[str, dict[str, Any]]]]:
    """Per configuration: the ordering score and correctness of every query (correct = the
    metrics' calibration target), and the raw outputs."""
    out, raw = [], {}
    for name, cfg in metrics["configurations"].items():
        outputs_path = eval_dir / "runs" / Path(cfg["outputs_file"]).name
        run_path = eval_dir / "runs" / Path(cfg["run_file"]).name
        run = load_run(run_path) if run_path.stat().st_size else {}
        records = M.per_query(queries, run, M.load_outputs(outputs_path))
        recs = _outputs(outputs_path)
        raw[name] = recs
        calibrated = bool(cfg.get("confidence"))  # its own or its top score's calibrator
        key = "confidence" if calibrated else "top_score"
        score = np.array([
            recs.get(q.qid, {}).get(key) if recs.get(q.qid, {}).get(key) is not None
            else -np.inf for q in queries
        ], dtype=float)
        correct = np.array([r.correct or 0.0 for r in records], dtype=float)
        cov = acc = None
        if cfg.get("calibration"):  # a calibrated decision: its operating point at theta
            answered = np.array([not recs.get(q.qid, {}).get("abstain", False) for q in queries])
            cov = float(answered.mean())
            acc = float(correct[answered].mean()) if answered.any() else None
        out.append(ConfigCurve(name, calibrated, score, correct, cov, acc))
    return out, raw


def risk_coverage(score: np.ndarray, correct: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(coverage k/N, selective risk of the k most confident), k = 1..N, ties averaged."""
    known = score[np.isfinite(score)]
    filled = np.where(np.isfinite(score), score, known.min() - 1.0 if known.size else 0.0)
    errors = M._expected_errors(filled, correct)
    k = np.arange(1, len(correct) + 1)
    return k / len(correct), errors / k


def reliability(p: np.ndarray, y: np.ndarray, bins: int = BINS) -> list[tuple[float, float, int]]:
    """(mean confidence, accuracy, count) of each non-empty equal-width bin."""
    idx = np.minimum((p * bins).astype(int), bins - 1)
    return [
        (float(p[idx == b].mean()), float(y[idx == b].mean()), int((idx == b).sum()))
        for b in range(bins)
        if (idx == b).any()
    ]


def _figures(
    found: list[ConfigCurve], metrics: dict[str, Any], out_dir: Path
) -> dict[str, Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = {name: out_dir / name for name in FIGURES}
    fig, ax = plt.subplots(figsize=(10, 5))
    ax.set_prop_cycle(color=plt.cm.tab20.colors)  # one colour per configuration, up to 20
    for c in found:
        cov, risk = risk_coverage(c.score, c.correct)
        label = c.name + ("" if c.calibrated else " (by raw top score)")
        ax.plot(cov, risk, label=label, lw=2.2 if c.calibrated else 1.4)
        if c.answered_at_theta is not None:
            risk_at = 1 - c.accuracy_at_theta if c.accuracy_at_theta is not None else 0.0
            ax.plot(c.answered_at_theta, risk_at, "k*", ms=14,
                    label=f"{c.name} at theta (coverage {c.answered_at_theta:.2f})")
    ax.axhline(0.05, color="grey", ls=":", lw=1, label="target risk 0.05")
    ax.set(xlabel="coverage (share of questions answered)", ylabel="selective risk (error rate)",
           title="Risk-coverage: answering the most confident first", xlim=(0, 1), ylim=(0, 1))
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    fig.savefig(paths["risk_coverage.png"], dpi=110, bbox_inches="tight")
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(5.5, 5))
    ax.plot([0, 1], [0, 1], color="grey", ls=":", lw=1, label="perfect calibration")
    for c in (c for c in found if c.calibrated):
        pts = reliability(c.score, c.correct)
        ece = M.ece(c.score, c.correct, bins=BINS)
        ax.plot([p for p, _, _ in pts], [a for _, a, _ in pts], "o-",
                label=f"{c.name} (ECE {ece:.3f}, {BINS} bins)")
        for p, a, n in pts:
            ax.annotate(str(n), (p, a), fontsize=7, xytext=(3, 3), textcoords="offset points")
    ax.set(xlabel="confidence (bin mean)", ylabel="accuracy in bin", xlim=(0, 1), ylim=(0, 1),
           title="Reliability diagram (bin sizes annotated)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(paths["reliability.png"], dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(9, 4.5))
    names = list(metrics["configurations"])
    width = 0.8 / max(1, len(names))
    groups = ["overall", *QUERY_TYPES]
    for i, name in enumerate(names):
        vals, lo, hi = [], [], []
        for g in groups:
            m = metrics["metrics"][name][g]["nDCG@10"]
            v = m["value"] if m["value"] is not None else 0.0
            vals.append(v)
            lo.append(v - (m["ci_low"] if m["ci_low"] is not None else v))
            hi.append((m["ci_high"] if m["ci_high"] is not None else v) - v)
        x = np.arange(len(groups)) + i * width
        ax.bar(x, vals, width, yerr=[lo, hi], capsize=2, label=name)
    ax.set_xticks(np.arange(len(groups)) + 0.4 - width / 2,
                  [g.replace("_", "\n") for g in groups], fontsize=8)
    ax.set(ylabel="nDCG@10", ylim=(0, 1), title="nDCG@10 per query type (95% bootstrap CI)")
    ax.legend(fontsize=8, ncol=min(4, len(names)))
    fig.tight_layout()
    fig.savefig(paths["ndcg_by_type.png"], dpi=110)
    plt.close(fig)
    return paths


def _cell(m: dict[str, Any] | None) -> str:
    if not m or m.get("value") is None:
        return '<td class="na">n/a</td>'
    ci = ""
    if m.get("ci_low") is not None:
        ci = f' <span class="ci">[{m["ci_low"]:.3f}, {m["ci_high"]:.3f}]</span>'
    return f'<td data-value="{m["value"]:.6f}">{m["value"]:.3f}{ci}</td>'


def abstentions(
    raw: dict[str, dict[str, Any]], queries: Sequence[Query]
) -> dict[str, list[str]]:
    """Abstention reasons (the words after the confidence, for calibrated ones) -> questions."""
    text = {q.qid: q.question for q in queries}
    grouped: dict[str, list[str]] = defaultdict(list)
    for qid, rec in raw.items():
        if rec.get("abstain"):
            reason = str(rec.get("reason", ""))
            reason = reason.split(": ", 1)[1] if reason.startswith("confidence ") else reason
            grouped[reason].append(text.get(qid, qid))
    return dict(sorted(grouped.items(), key=lambda kv: -len(kv[1])))


def write_risk_report(eval_dir: Path, out_dir: Path) -> Path:
    """Write the figures and `report.html` into `out_dir`; returns the page's path."""
    eval_dir, out_dir = Path(eval_dir), Path(out_dir)
    metrics = _read_json(eval_dir / "metrics.json")
    header = metrics["header"]
    queries = load_queries(Path(header["query_set"]))
    found, raw = curves(metrics, queries, eval_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = _figures(found, metrics, out_dir)
    calibrated = [n for n, c in metrics["configurations"].items() if c.get("calibration")]
    rows = []
    for name in metrics["configurations"]:
        overall = metrics["metrics"][name]["overall"]
        cells = "".join(_cell(overall.get(m)) for m in TABLE_METRICS)
        rows.append(f'<tr data-config="{html.escape(name)}"><th>{html.escape(name)}</th>'
                    f"{cells}</tr>")
    images = "".join(
        f'<figure><img alt="{name}" src="data:image/png;base64,'
        f'{base64.b64encode(path.read_bytes()).decode()}"><figcaption>{name}</figcaption>'
        "</figure>"
        for name, path in paths.items()
    )
    reasons = ""
    for name in calibrated:
        items = "".join(
            f"<li><b>{html.escape(reason)}</b> ({len(qs)})<ul>"
            + "".join(f"<li>{html.escape(q)}</li>" for q in qs[:EXAMPLES_PER_REASON])
            + "</ul></li>"
            for reason, qs in abstentions(raw[name], queries).items()
        )
        reasons += f"<h3>{html.escape(name)}</h3><ul>{items}</ul>"
    tuning = html.escape(json.dumps(header.get("tuning", {}), indent=1, ensure_ascii=False))
    page = f"""<!doctype html><html><head><meta charset="utf-8">
<title>structfirst risk-coverage report</title><style>
body{{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}}
table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:4px 8px;text-align:right}}
.ci{{color:#777;font-size:85%}}.na{{color:#aaa}}figure{{display:inline-block;margin:8px}}
img{{max-width:100%;border:1px solid #eee}}pre{{background:#f6f6f6;padding:8px;font-size:80%}}
</style></head><body>
<h1>Risk-coverage report</h1>
<p>Snapshot <code>{html.escape(str(header["snapshot_id"]))}</code>; query set
<code>{html.escape(header["query_set"])}</code> (sha256 <code>{header["query_set_sha256"]}</code>),
splits {html.escape(", ".join(header["splits"]))}, {header["n_queries"]} queries
({header["n_answerable"]} answerable).
Protocol: <b>{html.escape(header["protocol"]["name"])}</b> —
{html.escape(header["protocol"]["description"])}.</p>
<p>"Correct" means the top-ranked provision is a primary label in its version in force at the
case date; an unanswerable question answered is wrong. A configuration without a calibrated
decision has as confidence its top fused score calibrated on train (the same isotonic fitting,
its decisions unchanged) when `structfirst fit --score-calibrators` fitted one; otherwise it is
ordered by its raw top score on the risk-coverage plot and has no ECE or Brier.</p>
{images}
<h2>Calibration and selective prediction (95% bootstrap CIs)</h2>
<table id="metrics"><tr><th>configuration</th>{"".join(f"<th>{m}</th>" for m in TABLE_METRICS)}
</tr>{"".join(rows)}</table>
<h2>Abstentions of the calibrated configuration(s), by reason</h2>{reasons or "<p>none</p>"}
<h2>Tuning record</h2><pre>{tuning}</pre>
</body></html>
"""
    page_path = out_dir / "report.html"
    page_path.write_text(page, encoding="utf-8")
    return page_path
