"""`structfirst rules ...` (filled in by the rules module's owner)."""

from __future__ import annotations

import typer

app = typer.Typer(no_args_is_help=True)
