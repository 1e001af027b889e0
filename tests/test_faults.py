"""Faults (issue 8): whatever fails, and whenever, the campaign is as before the run or as after it.

The workbook store writes a temporary file and renames it over the workbook. An exception at any
step of that, or the process killed outright (SIGKILL) at any step, leaves the workbook exactly as
before (or, once the rename is done, exactly as after): never in between, and never unreadable.
In the service layer, an exception anywhere in a resolution writes nothing at all.

(The Google Sheets store's faults, HTTP 500 or a timeout on the write, are tested with that store.)
"""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from sheets_engine import app
from sheets_engine.cli import main
from sheets_engine.core import tables
from sheets_engine.sengoku import phases as turn_module  # the phases and resolve_turn (issue 14)
from sheets_engine.stores import xlsx, xlsx_workbook, xlsx_zip
from sheets_engine.stores.base import CellWrite, RawTab, as_cells
from sheets_engine.stores.lock import lock_path
from sheets_engine.stores.memory import MemoryStore
from sheets_engine.stores.xlsx import WorkbookStore
from tests.support import store as memory_campaign

NOW = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)


class Injected(Exception):
    """The fault a test injects."""


class Recording(WorkbookStore):
    """A workbook store that keeps the cells a run would write instead of writing them."""

    cells: list[CellWrite]

    def write(self, cells: list[CellWrite]) -> None:
        self.cells = as_cells(cells)  # appended rows as single cells, to be replayed by a child process


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[CellWrite], dict[str, RawTab]]:
    """The demo workbook, the cells resolving turn 1 writes, and the workbook's tabs after that write."""
    folder = tmp_path_factory.mktemp("faults")
    path = folder / "demo.xlsx"
    app.init(str(path), demo=True)
    recording = Recording(path)
    app.resolve(recording, now=NOW)
    after = folder / "after.xlsx"
    after.write_bytes(path.read_bytes())
    WorkbookStore(after).write(recording.cells)
    return path, recording.cells, WorkbookStore(after).read()


@pytest.fixture
def workbook(demo: tuple[Path, list[CellWrite], dict[str, RawTab]], tmp_path: Path) -> Path:
    path = tmp_path / "campaign.xlsx"
    path.write_bytes(demo[0].read_bytes())
    return path


def leftovers(path: Path) -> list[str]:
    """Files a write left beside the workbook (temporary files, the lock)."""
    return sorted(p.name for p in path.parent.iterdir() if p.name != path.name)


def parts(path: Path) -> int:
    with zipfile.ZipFile(path) as archive:
        return len(archive.infolist())


# An exception at each step of the workbook's write ------------------------------------------------


def _fail_at_part(k: int) -> Callable[[pytest.MonkeyPatch], None]:
    """The k-th part of the new file fails to be written (a full disk, say)."""

    def inject(monkeypatch: pytest.MonkeyPatch) -> None:
        written = xlsx_zip.write_part  # each part of the new file is written by it (see xlsx_zip)
        calls = {"n": 0}

        def write_part(*args: Any, **kwargs: Any) -> Any:
            calls["n"] += 1
            if calls["n"] == k:
                raise Injected(f"disk full at part {k}")
            return written(*args, **kwargs)

        monkeypatch.setattr(xlsx_zip, "write_part", write_part)

    return inject


def _fail_fsync_of_the_new_file(monkeypatch: pytest.MonkeyPatch) -> None:
    real = os.fsync

    def fsync(fd: int) -> None:
        if os.readlink(f"/proc/self/fd/{fd}").endswith(".tmp"):
            raise Injected("I/O error on fsync")
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)


def _fail(target: Any, name: str, error: BaseException) -> Callable[[pytest.MonkeyPatch], None]:
    def inject(monkeypatch: pytest.MonkeyPatch) -> None:
        def boom(*args: Any, **kwargs: Any) -> Any:
            raise error

        monkeypatch.setattr(target, name, boom)

    return inject


BEFORE_THE_RENAME = {
    "no temporary file": _fail(xlsx.tempfile, "mkstemp", OSError(28, "No space left on device")),
    "the sheet XML cannot be patched": _fail(xlsx_workbook, "patch_sheet", Injected("bad XML")),
    "fsync of the new file": _fail_fsync_of_the_new_file,
    "the rename": _fail(os, "replace", OSError(5, "Input/output error")),
    "interrupted (Ctrl-C) mid-write": _fail(xlsx_zip, "write_part", KeyboardInterrupt()),
}


