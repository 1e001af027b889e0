"""The local workbook store (.xlsx): the embedded default.

Reads go through calamine, writes through `xlsx_patch` (only the changed rows are rewritten), new
workbooks through openpyxl. A GM's extra columns, formulas in untouched cells and formatting
survive; the workbook is written to a temporary file and renamed over the original, so a crash
never leaves a half-written workbook. Every write holds the workbook's lock (stores/lock.py), and
the service layer holds it for a whole read-resolve-write.

GMs keep the workbook open and save it while cron runs. So a write goes through only if the file
on disk is still the one read (same device, inode, size and modification time, and the same bytes:
a digest of what was read), checked under the lock just before the rename; otherwise nothing is
written (`WorkbookChanged`, exit 3) and the next run builds on the GM's save. A workbook open in
Excel or LibreOffice (their owner files beside it) is not written (`WorkbookOpen`, exit 4), nor is
a read-only one (exit 2). A path that is a symbolic link is followed: the lock, the check and the
rename act on the real file, and the link stays a link.
"""

from __future__ import annotations

import errno
import hashlib
import io
import os
import shutil
import tempfile
import zipfile
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sheets_engine.stores.base import Choice, RawTab, RowsAppended, StoreError, TabsRead, Write
from sheets_engine.stores.guard import ConflictError
from sheets_engine.stores.lock import CampaignBusy, FileLock


@dataclass(frozen=True)
class Snapshot:
    """Which file was read: its identity on disk and a digest of its bytes."""

    device: int
    inode: int
    size: int
    mtime_ns: int
    digest: str  # sha256 of the bytes

    @classmethod
    def of(cls, stat: os.stat_result, data: bytes) -> Snapshot:
        """The snapshot of a file with this stat and these bytes."""
        return cls(stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, hashlib.sha256(data).hexdigest())

    def same_identity(self, stat: os.stat_result) -> bool:
        """True if the file with this stat is, by its identity, the one snapshotted."""
        return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns) == (
            self.device,
            self.inode,
            self.size,
            self.mtime_ns,
        )


class WorkbookChanged(ConflictError):
    """The workbook on disk is not the one the run read (a GM saved it meanwhile); nothing was written."""

    def __init__(self, path: Path, how: str) -> None:
        super().__init__(
            [],
            str(path),
            f"{path} was saved while the engine was working ({how}): a GM saved it (from Excel, LibreOffice or "
            "any program) after the engine read it. Nothing was written. Run the command again: the next run "
            "reads that save and builds on it.",
        )


class WorkbookOpen(CampaignBusy):
    """The workbook is open in Excel or LibreOffice (its owner file is beside it); nothing was written."""


# Permanent faults of the file system: running again changes nothing until someone acts (exit 2).
_SETUP_FAULTS = {
    errno.ENOSPC: "the disk is full: free some space on it, then run again",
    errno.EDQUOT: "the disk quota of this user is used up: free some space or raise the quota, then run again",
    errno.EFBIG: (
        "the new workbook would be larger than the file-size limit (`ulimit -f` of the cron job, or the file "
        "system's): raise the limit, then run again"
    ),
    errno.EPERM: (
        "the system does not allow the workbook to be replaced (an immutable or append-only file: see "
        "`lsattr`, and `chattr -i` to lift it), then run again"
    ),
    errno.EACCES: "this user may not write in the workbook's folder: give it write permission, then run again",
    errno.EROFS: "the workbook is on a read-only file system: move it or mount it writable, then run again",
}


class SetupFault(StoreError, OSError):
    """The file system refused the write for a reason that lasts (a full disk, a size limit, an
    immutable file): exit 2 with what to do, not exit 1 (which tells cron to try again)."""

    def __str__(self) -> str:
        return str(self.strerror)  # the message alone, without OSError's "[Errno 28]"


