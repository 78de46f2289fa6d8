"""Reading the TOML files of the rule library (`*.params.toml`, `*.tests.toml`)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from structfirst.rules.rule_syntax import Issue


def read_toml(path: Path, syntax_code: str) -> tuple[str, dict[str, Any]] | Issue:
    """The text and the data of a TOML file, or the Issue that stops its reading: code "io"
    for an unreadable file, `syntax_code` (with the line) for invalid TOML."""
    file = str(path)
    try:
        text = path.read_text(encoding="utf-8")
        return text, tomllib.loads(text)
    except (OSError, UnicodeDecodeError) as exc:
        return Issue("error", "io", f"cannot read: {exc}", file)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        return Issue("error", syntax_code, f"not valid TOML: {exc}", file,
                     int(m.group(1)) if m else None)
