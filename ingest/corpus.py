"""Where the shared corpus lives: `$STRUCTFIRST_CORPUS`, else `../shared/corpus` beside the repo."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def corpus_root() -> Path:
    """The corpus root; raises FileNotFoundError naming the path tried."""
    root = Path(os.environ.get("STRUCTFIRST_CORPUS", REPO_ROOT.parent / "shared" / "corpus"))
    if not root.is_dir():
        raise FileNotFoundError(f"corpus not found at {root} (set STRUCTFIRST_CORPUS)")
    return root


def title11_editions() -> list[Path]:
    """The Title 11 annual-edition files, oldest first."""
    return sorted((corpus_root() / "us-code" / "title-11").glob("*/usc11.htm"))


def default_source_id(path: Path) -> str:
    """`path` relative to the corpus root when it lies under it, else as given."""
    try:
        return path.resolve().relative_to(corpus_root().resolve()).as_posix()
    except (ValueError, FileNotFoundError):
        return path.as_posix()
