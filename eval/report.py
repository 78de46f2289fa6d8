"""The ablation report: `metrics.json` (everything the runner computed) and `report.md`.

`report.md` opens with the provenance (snapshot, query set and its sha256, split, date,
configurations, number of queries), the protocol and the tuning record, then the headline
table, one table per metric (query type x configuration, value with its 95% bootstrap CI), and
the paired comparisons (difference, paired bootstrap CI, randomization-test p-value).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from structfirst.eval.query_set import QUERY_TYPES

HEADLINE = ("nDCG@10", "R@10", "version_correct", "jurisdiction_correct", "evidence_completeness")
SHORT = {"version_correct": "version", "jurisdiction_correct": "jurisdiction",
         "evidence_completeness": "evidence"}  # column labels for narrow tables
GROUPS = ("overall", *QUERY_TYPES)
METRIC_NOTES = {
    "nDCG@10": "graded (2, 1, 0 as gains), node level, answerable queries",
    "R@10": "recall of grade >= 1 labels in the top 10 nodes, answerable queries",
    "R@50": "recall at 50",
    "R@100": "recall at 100",
    "P@5": "precision at 5 (relevant = grade >= 1)",
    "version_correct": "top hit is a grade >= 1 label in its version in force at as_of "
                       "(snapshot intervals), answerable queries",
    "top1_correct": "top hit is a primary (grade 2) label, not known to be out of force at "
                    "as_of, answerable queries",
    "jurisdiction_correct": "top hit's jurisdiction is the query's or under it, queries with a hit",
    "evidence_completeness": "share of grade >= 1 labels in the top 10 nodes, answerable "
                             "exception_application and multi_clause_synthesis queries",
    "verdict_accuracy": "share of expected rule verdicts matched (a missing verdict is wrong), "
                        "queries with expected verdicts",
    "abstention_precision": "abstentions that were on unanswerable queries",
    "abstention_recall": "unanswerable queries the configuration abstained on",
    "ece": "expected calibration error, 10 equal-width bins",
    "ece_floor": "the ECE perfectly calibrated confidences would show on this many questions "
                 "(mean over 200 outcome draws from the confidences): an ECE near it is as low "
                 "as the sample can show",
    "brier": "Brier score of the confidence",
    "aurc": "area under the risk-coverage curve",
    "selective_accuracy@90": "accuracy on the 90% most confident",
    "coverage@95": "largest coverage with selective accuracy >= 95%",
}


def write_report(result: dict[str, Any], out_dir: Path) -> tuple[Path, Path]:
    """Write `<out_dir>/metrics.json` and `<out_dir>/report.md`; return their paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path, md_path = out_dir / "metrics.json", out_dir / "report.md"
    json_path.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", "utf-8")
    md_path.write_text(render_markdown(result), "utf-8")
    return json_path, md_path


def _f(x: float | None, signed: bool = False) -> str:
    if x is None:
        return "–"
    return f"{x:+.3f}" if signed else f"{x:.3f}"


def _ms(x: float | None) -> str:
    return "–" if x is None else f"{x:.0f}"


def _cell(entry: dict[str, Any]) -> str:
    if "not_applicable" in entry:
        return "n/a"
    if entry.get("value") is None:
        return f"– (n={entry.get('n', 0)})"
    return f"{_f(entry['value'])} [{_f(entry['ci_low'])}, {_f(entry['ci_high'])}] n={entry['n']}"


def _delta(entry: dict[str, Any]) -> str:
    if "not_applicable" in entry:
        return "n/a"
    if entry.get("diff") is None:
        return "–"
    return (f"{_f(entry['diff'], True)} [{_f(entry['ci_low'], True)}, "
            f"{_f(entry['ci_high'], True)}] p={entry['p_value']:.3f}")


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def headline_rows(result: dict[str, Any]) -> list[list[str]]:
    """Rows (group, configuration, the headline metrics' point values)."""
    rows = []
    for group in GROUPS:
        for name, summary in result["metrics"].items():
            block = summary[group]
            rows.append([group, name, *(_f(block[m].get("value")) for m in HEADLINE)])
    return rows


