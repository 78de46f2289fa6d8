"""Progress with an ETA for the long ingest steps: a rich bar on a terminal, plain lines in a log.

    with StepProgress("dense: encoding", total=len(texts)) as step:
        ...
        step.advance(len(batch))

On a terminal the bar shows done/total, the rate and the time remaining. Anywhere else (stderr
redirected to a log file, a CI job) it writes one plain line at most every `every_s` seconds,
`dense: encoding 3200/10725 (29.8%) 212.4/s ETA 0:00:35`, and a last line with the total time.
"""

from __future__ import annotations

import sys
import time
from datetime import timedelta
from typing import TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


def _clock(seconds: float) -> str:
    return str(timedelta(seconds=round(max(seconds, 0.0))))


class StepProgress:
    """Progress of one step of known size (see the module docstring)."""

    def __init__(
        self,
        description: str,
        total: int,
        enabled: bool = True,
        console: Console | None = None,
        stream: TextIO | None = None,
        every_s: float = 10.0,
    ) -> None:
        self.description = description
        self.total = total
        self.enabled = enabled
        self.console = console
        self.stream = stream
        self.every_s = every_s
        self.done = 0
        self._bar: Progress | None = None
        self._task = None
        self._started = self._last_line = 0.0

    def __enter__(self) -> StepProgress:
        self._started = self._last_line = time.perf_counter()
        console = self.console or Console(stderr=True)
        if self.enabled and console.is_terminal:
            self._bar = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TaskProgressColumn(),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=console,
                transient=True,
            )
            self._bar.__enter__()
            self._task = self._bar.add_task(self.description, total=self.total)
        return self

    def advance(self, n: int = 1) -> None:
        self.done += n
        if self._bar is not None:
            self._bar.advance(self._task, n)
            return
        now = time.perf_counter()
        if self.enabled and now - self._last_line >= self.every_s and self.done < self.total:
            self._last_line = now
            self._line(now)

    def _line(self, now: float) -> None:
        elapsed = now - self._started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        eta = (self.total - self.done) / rate if rate > 0 else float("nan")
        share = 100.0 * self.done / self.total if self.total else 100.0
        eta_text = _clock(eta) if eta == eta else "?"
        self._write(
            f"{self.description} {self.done}/{self.total} ({share:.1f}%) "
            f"{rate:.1f}/s ETA {eta_text}"
        )

    def _write(self, line: str) -> None:
        stream = self.stream or sys.stderr
        stream.write(line + "\n")
        stream.flush()

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)
            self._bar = None
        if self.enabled and exc[0] is None:
            elapsed = time.perf_counter() - self._started
            self._write(f"{self.description} {self.done}/{self.total} done in {_clock(elapsed)}")