class WorkbookStore:
    """A campaign kept in one .xlsx file."""

    cell_limit = 32_767  # characters in a cell: Excel's limit (it truncates or refuses a longer one)

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.name = str(self.path)
        self._lock_depth = 0
        self._seen: Snapshot | None = None  # the file the last read() read (None: nothing read yet)
        self._inflated: dict[str, bytes] = {}  # the sheet XML that read inflated, by part: the write patches it

    @property
    def real(self) -> Path:
        """The workbook's real file: the path with every symbolic link followed."""
        return Path(os.path.realpath(self.path))

    @contextmanager
    def lock(self, command: str = "") -> Iterator[None]:
        """Hold the workbook's lock file for the block; raises CampaignBusy if another run has it.

        Re-entrant for this store object, so a write inside a locked read-resolve-write goes on.
        """
        if self._lock_depth:
            self._lock_depth += 1
            try:
                yield
            finally:
                self._lock_depth -= 1
            return
        held = FileLock(self.real, command)
        with _setup_faults(self.path):  # a full disk can refuse the lock file's few bytes too
            held.acquire()
        self._lock_depth = 1
        try:
            self._remove_leftovers()
            self._check_writable()
            yield
        finally:
            self._lock_depth = 0
            held.release()

    def _remove_leftovers(self) -> None:
        # Under the lock nobody else is writing: a temporary file is what a killed write left.
        real = self.real
        for temp in real.parent.glob(f".{real.name}.*.tmp"):
            temp.unlink(missing_ok=True)

    def _check_writable(self) -> None:
        """Refuse a workbook open in Excel or LibreOffice (exit 4) or one that is read-only (exit 2)."""
        for folder, name in {(self.path.parent, self.path.name), (self.real.parent, self.real.name)}:
            holder = open_by(folder, name)
            if holder is not None:
                program, who, owner = holder
                raise WorkbookOpen(
                    f"{self.path} is open in {program} by {who}. Nothing was written; run again once it is closed "
                    f"(saved or not: the next run reads whatever is saved). If nobody has it open, delete {owner}"
                )
        try:
            mode = self.real.stat().st_mode
        except FileNotFoundError:
            return  # a new workbook
        if not mode & 0o222 or not os.access(self.real, os.W_OK):
            raise StoreError(
                f"{self.path} is read-only (no write permission on the file), so the engine leaves it alone: "
                f"nothing was written. To let it write, run: chmod u+w {self.real}"
            )

    def exists(self) -> bool:
        """True if the workbook file is there."""
        return self.path.is_file()

    def read(self, headers_only: Collection[str] = (), only: Collection[str] | None = None) -> dict[str, RawTab]:
        """Every tab's values (formulas read as the values the workbook last computed).

        calamine (Rust) parses a sheet some thirty times faster than openpyxl's reader. With `only`,
        the other tabs (a GM's own) are not read at all. Error cells and formulas, which calamine
        reads as empty cells, are found in the sheet XML (xlsx_cells) and come with each tab.
        """
        from python_calamine import CalamineError, CalamineWorkbook

        from sheets_engine.stores.xlsx_cells import declared_extents, header_and_length, scan_workbook

        if not self.path.is_file():
            raise StoreError(f"No workbook at {self.path}. Create one with: sheets-engine init {self.path}")
        try:
            data, snapshot = _load(self.real)
            book = CalamineWorkbook.from_filelike(io.BytesIO(data))  # exactly the bytes snapshotted
            light = {name.strip().casefold() for name in headers_only}
            wanted = None if only is None else {" ".join(name.split()).casefold() for name in only}
            titles = [t for t in book.sheet_names if wanted is None or " ".join(t.split()).casefold() in wanted]
            full = [t for t in titles if t.strip().casefold() not in light]
            # the bytes snapshotted, not the path: a save meanwhile must not mix two files
            inflated: dict[str, bytes] = {}
            facts = scan_workbook(io.BytesIO(data), full, inflated)
            declared = declared_extents(io.BytesIO(data), [t for t in titles if t not in full])
            tabs = {}
            for title in titles:
                if title not in full:
                    if title in declared:
                        _check_extent(self.path, title, *declared[title])
                    # History: its head and its last row from the sheet XML, its rows never parsed
                    quick = header_and_length(io.BytesIO(data), title)
                    if quick is not None:
                        tabs[title] = RawTab(title, _raw_tab(title, [quick[0]]).header, [], quick[1])
                    else:
                        tabs[title] = _header_only(title, book.get_sheet_by_name(title))
                    continue
                found = facts.get(title)
                if found is not None:
                    _check_extent(self.path, title, found.rows, found.columns)
                raw = _raw_tab(title, book.get_sheet_by_name(title).to_python(skip_empty_area=False))
                if found is not None and (found.errors or found.formulas):
                    raw = replace(raw, errors=found.errors, formulas=found.formulas)
                tabs[title] = raw
            self._seen, self._inflated = snapshot, inflated
            return TabsRead(tabs, book.sheet_names)  # the others' names too, for a missing tab's nearest
        except (CalamineError, zipfile.BadZipFile, OSError, KeyError, ValueError) as error:
            raise StoreError(f"{self.path} is not a readable .xlsx workbook ({error})") from error

    def write(self, cells: Sequence[Write]) -> None:
        """Set these cells and save atomically (temporary file, then rename).

        Only the rows holding changed cells are rewritten (see xlsx_patch): everything else in
        the file, a GM's formulas, formatting, extra columns and charts included, is copied as is.
        Raises WorkbookChanged (nothing written) if the file is not the one the last read() read.
        """
        if not cells:
            return
        from sheets_engine.stores.xlsx_codec import Appended
        from sheets_engine.stores.xlsx_patch import SheetWrites

        grouped: dict[str, SheetWrites] = {}
        for cell in cells:
            tab = grouped.setdefault(cell.tab, SheetWrites())
            if isinstance(cell, RowsAppended):  # History's rows: written whole, not cell by cell
                tab.appended.append(Appended(cell.first_row, cell.columns, cell.rows))
            else:
                tab.setdefault(cell.row, {})[cell.column] = cell.value
        with self.lock(), _setup_faults(self.path):
            self._check_writable()
            data, current = _load(self.real)
            self._check_unchanged(current)
            self._patch(grouped, data, current)

    def _check_unchanged(self, current: Snapshot) -> None:
        """Raise WorkbookChanged unless the file is the one the last read() read."""
        seen = self._seen
        if seen is None or seen == current:
            return
        if seen.digest != current.digest:
            how = (
                f"its size went from {seen.size:,} to {current.size:,} bytes"
                if seen.size != current.size
                else "its contents differ from what the engine read"
            )
        else:
            how = "it was replaced by another copy of it"
        raise WorkbookChanged(self.path, how)

    def _patch(self, grouped: Mapping[str, Mapping[int, Mapping[int, Any]]], data: bytes, current: Snapshot) -> None:
        from sheets_engine.stores.xlsx_codec import PatchError
        from sheets_engine.stores.xlsx_workbook import patch_workbook

        def fill(temp: str) -> None:
            try:
                # the bytes checked: never a newer save; and as they are the ones read (the same digest),
                # the sheets read need not be inflated again
                same = self._seen is not None and self._seen.digest == current.digest
                patch_workbook(io.BytesIO(data), temp, grouped, self._inflated if same else None)
            except PatchError as error:
                raise StoreError(f"{self.path}: {error}; nothing was written") from error

        self._replace(fill, current)

    def _replace(self, fill: Any, expected: Snapshot | None = None) -> None:
        """Write the new workbook beside the old one with `fill(temp path)`, then rename it over.

        A crash before the rename leaves the old workbook; after it, the new one; never half of one.
        With `expected`, the file must still be that one just before the rename (a GM may have saved
        while the new file was being written).
        """
        real = self.real
        handle, temp = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
        os.close(handle)
        try:
            fill(temp)
            _keep_mode(real, temp)
            with open(temp, "rb") as saved:
                os.fsync(saved.fileno())
                written = saved.read()
            if expected is not None:
                self._check_writable()  # opened in Excel meanwhile: leave it alone
                if not expected.same_identity(real.stat()):
                    raise WorkbookChanged(self.path, "it was saved while the engine was writing its changes")
            os.replace(temp, real)
            self._seen = Snapshot.of(real.stat(), written)  # a later write builds on this one
            self._inflated = {}  # the sheets read are not the ones on disk now
            _sync_directory(real.parent)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise

    def create(self, tabs: dict[str, list[list[Any]]], overwrite: bool = False, choices: Sequence[Choice] = ()) -> None:
        """Write a new workbook with these tabs (header row bold and frozen)."""
        from openpyxl import Workbook
        from openpyxl.cell import WriteOnlyCell
        from openpyxl.styles import Font

        if self.path.exists() and not overwrite:
            raise StoreError(f"{self.path} already exists; add --force to replace it")
        book = Workbook(write_only=True)  # streams rows: a 100,000-province campaign fits in memory
        bold = Font(bold=True)
        for title, rows in tabs.items():
            sheet = book.create_sheet(title)
            sheet.freeze_panes = "A2"
            for number, values in enumerate(rows, start=1):
                cells = []
                for value in values:
                    cell = WriteOnlyCell(sheet)
                    _set(cell, value)
                    if number == 1:
                        cell.font = bold
                    cells.append(cell)
                sheet.append(cells)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.lock(), _setup_faults(self.path):
            self._save(book)

    def _save(self, book: Any) -> None:
        self._replace(book.save)


