"""The workbook stays the GMs' (issue 12): a run writes only the file it read, never over a GM's save.

A GM saves the .xlsx (Excel, LibreOffice, any program) after the engine read it and before it
writes: the run writes nothing and exits 3, and the next run builds on the save. A workbook open
in Excel or LibreOffice is not written (exit 4, naming who has it open). A link is followed: the
lock and the rename act on the real file, so a run through the link and one through the target
exclude each other, and the link stays a link. A read-only workbook, a full disk, a file-size
limit, an immutable file: exit 2, saying what to do.
"""

from __future__ import annotations

import errno
import json
import os
import resource
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from sheets_engine import app
from sheets_engine.core import turn as turn_module  # the turn skeleton's resolve_turn, every ruleset's (issue 26)
from sheets_engine.stores import xlsx, xlsx_zip
from sheets_engine.stores.lock import lock_path
from sheets_engine.stores.xlsx import WorkbookStore
from tests.gsheets_support import run_cli

NOW = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("guard") / "demo.xlsx"
    app.init(str(path), demo=True)
    return path


@pytest.fixture
def workbook(demo: Path, tmp_path: Path) -> Path:
    path = tmp_path / "campaign.xlsx"
    path.write_bytes(demo.read_bytes())
    return path


def files_beside(path: Path) -> list[str]:
    """What is in the workbook's folder besides it (temporary files, locks, owner files)."""
    return sorted(p.name for p in path.parent.iterdir() if p.name != path.name)


def rows(path: Path, tab: str) -> list[list[Any]]:
    """A tab's rows as calamine reads them (header first)."""
    raw = WorkbookStore(path).read()[tab]
    return [raw.header, *(cells for _, cells in raw.rows)]


def history(path: Path) -> list[dict[str, Any]]:
    raw = WorkbookStore(path).read()["History"]
    return [dict(zip(raw.header, cells, strict=False)) for _, cells in raw.rows]


# A GM's save between the engine's read and its write ---------------------------------------------


def gm_saves(path: Path, edit: Callable[[Any], None], in_place: bool = True) -> None:
    """Open the workbook with openpyxl, edit it and save it, as a GM's spreadsheet program would:
    over the file itself (LibreOffice, openpyxl), or to a new file renamed over it (Excel)."""
    book = openpyxl.load_workbook(path)
    edit(book)
    if in_place:
        book.save(path)
    else:
        temp = path.with_name("~excel-save.tmp")
        book.save(temp)
        os.replace(temp, path)


def header_index(sheet: Any, name: str) -> int:
    """The 1-based column of a header."""
    return next(c.column for c in sheet[1] if c.value == name)


def set_treasury(book: Any) -> None:
    clans = book["Clans"]
    clans.cell(2, header_index(clans, "Treasury")).value = 999


def insert_army_row(book: Any) -> None:
    book["Armies"].insert_rows(3)


def delete_character_row(book: Any) -> None:
    book["Characters"].delete_rows(3)


def type_order_row(book: Any) -> None:
    orders = book["Orders"]
    header = [c.value for c in orders[1]]
    row = dict.fromkeys(header)
    row.update({"Turn": 1, "Character": "Oda Nobunaga", "Order": "muster", "Target": "Owari", "Detail": "by hand"})
    orders.append([row[h] for h in header])


@pytest.fixture
def save_after_read(monkeypatch: pytest.MonkeyPatch) -> Callable[[Callable[[Path], None]], None]:
    """Make the next workbook read be followed by `action(path)`: the GM's save during the run."""

    def arrange(action: Callable[[Path], None]) -> None:
        read = WorkbookStore.read
        done: list[bool] = []

        def read_then_save(self: WorkbookStore, headers_only: Any = (), only: Any = None) -> Any:
            tabs = read(self, headers_only, only)
            if not done:
                done.append(True)
                action(self.path)
            return tabs

        monkeypatch.setattr(WorkbookStore, "read", read_then_save)

    return arrange


SAVES = {
    "a changed value (Treasury)": (set_treasury, True),
    "a changed value, saved Excel's way (new file renamed over)": (set_treasury, False),
    "an inserted row (Armies)": (insert_army_row, True),
    "a deleted row (Characters)": (delete_character_row, True),
    "a hand-typed row (Orders)": (type_order_row, True),
}


