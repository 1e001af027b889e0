"""Two runs at once (issue 8): two resolutions of one campaign never both write.

A run holds `campaign.xlsx.lock` (an flock, which the OS frees when the run dies) from its read to
its write; a second run that finds it stops at once, writes nothing and exits 4 ("busy"). A lock
file left by a run that was killed is taken over, with a warning that says whose it was.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from sheets_engine import app
from sheets_engine.cli import EXIT_BUSY, main
from sheets_engine.core import turn as turn_module  # the turn skeleton's resolve_turn, every ruleset's (issue 26)
from sheets_engine.stores.lock import CampaignBusy, FileLock, Holder, lock_path
from sheets_engine.stores.xlsx import WorkbookStore

NOW = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)
SCRIPT = shutil.which("sheets-engine", path=str(Path(sys.executable).parent)) or shutil.which("sheets-engine")


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("concurrency") / "demo.xlsx"
    app.init(str(path), demo=True)
    return path


@pytest.fixture
def workbook(demo: Path, tmp_path: Path) -> Path:
    path = tmp_path / "campaign.xlsx"
    path.write_bytes(demo.read_bytes())
    return path


def resolutions(path: Path) -> set[Any]:
    """The ids of the runs that wrote History."""
    tab = WorkbookStore(path).read()["History"]
    at = tab.header.index("Resolution")
    return {cells[at] for _, cells in tab.rows}


def game(path: Path, key: str) -> str:
    tab = WorkbookStore(path).read()["Game"]
    return str(next(cells[1] for _, cells in tab.rows if cells[0] == key))


@pytest.fixture
def paused(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[threading.Event, threading.Event]]:
    """Resolutions in this process stop after reading, until `go` is set (`inside` says they are there)."""
    inside, go = threading.Event(), threading.Event()
    resolve_turn = turn_module.resolve_turn

    def slow(*args: Any, **kwargs: Any) -> Any:
        inside.set()
        assert go.wait(timeout=30)
        return resolve_turn(*args, **kwargs)

    monkeypatch.setattr(turn_module, "resolve_turn", slow)
    yield inside, go
    go.set()


def test_a_second_resolution_while_one_runs_is_busy_and_writes_nothing(
    workbook: Path, paused: tuple[threading.Event, threading.Event]
) -> None:
    inside, go = paused
    results: dict[str, Any] = {}
    first = threading.Thread(target=lambda: results.setdefault("first", app.resolve(str(workbook), now=NOW)))
    first.start()
    assert inside.wait(timeout=30)
    before = workbook.read_bytes()
    with pytest.raises(CampaignBusy, match=r"is busy: another sheets-engine run \(pid \d+ on .*sheets-engine resolve"):
        app.resolve(str(workbook), now=NOW)
    with pytest.raises(CampaignBusy):
        app.recalc(str(workbook), now=NOW)
    with pytest.raises(CampaignBusy):
        app.rollback(str(workbook), 1, now=NOW)
    assert workbook.read_bytes() == before
    go.set()
    first.join(timeout=60)
    assert results["first"].summary["resolved"] is True
    assert len(resolutions(workbook)) == 1 and game(workbook, "turn") == "2"
    assert not lock_path(workbook).exists()
    again = app.resolve(str(workbook), now=NOW)  # the lock is free again: and the turn is done
    assert again.summary["resolved"] is False and again.cells_written == 0


def test_reading_and_dry_runs_are_not_blocked(workbook: Path, paused: tuple[threading.Event, threading.Event]) -> None:
    """Only writers take the lock: a reader sees the workbook as before or after (the rename)."""
    inside, go = paused
    first = threading.Thread(target=lambda: app.resolve(str(workbook), now=NOW))
    first.start()
    assert inside.wait(timeout=30)
    # no errors (the demo's two form responses meant to be rejected are warnings since issue 13)
    assert [p for p in app.validate(str(workbook)) if p.severity.value == "error"] == []
    go.set()  # the dry run below resolves too: let both through
    assert app.resolve(str(workbook), now=NOW, dry_run=True).dry_run
    first.join(timeout=60)


def test_two_processes_started_at_once_never_both_write(workbook: Path) -> None:
    """Real processes, started together: one resolves the turn, the other is busy (exit 4) or,
    if it came after, finds the turn done (exit 0, nothing written)."""
    assert SCRIPT, "the sheets-engine console script is not installed"
    runs = [
        subprocess.Popen([SCRIPT, "resolve", str(workbook), "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(3)
    ]
    outcomes = []
    for run in runs:
        out, err = run.communicate(timeout=120)
        assert b"Traceback" not in out + err
        if run.returncode == 0:
            outcomes.append("resolved" if json.loads(out)["resolved"] else "nothing to do")
        else:
            assert run.returncode == EXIT_BUSY, err
            assert err.decode().startswith("Error: ") and b"is busy" in err and err.count(b"\n") == 1
            outcomes.append("busy")
    assert outcomes.count("resolved") == 1, outcomes
    assert len(resolutions(workbook)) == 1 and game(workbook, "turn") == "2"
    assert not lock_path(workbook).exists()


HOLDER = r"""
import sys, time
from pathlib import Path
from sheets_engine.stores.xlsx import WorkbookStore
store = WorkbookStore(Path(sys.argv[1]))
with store.lock("sheets-engine resolve"):
    Path(sys.argv[2]).touch()
    while not Path(sys.argv[3]).exists():
        time.sleep(0.01)