def _load(path: Path) -> tuple[bytes, Snapshot]:
    """The file's bytes and its snapshot, from one open file (a rename meanwhile cannot mix two files)."""
    with open(path, "rb") as file:
        stat = os.fstat(file.fileno())
        data = file.read()
    return data, Snapshot.of(stat, data)


@contextmanager
def _setup_faults(path: Path) -> Iterator[None]:
    """Turn the file system's lasting refusals into SetupFault (exit 2), saying what to do."""
    try:
        yield
    except SetupFault:
        raise
    except OSError as error:
        advice = _SETUP_FAULTS.get(error.errno or 0)
        if advice is None:
            raise  # transient or unknown (an I/O error): exit 1, cron tries again
        raise SetupFault(
            error.errno, f"Cannot write {path} ({error.strerror or error}): {advice}. The workbook is unchanged."
        ) from error


def open_by(folder: Path, name: str) -> tuple[str, str, Path] | None:
    """(program, who, owner file) if Excel or LibreOffice has the workbook `name` open, else None.

    Excel keeps `~$name` beside an open workbook and LibreOffice `.~lock.name#`; both hold the
    user's name.
    """
    libre = folder / f".~lock.{name}#"
    excel = folder / f"~${name}"
    for program, owner, parse in (("LibreOffice", libre, _libreoffice_owner), ("Excel", excel, _excel_owner)):
        try:
            data = owner.read_bytes()
        except FileNotFoundError:
            continue
        except OSError:
            data = b""
        who = "".join(char for char in parse(data) if char.isprintable())  # no control characters on a terminal
        return program, who or "an unknown user", owner
    return None