@pytest.mark.parametrize("case", sorted(SAVES))
def test_a_gm_save_between_read_and_write_exits_3_and_leaves_every_cell_as_the_gm_left_it(
    workbook: Path,
    save_after_read: Callable[[Callable[[Path], None]], None],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    case: str,
) -> None:
    edit, in_place = SAVES[case]
    saved: dict[str, bytes] = {}

    def save(path: Path) -> None:
        gm_saves(path, edit, in_place)
        saved["bytes"] = path.read_bytes()

    save_after_read(save)
    code, out, err = run_cli(["resolve", str(workbook), "--force"], capsys, monkeypatch)
    assert code == 3, err
    assert out == ""
    assert err.startswith(f"Error: {workbook} was saved while the engine was working (")
    assert err.endswith(
        "a GM saved it (from Excel, LibreOffice or any program) after the engine read it. Nothing was written. "
        "Run the command again: the next run reads that save and builds on it.\n"
    )
    assert workbook.read_bytes() == saved["bytes"]  # every cell, every byte, as the GM saved it
    assert files_beside(workbook) == []  # no lock, no temporary file left


def test_the_next_run_builds_on_the_gms_save(
    workbook: Path,
    save_after_read: Callable[[Callable[[Path], None]], None],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    save_after_read(lambda path: gm_saves(path, set_treasury))
    code, _, _ = run_cli(["resolve", str(workbook), "--force"], capsys, monkeypatch)
    assert code == 3
    monkeypatch.undo()
    code, _, err = run_cli(["resolve", str(workbook), "--force"], capsys, monkeypatch)
    assert code == 0, err
    treasury = [r for r in history(workbook) if r["Tab"] == "Clans" and r["Column"] == "Treasury"]
    oda = [r for r in treasury if r["Key"] == "Oda"]
    assert oda and oda[0]["Old"] == 999  # the turn started from the GM's 999, not the 32 first read


def test_a_save_while_the_new_file_is_being_written_is_caught_before_the_rename(
    workbook: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The last check is just before the rename: a GM saving during the engine's own save loses nothing."""
    saved: dict[str, bytes] = {}
    patch = xlsx_patch_workbook()

    def patch_then_gm_saves(source: Any, target: Any, cells: Any, *inflated: Any) -> None:
        patch(source, target, cells, *inflated)
        gm_saves(workbook, set_treasury)
        saved["bytes"] = workbook.read_bytes()

    monkeypatch.setattr("sheets_engine.stores.xlsx_workbook.patch_workbook", patch_then_gm_saves)
    code, _, err = run_cli(["resolve", str(workbook), "--force"], capsys, monkeypatch)
    assert code == 3, err
    assert "(it was saved while the engine was writing its changes)" in err
    assert workbook.read_bytes() == saved["bytes"]
    assert files_beside(workbook) == []


def xlsx_patch_workbook() -> Callable[..., None]:
    from sheets_engine.stores import xlsx_workbook

    return xlsx_workbook.patch_workbook


def test_a_run_that_is_not_disturbed_writes_and_a_second_write_builds_on_the_first(workbook: Path) -> None:
    """The guard remembers the file it wrote: a second write by the same store is not a conflict."""
    store = WorkbookStore(workbook)
    store.read()
    from sheets_engine.stores.base import CellWrite

    store.write([CellWrite("Clans", 2, 2, 40)])
    store.write([CellWrite("Clans", 3, 2, 41)])
    assert [r[1] for r in rows(workbook, "Clans")[1:3]] == [40, 41]


# Open in Excel or LibreOffice -------------------------------------------------------------------------


def excel_owner(name: str) -> bytes:
    """Excel's owner file `~$book.xlsx`: the name's length and the name, padded to 54 bytes, then the
    length again and the name in UTF-16, padded to 165 bytes."""
    ansi = bytes([len(name)]) + name.encode("cp1252")
    wide = bytes([len(name), 0]) + name.encode("utf-16-le")
    return (ansi.ljust(54, b" ") + wide).ljust(165, b" ")


OWNERS = {
    "Excel": ("~$campaign.xlsx", excel_owner("Ann Smith"), "Excel by Ann Smith"),
    "LibreOffice": (
        ".~lock.campaign.xlsx#",
        b"Ann Smith,ann,gm-laptop,01.12.2026 10:31,file:///home/ann/.config/libreoffice/4;",
        "LibreOffice by Ann Smith (user ann on gm-laptop, since 01.12.2026 10:31)",
    ),
    "LibreOffice, no name set": (
        ".~lock.campaign.xlsx#",
        b",ann,gm-laptop,01.12.2026 10:31,file:///home/ann/.config/libreoffice/4;",
        "LibreOffice by ann (on gm-laptop, since 01.12.2026 10:31)",
    ),
}


@pytest.mark.parametrize("program", sorted(OWNERS))
def test_a_workbook_open_in_excel_or_libreoffice_is_not_written_and_exits_4_naming_who(
    workbook: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, program: str
) -> None:
    name, content, who = OWNERS[program]
    owner = workbook.parent / name
    owner.write_bytes(content)
    before = workbook.read_bytes()
    code, out, err = run_cli(["resolve", str(workbook), "--force"], capsys, monkeypatch)
    assert (code, out) == (4, "")
    assert err == (
        f"Error: {workbook} is open in {who}. Nothing was written; run again once it is closed (saved or not: "
        f"the next run reads whatever is saved). If nobody has it open, delete {owner}\n"
    )
    assert workbook.read_bytes() == before
    assert files_beside(workbook) == [name]  # the lock was released; the owner file is the GM's


def test_a_workbook_opened_in_excel_during_the_run_is_not_written(
    workbook: Path,
    save_after_read: Callable[[Callable[[Path], None]], None],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    save_after_read(lambda path: (path.parent / "~$campaign.xlsx").write_bytes(excel_owner("Ann Smith")))
    before = workbook.read_bytes()
    code, _, err = run_cli(["resolve", str(workbook), "--force"], capsys, monkeypatch)
    assert code == 4
    assert err.startswith(f"Error: {workbook} is open in Excel by Ann Smith. Nothing was written")
    assert workbook.read_bytes() == before


# Links -------------------------------------------------------------------------------------------------


@pytest.fixture
def linked(workbook: Path) -> Path:
    link = workbook.parent / "current.xlsx"
    link.symlink_to(workbook.name)
    return link


def test_a_run_through_a_link_writes_the_real_file_and_the_link_stays_a_link(workbook: Path, linked: Path) -> None:
    report = app.resolve(str(linked), now=NOW)
    assert report.summary["resolved"] is True
    assert linked.is_symlink() and os.readlink(linked) == workbook.name
    assert not workbook.is_symlink()
    assert len({r["Resolution"] for r in history(workbook)}) == 1
    assert files_beside(workbook) == ["current.xlsx"]  # no lock left, none named after the link


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


@pytest.mark.parametrize("first", ["the target", "the link"])
def test_a_link_and_its_target_resolved_at_once_never_both_write(
    workbook: Path,
    linked: Path,
    paused: tuple[threading.Event, threading.Event],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    first: str,
) -> None:
    one, other = (workbook, linked) if first == "the target" else (linked, workbook)
    inside, go = paused
    results: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: results.setdefault("first", app.resolve(str(one), now=NOW)))
    thread.start()
    assert inside.wait(timeout=30)
    before = workbook.read_bytes()
    code, _, err = run_cli(["resolve", str(other), "--force"], capsys, monkeypatch)
    assert code == 4
    assert err.startswith(f"Error: {workbook} is busy: another sheets-engine run (pid {os.getpid()} on ")
    assert f"delete {lock_path(workbook)}\n" in err  # one lock, beside the real file
    assert workbook.read_bytes() == before
    go.set()
    thread.join(timeout=60)
    assert results["first"].summary["resolved"] is True
    assert len({r["Resolution"] for r in history(workbook)}) == 1
    assert linked.is_symlink() and os.readlink(linked) == workbook.name
    assert files_beside(workbook) == ["current.xlsx"]


def test_processes_started_at_once_through_a_link_and_its_target_never_both_write(workbook: Path, linked: Path) -> None:
    """Real processes: one resolves the turn; each other one is busy (exit 4) or, coming after it,
    finds the turn done (exit 0, nothing written)."""
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "sheets_engine", "resolve", str(path), "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=Path(__file__).resolve().parents[1],  # this checkout's sheets_engine
        )
        for path in (workbook, linked, workbook, linked)
    ]
    outcomes = []
    for run in runs:
        out, err = run.communicate(timeout=120)
        if run.returncode == 0:
            outcomes.append("resolved" if json.loads(out)["resolved"] else "nothing to do")
        else:
            assert run.returncode == 4, err
            assert b"is busy: another sheets-engine run" in err  # (its pid, once it has written it)
            outcomes.append("busy")
    assert outcomes.count("resolved") == 1, outcomes
    assert len({r["Resolution"] for r in history(workbook)}) == 1
    assert linked.is_symlink() and os.readlink(linked) == workbook.name
    assert files_beside(workbook) == ["current.xlsx"]


