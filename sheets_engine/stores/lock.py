"""An exclusive lock file next to a workbook, so that two runs never write one campaign at once.

`campaign.xlsx.lock` is created with O_CREAT | O_EXCL (the file system lets exactly one process
create it) and holds who took it: pid, host, process start and time. It is removed when the run
ends. A run that finds it taken stops at once with `CampaignBusy` (the CLI's exit code 4), so a
cron job that fires twice, or a GM resolving by hand while cron runs, never loses a turn.

A lock left behind by a run that was killed is stale: its process is gone (same host), or it is
older than `STALE_AFTER` (another host, whose processes cannot be seen; or a system without
POSIX process checks). A stale lock is taken
over with a warning that says whose it was; any other lock is reported with the command to remove
it by hand if the GM knows that no run is going on.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import time
import uuid
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Any

from sheets_engine.stores.base import StoreError

log = logging.getLogger(__name__)

STALE_AFTER = timedelta(hours=1)  # a resolution takes seconds; a lock this old from another host is dead
WRITING_GRACE = 10.0  # seconds a new lock file may stay empty while its creator writes who it is
_TRIES = 5  # take-over races lost in a row before giving up (another run keeps winning)


class CampaignBusy(StoreError):
    """Another run holds the campaign's lock: this one read and wrote nothing."""


@dataclass(frozen=True)
class Holder:
    """Who holds a lock, as its file says."""

    pid: int
    host: str
    started: str  # UTC, when the lock was taken
    process_start: str  # the holder's start time as the kernel keeps it ("" where unknown)
    command: str
    token: str  # unique per lock taken: only the lock's own run removes it

    @classmethod
    def parse(cls, text: str) -> Holder | None:
        """The holder written in a lock file, or None for an empty or unreadable file."""
        try:
            data: dict[str, Any] = json.loads(text)
            return cls(
                int(data["pid"]),
                str(data["host"]),
                str(data["started"]),
                str(data.get("process_start", "")),
                str(data.get("command", "")),
                str(data["token"]),
            )
        except (ValueError, KeyError, TypeError):
            return None

    def describe(self) -> str:
        """'pid 123 on host, since 2026-11-30 20:00:01 UTC (sheets-engine resolve)'."""
        where = f"pid {self.pid} on {self.host}, since {self.started} UTC"
        return f"{where} ({self.command})" if self.command else where


def lock_path(target: Path) -> Path:
    """The lock file of a workbook: `campaign.xlsx.lock` beside `campaign.xlsx`."""
    return target.with_name(target.name + ".lock")


def process_start(pid: int) -> str:
    """When the process started, as Linux counts it ("" elsewhere): tells a reused pid apart."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    # the command name may hold spaces and parentheses: fields are counted after the last ')'
    fields = stat[stat.rfind(")") + 2 :].split()
    return fields[19] if len(fields) > 19 else ""


def _alive(pid: int) -> bool:
    if os.name != "posix":  # (on Windows signal 0 is CTRL_C_EVENT: never send it)
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        return True
    return True


def stale_reason(holder: Holder | None, age: float, host: str, now: datetime) -> str:
    """Why a lock can be taken over ("" if it cannot): its run is gone, or it is too old to be alive."""
    if holder is None:
        return f"it is unreadable and was last written {age:.0f} s ago" if age > WRITING_GRACE else ""
    if holder.host == host and os.name == "posix":
        if not _alive(holder.pid):
            return f"its process ({holder.describe()}) is no longer running"
        if holder.process_start and process_start(holder.pid) not in ("", holder.process_start):
            return f"its process ({holder.describe()}) is gone; pid {holder.pid} is now another program"
        return ""
    try:
        taken = datetime.strptime(holder.started, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
    except ValueError:
        return ""
    if now - taken > STALE_AFTER:
        return f"it was taken by {holder.describe()}, more than {STALE_AFTER} ago"
    return ""


class FileLock:
    """The lock of one workbook, held for a `with` block (not re-entrant: see WorkbookStore.lock)."""

    def __init__(self, target: Path, command: str = "") -> None:
        self.target = Path(target)
        self.path = lock_path(self.target)
        self.command = command
        self.holder: Holder | None = None  # set while this object holds the lock

    def acquire(self) -> None:
        """Take the lock, or raise CampaignBusy saying who has it."""
        for _ in range(_TRIES):
            if self._create():
                return
            there, current, age = self._read()
            if not there:
                continue  # it was removed while we looked: try again
            reason = stale_reason(current, age, socket.gethostname(), datetime.now(UTC))
            if not reason:
                raise CampaignBusy(self._busy_message(current))
            if self._take_over(current):
                log.warning("took over the stale lock %s: %s", self.path, reason)
        raise CampaignBusy(self._busy_message(None))

    def release(self) -> None:
        """Remove the lock file, if it is still this run's."""
        holder, self.holder = self.holder, None
        if holder is None:
            return
        _, current, _ = self._read()
        if current is not None and current.token == holder.token:
            self.path.unlink(missing_ok=True)
        else:  # someone took it over as stale: theirs now, leave it
            log.warning("the lock %s was taken over while this run held it", self.path)

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.release()

    # internals ---------------------------------------------------------------------------------
    def _create(self) -> bool:
        try:
            handle = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            return False
        except OSError as error:
            raise StoreError(f"cannot create the lock file {self.path} ({error.strerror})") from error
        holder = Holder(
            os.getpid(),
            socket.gethostname(),
            datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S"),
            process_start(os.getpid()),
            self.command,
            uuid.uuid4().hex,
        )
        try:
            try:
                os.write(handle, json.dumps(asdict(holder)).encode())
                os.fsync(handle)
            finally:
                os.close(handle)
        except BaseException:
            self.path.unlink(missing_ok=True)  # a lock nobody holds must not stay behind
            raise
        self.holder = holder
        return True

    def _read(self) -> tuple[bool, Holder | None, float]:
        """Is there a lock file; its holder (None if unreadable); its age in seconds."""
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace")
            age = time.time() - self.path.stat().st_mtime
        except FileNotFoundError:
            return False, None, 0.0
        return True, Holder.parse(text), age

    def _take_over(self, stale: Holder | None) -> bool:
        """Move the stale lock aside; True if it was the one judged stale (then it is removed)."""
        aside = self.path.with_name(f"{self.path.name}.stale-{uuid.uuid4().hex[:8]}")
        try:
            os.rename(self.path, aside)  # atomic: of two runs taking over, one moves it
        except FileNotFoundError:
            return False
        moved = Holder.parse(aside.read_text(encoding="utf-8", errors="replace"))
        same = (moved is None and stale is None) or (moved is not None and stale is not None and moved == stale)
        if not same:
            # a fresh lock was taken between our look and the move: put it back (link fails if
            # yet another lock is there, which then holds instead)
            with contextlib.suppress(FileExistsError):
                os.link(aside, self.path)
        aside.unlink(missing_ok=True)
        return same

    def _busy_message(self, holder: Holder | None) -> str:
        who = f"another sheets-engine run ({holder.describe()})" if holder else "another sheets-engine run"
        return (
            f"{self.target} is busy: {who} is working on it. Nothing was read or written; try again when it "
            f"has finished. If you are sure no run is going on, delete {self.path}"
        )