@pytest.mark.parametrize("step", sorted(BEFORE_THE_RENAME))
def test_an_exception_before_the_rename_leaves_the_workbook_as_before(
    workbook: Path, demo: Any, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    before = workbook.read_bytes()
    BEFORE_THE_RENAME[step](monkeypatch)
    with pytest.raises((Injected, OSError, KeyboardInterrupt)):
        WorkbookStore(workbook).write(demo[1])
    monkeypatch.undo()
    assert workbook.read_bytes() == before
    assert leftovers(workbook) == []  # no temporary file, no lock


def test_an_exception_writing_any_part_of_the_file_leaves_the_workbook_as_before(
    workbook: Path, demo: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every part of the new file, one by one, fails to be written."""
    before = workbook.read_bytes()
    for k in range(1, parts(workbook) + 1):
        with monkeypatch.context() as patch:
            _fail_at_part(k)(patch)
            with pytest.raises(Injected):
                WorkbookStore(workbook).write(demo[1])
        assert workbook.read_bytes() == before, f"part {k}"
        assert leftovers(workbook) == [], f"part {k}"


def test_an_exception_after_the_rename_leaves_the_workbook_as_after(
    workbook: Path, demo: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fail(xlsx, "_sync_directory", Injected("fsync of the folder"))(monkeypatch)
    with pytest.raises(Injected):
        WorkbookStore(workbook).write(demo[1])
    monkeypatch.undo()
    assert WorkbookStore(workbook).read() == demo[2]
    assert leftovers(workbook) == []


def test_after_a_failed_write_the_next_one_succeeds(workbook: Path, demo: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as patch:
        _fail_at_part(3)(patch)
        with pytest.raises(Injected):
            WorkbookStore(workbook).write(demo[1])
    WorkbookStore(workbook).write(demo[1])
    assert WorkbookStore(workbook).read() == demo[2]


# A process killed (SIGKILL) at each step of the write ------------------------------------------------

KILLER = r"""
import json, os, signal, sys, zipfile
from pathlib import Path
from sheets_engine.stores import xlsx, xlsx_workbook, xlsx_zip
from sheets_engine.stores.base import CellWrite

path, step, k, cells = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
writes = [CellWrite(*c) for c in json.loads(cells.read_text())]

def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

if step == "part":  # each part of the new file is written by xlsx_zip.write_part
    written, calls = xlsx_zip.write_part, [0]
    def write_part(*args, **kwargs):
        calls[0] += 1
        if calls[0] == k:
            die()
        return written(*args, **kwargs)
    xlsx_zip.write_part = write_part
elif step == "fsync":
    real = os.fsync
    os.fsync = lambda fd: die() if os.readlink(f"/proc/self/fd/{fd}").endswith(".tmp") else real(fd)
elif step == "rename":
    os.replace = die
elif step == "after the rename":
    xlsx._sync_directory = die
elif step == "loop":  # write again and again until killed from outside
    Path(str(path) + ".started").touch()
    while True:
        xlsx.WorkbookStore(path).write(writes)
xlsx.WorkbookStore(path).write(writes)
"""


def _kill_during_write(workbook: Path, cells: list[CellWrite], step: str, k: int = 0) -> subprocess.Popen[bytes]:
    saved = workbook.parent / "cells.json"
    saved.write_text(json.dumps([[c.tab, c.row, c.column, c.value] for c in cells]))
    return subprocess.Popen([sys.executable, "-c", KILLER, str(workbook), step, str(k), str(saved)])


def _as_before_or_after(workbook: Path, before: bytes, after: dict[str, RawTab]) -> str:
    if workbook.read_bytes() == before:
        return "before"
    assert WorkbookStore(workbook).read() == after, "the workbook is neither as before nor as after"
    return "after"


KILL_POINTS = [("part", 1), ("part", 12), ("part", 10_000), ("fsync", 0), ("rename", 0), ("after the rename", 0)]


@pytest.mark.parametrize(("step", "k"), KILL_POINTS, ids=[f"{s}-{k}" if k else s for s, k in KILL_POINTS])
def test_a_process_killed_while_saving_leaves_the_workbook_as_before_or_after(
    workbook: Path, demo: Any, step: str, k: int, caplog: pytest.LogCaptureFixture
) -> None:
    before = workbook.read_bytes()
    if step == "part" and k == 10_000:
        k = parts(workbook)  # the last part
    process = _kill_during_write(workbook, demo[1], step, k)
    assert process.wait(timeout=60) == -signal.SIGKILL
    state = _as_before_or_after(workbook, before, demo[2])
    assert state == ("after" if step == "after the rename" else "before")
    (workbook.parent / "cells.json").unlink()
    assert lock_path(workbook).exists()  # the killed run's lock stays behind...
    WorkbookStore(workbook).write(demo[1])  # ...and the next run takes it over, with a warning
    assert "took over the stale lock" in caplog.text and "is no longer running" in caplog.text
    assert WorkbookStore(workbook).read() == demo[2]
    assert leftovers(workbook) == []  # the killed run's temporary file is gone too


def test_a_process_killed_at_any_moment_leaves_the_workbook_as_before_or_after(workbook: Path, demo: Any) -> None:
    """Killed from outside at moments spread over the write: before or after, never between."""
    before = workbook.read_bytes()
    seen = set()
    for delay in (0.0, 0.05, 0.12, 0.2, 0.35):
        started = Path(str(workbook) + ".started")
        process = _kill_during_write(workbook, demo[1], "loop")
        deadline = time.monotonic() + 30
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        assert process.wait(timeout=60) == -signal.SIGKILL
        started.unlink()
        seen.add(_as_before_or_after(workbook, before, demo[2]))
        lock_path(workbook).unlink(missing_ok=True)
    assert seen <= {"before", "after"}


# The service layer: an exception anywhere in a resolution writes nothing ------------------------------


@pytest.fixture(scope="module")
def campaign() -> MemoryStore:
    return memory_campaign(demo=True)


def _raising_phase(index: int) -> Callable[[], list[Any]]:
    phases = turn_module.phase_list

    def patched() -> list[Any]:
        found = phases()
        step, name, _ = found[index]

        def boom(turn: Any) -> None:
            raise Injected(f"step {step}, {name}")

        found[index] = (step, name, boom)
        return found

    return patched


PHASES = [f"{i:02d} {name}" for i, (_, name, _) in enumerate(turn_module.phase_list())]


@pytest.mark.parametrize("phase", PHASES)
def test_an_exception_in_any_phase_writes_nothing(
    campaign: MemoryStore, monkeypatch: pytest.MonkeyPatch, phase: str
) -> None:
    store = MemoryStore(campaign.tabs)
    monkeypatch.setattr(turn_module, "phase_list", _raising_phase(int(phase[:2])))
    with pytest.raises(Injected):
        app.resolve(store, now=NOW)
    assert store.writes == 0 and store.tabs == campaign.tabs


@pytest.mark.parametrize("after", [1, 50, 400])
def test_an_exception_in_the_middle_of_a_phase_writes_nothing(
    campaign: MemoryStore, monkeypatch: pytest.MonkeyPatch, after: int
) -> None:
    """The n-th cell a rule changes fails: wherever that falls, nothing is written."""
    store = MemoryStore(campaign.tabs)
    real, calls = tables.Change, {"n": 0}

    def change(*args: Any, **kwargs: Any) -> Any:  # every change a rule makes: Draft.set, set_column, add_row
        calls["n"] += 1
        if calls["n"] == after:
            raise Injected(f"change {after}")
        return real(*args, **kwargs)

    monkeypatch.setattr(tables, "Change", change)
    with pytest.raises(Injected):
        app.resolve(store, now=NOW)
    assert store.writes == 0 and store.tabs == campaign.tabs


@pytest.mark.parametrize("step", ["history_rows", "cell_writes", "final_changes"])
def test_an_exception_while_building_the_write_writes_nothing(
    campaign: MemoryStore, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    store = MemoryStore(campaign.tabs)
    monkeypatch.setattr(app, step, _fail_with(Injected(step)))
    with pytest.raises(Injected):
        app.resolve(store, now=NOW)
    assert store.writes == 0 and store.tabs == campaign.tabs


def _fail_with(error: BaseException) -> Callable[..., Any]:
    def boom(*args: Any, **kwargs: Any) -> Any:
        raise error

    return boom


@pytest.mark.parametrize("command", ["resolve", "recalc", "rollback"])
def test_a_failed_store_write_leaves_the_campaign_as_before(campaign: MemoryStore, command: str) -> None:
    store = MemoryStore(campaign.tabs)
    if command == "rollback":
        app.resolve(store, now=NOW)
    before = copy.deepcopy(store.tabs)
    store.fail_on_write = Injected("the store went away")
    run: dict[str, Callable[[], Any]] = {
        "resolve": lambda: app.resolve(store, now=NOW),
        "recalc": lambda: app.recalc(store, now=NOW),
        "rollback": lambda: app.rollback(store, 1, now=NOW),
    }
    with pytest.raises(Injected):
        run[command]()
    assert store.tabs == before


@pytest.fixture
def failing_phase(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(turn_module, "phase_list", _raising_phase(len(PHASES) // 2))
    yield


def test_a_failed_resolution_exits_1_with_one_line_and_leaves_the_workbook_as_before(
    workbook: Path, failing_phase: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    before = workbook.read_bytes()
    monkeypatch.setattr(sys, "argv", ["sheets-engine", "resolve", str(workbook)])
    with pytest.raises(SystemExit) as done:
        main()
    assert done.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("Error: unexpected failure: Injected: step ") and err.count("\n") == 1
    assert "Traceback" not in err
    assert workbook.read_bytes() == before
    assert leftovers(workbook) == []  # the lock was released


def test_a_save_keeps_the_workbooks_permissions(workbook: Path, demo: Any) -> None:
    """The new file is made private (mkstemp); the workbook a GM shares with a group stays shared."""
    workbook.chmod(0o664)
    WorkbookStore(workbook).write(demo[1])
    assert workbook.stat().st_mode & 0o777 == 0o664