# The lock is the OS's ------------------------------------------------------------------------------

HOLDER = r"""
import sys, time
from pathlib import Path
from sheets_engine.stores.xlsx import WorkbookStore
with WorkbookStore(Path(sys.argv[1])).lock("sheets-engine resolve"):
    Path(sys.argv[2]).touch()
    while not Path(sys.argv[3]).exists():
        time.sleep(0.01)
"""


def test_a_held_lock_stays_held_whatever_its_file_says(
    workbook: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The exclusion is the kernel's flock, not the file's contents: a lock file that names a dead
    process, while a live one holds the flock, is not taken over."""
    holding, release = tmp_path / "holding", tmp_path / "release"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(workbook), str(holding), str(release)])
    try:
        for _ in range(3000):
            if holding.exists():
                break
            threading.Event().wait(0.01)
        dead = {"pid": 999999999, "host": "h", "started": "2000-01-01 00:00:00", "token": "x"}
        lock_path(workbook).write_text(json.dumps(dead))
        before = workbook.read_bytes()
        code, _, err = run_cli(["resolve", str(workbook), "--force"], capsys, monkeypatch)
        assert code == 4
        assert err.startswith(f"Error: {workbook} is busy: another sheets-engine run (pid 999999999 on h, ")
        assert workbook.read_bytes() == before
    finally:
        release.touch()
        holder.wait(timeout=60)
    code, _, err = run_cli(["resolve", str(workbook), "--force"], capsys, monkeypatch)
    assert code == 0, err  # the holder ended: the OS freed its lock


# Faults that last: exit 2 with what to do --------------------------------------------------------------


def test_a_read_only_workbook_is_refused_with_exit_2(
    workbook: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    workbook.chmod(0o444)
    before = workbook.read_bytes()
    code, _, err = run_cli(["resolve", str(workbook), "--force"], capsys, monkeypatch)
    assert code == 2
    assert err == (
        f"Error: {workbook} is read-only (no write permission on the file), so the engine leaves it alone: "
        f"nothing was written. To let it write, run: chmod u+w {workbook}\n"
    )
    assert workbook.read_bytes() == before
    assert workbook.stat().st_mode & 0o777 == 0o444  # not replaced by a writable copy
    assert files_beside(workbook) == []


def test_a_read_only_link_target_is_refused_too(
    workbook: Path, linked: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    workbook.chmod(0o444)
    code, _, err = run_cli(["resolve", str(linked), "--force"], capsys, monkeypatch)
    assert code == 2
    assert err.endswith(f"To let it write, run: chmod u+w {workbook}\n")
    assert linked.is_symlink()


def _raise(error: OSError) -> Callable[..., Any]:
    def boom(*args: Any, **kwargs: Any) -> Any:
        raise error

    return boom


FAULTS = {
    "a full disk": (
        xlsx_zip,  # where the new workbook's bytes are written (parts copied as stored, see xlsx_zip)
        "write_zip",
        OSError(errno.ENOSPC, "No space left on device"),
        "No space left on device): the disk is full: free some space on it, then run again",
    ),
    "an immutable file": (
        os,
        "replace",
        PermissionError(errno.EPERM, "Operation not permitted"),
        "Operation not permitted): the system does not allow the workbook to be replaced (an immutable or "
        "append-only file: see `lsattr`, and `chattr -i` to lift it), then run again",
    ),
    "a folder this user may not write in": (
        xlsx.tempfile,
        "mkstemp",
        PermissionError(errno.EACCES, "Permission denied"),
        "Permission denied): this user may not write in the workbook's folder: give it write permission, then "
        "run again",
    ),
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_lasting_file_system_fault_exits_2_saying_what_to_do(
    workbook: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    target, name, error, advice = FAULTS[fault]
    before = workbook.read_bytes()
    monkeypatch.setattr(target, name, _raise(error))
    code, _, err = run_cli(["resolve", str(workbook), "--force"], capsys, monkeypatch)
    monkeypatch.undo()
    assert code == 2
    assert err == f"Error: Cannot write {workbook} ({advice}. The workbook is unchanged.\n"
    assert workbook.read_bytes() == before
    assert files_beside(workbook) == []


def test_an_io_error_is_not_lasting_and_exits_1(
    workbook: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "replace", _raise(OSError(errno.EIO, "Input/output error")))
    code, _, err = run_cli(["resolve", str(workbook), "--force"], capsys, monkeypatch)
    assert code == 1
    assert err.startswith("Error: unexpected failure: OSError: [Errno 5] Input/output error")


def test_a_file_size_limit_exits_2(workbook: Path) -> None:
    """A real limit (`ulimit -f`) on the process: the new file cannot be written whole."""
    limit = workbook.stat().st_size // 2

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    before = workbook.read_bytes()
    done = subprocess.run(
        [sys.executable, "-m", "sheets_engine", "resolve", str(workbook), "--force"],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=small_files,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        f"Error: Cannot write {workbook} (File too large): the new workbook would be larger than the file-size "
        "limit (`ulimit -f` of the cron job, or the file system's): raise the limit, then run again. The workbook "
        "is unchanged.\n"
    )
    assert workbook.read_bytes() == before
    assert files_beside(workbook) == []