def tuning_lines(tuning: dict[str, dict[str, dict[str, str]]]) -> list[str]:
    """One bullet per tuned setting of each configuration, or a line saying none was tuned."""
    lines = [
        f"- {name}: `{setting}` chosen on the {rec['split']} split: {rec['procedure']}"
        for name, settings in tuning.items()
        for setting, rec in settings.items()
    ]
    return lines or ["- no setting of these configurations was tuned"]


def render_markdown(result: dict[str, Any]) -> str:
    h, configs = result["header"], result["configurations"]
    names = list(configs)
    by_type = ", ".join(f"{t} {n}" for t, n in h["n_by_type"].items())
    lines = [
        f"# Ablation {', '.join(names)} on `{Path(h['query_set']).name}`",
        "",
        *_table(["", ""], [
            ["corpus snapshot", f"`{h['snapshot_id']}` ({h['corpus_sources']} sources)"],
            ["query set", f"`{h['query_set']}`"],
            ["query-set sha256", f"`{h['query_set_sha256']}`"],
            ["split run", ", ".join(h["splits"])],
            ["queries", f"{h['n_queries']} ({h['n_answerable']} answerable; {by_type})"],
            ["date", h["date"]],
            ["depth", f"k = {h['k']} candidates per query"],
            ["confidence intervals", f"95% percentile bootstrap over queries, "
                                     f"{h['bootstrap_resamples']} resamples, seed {h['seed']}"],
            ["paired test", f"two-sided paired randomization test, {h['permutations']} "
                            "permutations; CI: 95% paired bootstrap of the difference"],
            ["wall time", f"{h['run_seconds']} s running the queries, {h['eval_seconds']} s "
                          "computing the metrics"],
        ]),
        "",
        f"**Protocol: {h['protocol']['name']}.** {h['protocol']['description']}.",
        "",
        "**Tuning record** (from `engine/configurations.toml`; the runner tunes nothing):",
        "",
        *tuning_lines(h["tuning"]),
        "",
        "## Configurations",
        "",
        *_table(
            ["config", "description", "planes", "reranker", "plane weights", "seconds",
             "latency ms mean / p50 / p95"],
            [[name, c["description"], ", ".join(c["planes"]), c["reranker"] or "–",
              ", ".join(f"{p}={w}" for p, w in c["plane_weights"].items()) or "–",
              f"{c['seconds']}",
              " / ".join(_ms(c["latency_ms"][s]) for s in ("mean", "p50", "p95"))]
             for name, c in configs.items()],
        ),
        "",
        "The TREC runs and per-query outputs are in `runs/<config>.trec` and "
        "`runs/<config>.outputs.jsonl`. Expected verdicts are labeled with the rule "
        "library's rule ids and matched against the engine's verdicts for them; a "
        "configuration without the symbolic plane returns no verdict, which counts as wrong.",
        "",
        "## Headline",
        "",
        *_table(["type", "config", *HEADLINE], headline_rows(result)),
        "",
        "## Metrics",
        "",
        "Each cell: value [95% CI] n = queries the metric applies to; – where it applies to none;"
        " n/a where the configuration has no calibrated confidence.",
    ]
    for metric in result["metrics"][names[0]]["overall"]:
        lines += ["", f"### {metric}", "", f"_{METRIC_NOTES.get(metric, '')}_", ""]
        lines += _table(["type", *names], [
            [group, *(_cell(result["metrics"][n][group][metric]) for n in names)]
            for group in GROUPS
        ])
    lines += ["", "## Paired comparisons", "",
              "Each cell: b − a [95% paired bootstrap CI] p = randomization-test p-value."]
    for label, comp in result["comparisons"].items():
        lines += ["", f"### {label} ({comp['b']} − {comp['a']})", ""]
        metrics = list(comp["overall"])
        lines += _table(["metric", *GROUPS], [
            [m, *(_delta(comp[g][m]) for g in GROUPS)] for m in metrics
        ])
    return "\n".join(lines) + "\n"
