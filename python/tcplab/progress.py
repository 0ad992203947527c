"""Sweep progress on the terminal: a rich bar when a person is watching, nothing otherwise.

Progress goes to stderr so that stdout stays clean for ``--json`` and pipes, and only when stderr is
a TTY so that logs of batch jobs (CI, cluster schedulers) are not filled with redraws.
"""

from __future__ import annotations

import sys
from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn


class Silent:
    """A tracker that shows nothing (stderr is not a terminal, or the caller asked for quiet)."""

    def __enter__(self) -> Silent:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def advance(self, failed: bool) -> None:
        return None


class Bar:
    """A rich progress bar: description, bar, done/total, failures, elapsed time and ETA."""

    def __init__(self, description: str, total: int, done: int = 0) -> None:
        self._failures = 0
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("[red]{task.fields[failures]} failed"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=False,
        )
        self._task = self._progress.add_task(description, total=total, completed=done, failures=0)

    def __enter__(self) -> Bar:
        self._progress.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._progress.stop()

    def advance(self, failed: bool) -> None:
        self._failures += failed
        self._progress.update(self._task, advance=1, failures=self._failures)


def tracker(description: str, total: int, done: int = 0, enabled: bool | None = None) -> Bar | Silent:
    """A :class:`Bar` if ``enabled`` (default: stderr is a TTY), else a :class:`Silent` tracker."""
    if enabled is None:
        enabled = sys.stderr.isatty()
    return Bar(description, total, done) if enabled else Silent()
