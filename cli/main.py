"""The `structfirst` command line."""

from __future__ import annotations

import typer
from structfirst.cli import (
    adapt_cmd,
    eval_cmd,
    fit_cmd,
    fit_facts_cmd,
    ingest_cmd,
    query_cmd,
    report_cmd,
    rules_cmd,
)

app = typer.Typer(
    help="structfirst: structure-first retrieval for legal text.", no_args_is_help=True
)
ingest_cmd.register(app)
query_cmd.register(app)
eval_cmd.register(app)
fit_cmd.register(app)
fit_facts_cmd.register(app)
report_cmd.register(app)
adapt_cmd.register(app)
app.add_typer(rules_cmd.app, name="rules", help="Rule authors' tools: lint, test, explain.")

if __name__ == "__main__":
    app()