def _libreoffice_owner(data: bytes) -> str:
    """`Ann Smith,ann,gm-laptop,01.12.2026 10:31,file:///...;` -> 'Ann Smith (user ann on gm-laptop, since ...)'."""
    text = data.decode("utf-8", errors="replace").strip().rstrip(";")
    fields: list[str] = []
    field, escaped = "", False
    for char in text:  # LibreOffice escapes , ; and \ with a backslash
        if escaped:
            field, escaped = field + char, False
        elif char == "\\":
            escaped = True
        elif char == ",":
            fields.append(field)
            field = ""
        else:
            field += char
    fields.append(field)
    fields += [""] * (4 - len(fields))
    name, user, host, since = (f.strip() for f in fields[:4])
    who = name or user or "an unknown user"
    where = " ".join(x for x in (f"user {user}" if name and user and user != name else "", host and f"on {host}") if x)
    shown = ", ".join(x for x in (where, since and f"since {since}") if x)
    return f"{who} ({shown})" if shown else who


def _excel_owner(data: bytes) -> str:
    """The user name in Excel's owner file: a length byte and the name, then (at 54) the name in UTF-16."""
    if len(data) > 56:
        length = data[54]
        wide = data[56 : 56 + 2 * length]
        if length and len(wide) == 2 * length:
            name = wide.decode("utf-16-le", errors="replace").strip()
            if name:
                return name
    if data and 0 < data[0] < len(data):
        name = data[1 : 1 + data[0]].decode("cp1252", errors="replace").strip()
        if name:
            return name
    return "an unknown user"


def _keep_mode(target: Path, temp: str) -> None:
    """Give the new file the workbook's permissions (mkstemp makes it private to its owner, and a
    GM sharing the workbook with a group would lose it on the first save)."""
    if target.exists():
        shutil.copymode(target, temp)
    else:
        os.chmod(temp, 0o666 & ~_umask())


def _umask() -> int:
    try:  # Linux says it without changing it
        status = Path("/proc/self/status").read_text()
        return int(next(line.split()[1] for line in status.splitlines() if line.startswith("Umask:")), 8)
    except (OSError, StopIteration, ValueError, IndexError):
        return 0o022


def _sync_directory(directory: Path) -> None:
    """Make the rename itself durable: a power cut after it must not bring the old workbook back."""
    if os.name != "posix":
        return
    handle = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


MAX_CELLS = 25_000_000  # a tab read as a grid of more cells than this is a stray far-away value, not data


def _check_extent(path: Path, title: str, rows: int, columns: int) -> None:
    """Refuse a tab whose grid would be vast (one value at XFD200000 is 3 billion cells to calamine)."""
    if rows * columns > MAX_CELLS:
        from sheets_engine.stores.xlsx_codec import column_letters

        raise StoreError(
            f"{path}: the {title} tab reaches cell {column_letters(columns)}{rows}, far beyond any campaign's data "
            f"(more than {MAX_CELLS:,} cells to read); clear the far-away cells (Ctrl+End finds the last one) "
            "and run again"
        )


def _header_only(title: str, sheet: Any) -> RawTab:
    """A tab's header and last used row, without turning its rows into Python values."""
    first: list[Any] = next(iter(sheet.iter_rows()), [])
    last = sheet.end[0] + 1 if sheet.height else 0  # calamine's end is 0-based (row, column)
    return RawTab(title, _raw_tab(title, [list(first)]).header, [], last)


def _raw_tab(title: str, values: list[list[Any]]) -> RawTab:
    header: list[Any] = list(values[0]) if values else []
    rows: list[tuple[int, list[Any]]] = []
    last = 1 if values else 0
    for number, cells in enumerate(values[1:], start=2):
        if any(v is not None and v != "" for v in cells):
            # calamine gives every number as a float; a whole number reads back as it was written
            rows.append((number, [int(v) if type(v) is float and v.is_integer() else v for v in cells]))
            last = number
    while header and (header[-1] is None or header[-1] == ""):
        header.pop()
    return RawTab(title, header, rows, last)


def _set(cell: Any, value: Any) -> None:
    if isinstance(value, str) and value == "":
        value = None
    cell.value = value
    if isinstance(value, str) and value.startswith("="):
        cell.data_type = "s"  # player text stays text: never a formula
