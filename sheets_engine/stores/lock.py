"""An exclusive lock next to a workbook, so that two runs never write one campaign at once.

The lock is the OS's: `fcntl.flock` on `campaign.xlsx.lock` (named after the real file, links
followed), so the kernel frees it when its process ends, however it ends. The file holds who took
it (pid, host, process start, time) for the message a second run prints, and is removed when the
run ends. A run that finds it taken stops at once with `CampaignBusy` (the CLI's exit code 4), so
a cron job that fires twice, or a GM resolving by hand while cron runs, never loses a turn.

A lock file found with no flock on it was left by a run that was killed: its holder is checked
before it is taken over, with a warning that says whose it was. A holder whose process is still
alive on this host (an older sheets-engine that did not flock), or one on another host younger
than `STALE_AFTER` (a network file system may not pass flocks on), still holds it; any lock is
reported with the command to remove it by hand if the GM knows that no run is going on.
"""

from __future__ import annotations

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

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

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
        self._handle: int | None = None  # the open lock file whose flock is held

    def acquire(self) -> None:
        """Take the lock, or raise CampaignBusy saying who has it."""
        for _ in range(_TRIES):
            handle, created = self._open()
            if not _flock(handle):
                os.close(handle)
                _, current, _ = self._read()
                raise CampaignBusy(self._busy_message(current))
            if not _same_file(handle, self.path):
                os.close(handle)  # its holder removed it as we opened it: open the new one
                continue
            if not created:
                reason = self._stale()
                if reason is None:
                    os.close(handle)
                    continue
                if not reason:
                    os.close(handle)
                    _, current, _ = self._read()
                    raise CampaignBusy(self._busy_message(current))
                log.warning("took over the stale lock %s: %s", self.path, reason)
            try:
                self._write_holder(handle)
            except BaseException:
                self._unlink_and_close(handle)  # a lock nobody holds must not stay behind
                raise
            return
        raise CampaignBusy(self._busy_message(None))

    def release(self) -> None:
        """Remove the lock file, if it is still this run's, and let the OS free the lock."""
        holder, self.holder = self.holder, None
        handle, self._handle = self._handle, None
        if holder is None or handle is None:
            return
        _, current, _ = self._read()
        if current is not None and current.token == holder.token and _same_file(handle, self.path):
            self._unlink_and_close(handle)
        else:  # cannot happen while the flock is held, short of a GM deleting the file by hand
            os.close(handle)
            log.warning("the lock %s was replaced while this run held it", self.path)

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.release()

    # internals ---------------------------------------------------------------------------------
    def _open(self) -> tuple[int, bool]:
        """The lock file, opened for writing; True if this call created it."""
        for _ in range(_TRIES):
            try:
                return os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o644), True
            except FileExistsError:
                pass
            except OSError as error:
                raise StoreError(f"cannot create the lock file {self.path} ({error.strerror})") from error
            try:
                return os.open(self.path, os.O_RDWR), False
            except FileNotFoundError:
                continue  # removed between the two opens: create it
            except OSError as error:
                raise StoreError(f"cannot open the lock file {self.path} ({error.strerror})") from error
        raise CampaignBusy(self._busy_message(None))

    def _stale(self) -> str | None:
        """With the flock held on a lock file someone left: why it is stale ("" if it is not: a run of
        an older sheets-engine, without flock, or one on another host, whose flock a network file
        system may not pass on, may hold it); None if it is gone now."""
        there, current, age = self._read()
        if not there:
            return None
        return stale_reason(current, age, socket.gethostname(), datetime.now(UTC))

    def _write_holder(self, handle: int) -> None:
        holder = Holder(
            os.getpid(),
            socket.gethostname(),
            datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S"),
            process_start(os.getpid()),
            self.command,
            uuid.uuid4().hex,
        )
        os.ftruncate(handle, 0)
        os.lseek(handle, 0, os.SEEK_SET)
        os.write(handle, json.dumps(asdict(holder)).encode())
        os.fsync(handle)
        self.holder, self._handle = holder, handle

    def _unlink_and_close(self, handle: int) -> None:
        # Unlinked while still locked: a run that opened the old file finds it gone (_same_file)
        try:
            self.path.unlink(missing_ok=True)
        finally:
            os.close(handle)

    def _read(self) -> tuple[bool, Holder | None, float]:
        """Is there a lock file; its holder (None if unreadable); its age in seconds."""
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace")
            age = time.time() - self.path.stat().st_mtime
        except FileNotFoundError:
            return False, None, 0.0
        return True, Holder.parse(text), age

    def _busy_message(self, holder: Holder | None) -> str:
        who = f"another sheets-engine run ({holder.describe()})" if holder else "another sheets-engine run"
        return (
            f"{self.target} is busy: {who} is working on it. Nothing was read or written; try again when it "
            f"has finished. If you are sure no run is going on, delete {self.path}"
        )


def _flock(handle: int) -> bool:
    """Take the OS's exclusive lock on the open file without waiting; False if another holds it.

    The OS frees it when the holder's process ends, however it ends (a SIGKILL, a power cut).
    """
    if fcntl is not None:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True
    import msvcrt  # Windows: a lock on the file's first byte, freed with the handle

    try:
        msvcrt.locking(handle, msvcrt.LK_NBLCK, 1)
    except OSError:
        return False
    return True


def _same_file(handle: int, path: Path) -> bool:
    """Is the open file still the one at `path` (not removed, or replaced, since it was opened)?"""
    try:
        now = path.stat()
    except FileNotFoundError:
        return False
    opened = os.fstat(handle)
    return (opened.st_dev, opened.st_ino) == (now.st_dev, now.st_ino)