"""


def test_the_command_exits_4_while_another_process_holds_the_campaign(workbook: Path, tmp_path: Path) -> None:
    assert SCRIPT, "the sheets-engine console script is not installed"
    holding, release = tmp_path / "holding", tmp_path / "release"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(workbook), str(holding), str(release)])
    try:
        deadline = time.monotonic() + 30
        while not holding.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        before = workbook.read_bytes()
        busy = subprocess.run([SCRIPT, "resolve", str(workbook)], capture_output=True, text=True, timeout=120)
        assert busy.returncode == 4
        assert busy.stderr.startswith(f"Error: {workbook} is busy: another sheets-engine run (pid {holder.pid} on ")
        assert f"If you are sure no run is going on, delete {lock_path(workbook)}" in busy.stderr
        assert busy.stderr.count("\n") == 1 and "Traceback" not in busy.stderr
        assert workbook.read_bytes() == before
    finally:
        release.touch()
        holder.wait(timeout=60)
    done = subprocess.run([SCRIPT, "resolve", str(workbook)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_main_maps_busy_to_exit_4(
    workbook: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["sheets-engine", "resolve", str(workbook)])
    with FileLock(workbook, "sheets-engine resolve"), pytest.raises(SystemExit) as done:
        main()
    assert done.value.code == EXIT_BUSY
    assert capsys.readouterr().err.startswith(f"Error: {workbook} is busy")


# Stale locks ------------------------------------------------------------------------------------------


def _write_lock(
    workbook: Path, pid: int, host: str | None = None, age: timedelta = timedelta(0), text: str = ""
) -> None:
    started = (datetime.now(UTC) - age).strftime("%Y-%m-%d %H:%M:%S")
    holder = {"pid": pid, "host": host or socket.gethostname(), "started": started, "process_start": "",
              "command": "sheets-engine resolve", "token": "t0"}  # fmt: skip
    lock_path(workbook).write_text(text or json.dumps(holder))


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_a_lock_left_by_a_dead_process_is_taken_over_with_a_warning(
    workbook: Path, caplog: pytest.LogCaptureFixture
) -> None:
    pid = _dead_pid()
    _write_lock(workbook, pid)
    report = app.resolve(str(workbook), now=NOW)
    assert report.summary["resolved"] is True
    assert f"took over the stale lock {lock_path(workbook)}: its process (pid {pid} on " in caplog.text
    assert "is no longer running" in caplog.text
    assert not lock_path(workbook).exists()


def test_a_stale_lock_is_reported_as_a_warning_line_by_the_command(workbook: Path) -> None:
    assert SCRIPT
    _write_lock(workbook, _dead_pid())
    done = subprocess.run([SCRIPT, "recalc", str(workbook)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("Warning: took over the stale lock ") and done.stderr.count("\n") == 1


@pytest.mark.parametrize(
    ("holder", "busy"),
    [
        ({"pid": os.getpid()}, True),  # this very process: alive
        ({"pid": 1, "host": "another-host"}, True),  # another machine, recent: cannot tell, wait
        ({"pid": 1, "host": "another-host", "age": timedelta(hours=2)}, False),  # another machine, too old
        ({"pid": 1, "text": "not json"}, True),  # being written right now
    ],
    ids=["alive", "other host, recent", "other host, old", "unreadable, fresh"],
)
def test_which_locks_are_stale(workbook: Path, holder: dict[str, Any], busy: bool) -> None:
    _write_lock(workbook, **holder)
    if busy:
        with pytest.raises(CampaignBusy):
            app.resolve(str(workbook), now=NOW)
        assert lock_path(workbook).exists()
    else:
        assert app.resolve(str(workbook), now=NOW).summary["resolved"] is True
        assert not lock_path(workbook).exists()


def test_an_unreadable_lock_that_stays_so_is_stale(workbook: Path) -> None:
    _write_lock(workbook, 1, text="garbage")
    old = time.time() - 60
    os.utime(lock_path(workbook), (old, old))
    assert app.resolve(str(workbook), now=NOW).summary["resolved"] is True


def test_a_reused_pid_does_not_keep_a_lock_alive(workbook: Path) -> None:
    """The lock remembers when its process started: another program with that pid is not it."""
    holder = {"pid": os.getpid(), "host": socket.gethostname(), "started": "2026-11-30 20:00:00",
              "process_start": "1", "command": "", "token": "t1"}  # fmt: skip
    lock_path(workbook).write_text(json.dumps(holder))
    assert Holder.parse(json.dumps(holder)) is not None
    assert app.resolve(str(workbook), now=NOW).summary["resolved"] is True


def test_the_lock_is_released_when_the_run_fails(workbook: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(turn_module, "resolve_turn", boom)
    with pytest.raises(RuntimeError):
        app.resolve(str(workbook), now=NOW)
    assert not lock_path(workbook).exists()
