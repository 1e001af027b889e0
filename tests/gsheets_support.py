"""Shared helpers of the Google Sheets tests: the replay environment and running the CLI."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from sheets_engine.stores.gsheets import GoogleSheetsStore
from sheets_engine.stores.gsheets_http import RetryPolicy
from tests.standin.keys import write_key_file
from tests.standin.scenarios import KEY

NO_WAIT = RetryPolicy(sleep=lambda seconds: None)


class ReplayEnv:
    """Scenarios against a cassette: production URLs, a throwaway key, retries that do not sleep."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.key_file = write_key_file(tmp)

    def store(self, key: str = KEY) -> GoogleSheetsStore:
        """A store as the CLI opens it (but retrying without sleeping)."""
        return GoogleSheetsStore.open(f"gsheet:{key}", self.key_file, retry=NO_WAIT)

    def gm_edit(self, key: str, a1: str, value: Any) -> None:
        """Recorded in the cassette already."""

    def fail(self, status: int, endpoint: str, times: int = 1) -> None:
        """Recorded in the cassette already."""


def run_cli(args: list[str], capsys: Any, monkeypatch: Any) -> tuple[int, str, str]:
    """`sheets-engine ARGS` through main(), as cron runs it: (exit code, stdout, stderr)."""
    from sheets_engine.cli import main

    monkeypatch.setattr(sys, "argv", ["sheets-engine", *args])
    try:
        main()
        code = 0
    except SystemExit as done:
        code = int(done.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def spy_writes(store: GoogleSheetsStore) -> list[dict[str, Any]]:
    """The batchUpdate bodies the store sends, as sent."""
    bodies: list[dict[str, Any]] = []
    send = store.client.send_write

    def send_write(key: str, body: Any) -> Any:
        bodies.append(body)
        return send(key, body)

    store.client.send_write = send_write  # type: ignore[method-assign]
    return bodies


def kinds(served: list[Any]) -> list[str]:
    """The requests a run made, as the stand-in served them: token, metadata, read (the first read of
    cells), guard (every later read of cells: the guard's re-read, a read-back), write."""
    named, read = [], False
    for request in served:
        kind = request.kind
        if kind == "grid":
            kind, read = ("guard" if read else "read"), True
        named.append(kind)
    return named
