"""Progress of long ingest steps as plain lines with rate and ETA when not on a terminal."""

from __future__ import annotations

import io

from rich.console import Console
from structfirst.ingest.progress import StepProgress


def test_plain_lines_with_eta_and_a_last_line() -> None:
    stream = io.StringIO()
    console = Console(file=io.StringIO(), force_terminal=False)
    with StepProgress("dense: encoding", 10, console=console, stream=stream, every_s=0.0) as step:
        for _ in range(4):
            step.advance(2)
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("dense: encoding 2/10 (20.0%)") and " ETA " in lines[0]
    assert "/s" in lines[0]
    assert lines[-1].startswith("dense: encoding 8/10 done in ")
    assert len(lines) == 5  # one per advance, then the last line


def test_disabled_writes_nothing() -> None:
    stream = io.StringIO()
    with StepProgress("parsing", 3, enabled=False, stream=stream, every_s=0.0) as step:
        step.advance(3)
    assert stream.getvalue() == ""
