"""A sign of life on long work: rich's progress bar on a terminal, nothing on a pipe, in a cron log or
with --json (stderr only, so standard output stays the command's answer)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

Advance = Callable[[int], None]
"""Moves a bar on by a number of steps done."""


def _nothing(steps: int = 1) -> None:
    return None


def shown(quiet: bool = False) -> bool:
    """Whether a bar would be drawn: a terminal on stderr, and the command not asked for quiet output."""
    return not quiet and sys.stderr.isatty()


@contextmanager
def progress(label: str, total: int | None = None, *, quiet: bool = False) -> Iterator[Advance]:
    """A bar labelled `label` over `total` steps (None: a spinner) while the block runs; yields the
    function that moves it on. On a pipe or when quiet it draws nothing and costs nothing."""
    if not shown(quiet):
        yield _nothing
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    columns = [SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn()]
    columns.append(TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=total)

        def advance(steps: int = 1) -> None:
            bar.advance(task, steps)

        yield advance
