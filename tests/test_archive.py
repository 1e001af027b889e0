"""`archive SOURCE --keep-turns N [--to ARCHIVE]`: History bounded as a campaign ages (issue 15).

The demo resolved for four turns, then the History rows of turns 1 and 2 moved to an archive: the
archive and History together hold every row History held, in order; a rollback of a turn kept
gives what it gives without the archive; a rollback to an archived turn is refused naming the
oldest turn left; a run that stopped half-way is finished by the next without a row twice. The same
on the Google stand-in, where History's rows are deleted (their cells freed) and its grid trimmed
to its header's width.
"""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sheets_engine import app
from sheets_engine import archive as archiving
from sheets_engine.archive import archive_history, cut
from sheets_engine.cli import cli
from sheets_engine.core.history import read_entries
from sheets_engine.rollback import RollbackError
from sheets_engine.stores.base import StoreError
from sheets_engine.stores.gsheets import GoogleSheetsStore
from sheets_engine.stores.gsheets_http import RetryPolicy
from sheets_engine.stores.xlsx import WorkbookStore
from tests.standin.campaigns import demo_tabs
from tests.standin.fake_sheets import FakeSheets
from tests.standin.keys import TEST_ACCOUNT, write_key_file
from tests.standin.server import serve

NOW = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)
CELLS_RESTORED, GOOGLE_RESTORED = 47, 34  # rolling turn 3 back: the workbook played four turns, Google three
GAME, ARCHIVE = "1ArchiveCampaign0000000000000000000000000000", "1ArchiveOfHistory000000000000000000000000000"


def resolve(source: Any, turn: int) -> None:
    report = app.resolve(source, now=NOW + timedelta(days=turn), force=True, empty=True)  # some have no orders
    assert report.summary["resolved"] is True and report.summary["turn"] == turn, report.summary


def history(path: Path) -> list[list[Any]]:
    """History's rows as the workbook holds them (values only)."""
    return [cells for _, cells in WorkbookStore(path).read()["History"].rows]


def tabs(path: Path) -> dict[str, Any]:
    """Every tab but History, as read."""
    return {t: tab.rows for t, tab in WorkbookStore(path).read().items() if t != "History"}


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo with four turns resolved."""
    path = tmp_path_factory.mktemp("archive") / "campaign.xlsx"
    app.init(str(path), demo=True)
    for turn in range(1, 5):
        resolve(str(path), turn)
    return path


@pytest.fixture
def campaign(played: Path, tmp_path: Path) -> Path:
    path = tmp_path / "campaign.xlsx"
    shutil.copy(played, path)
    return path


def turns(rows: list[list[Any]]) -> list[int]:
    return sorted({int(r[0]) for r in rows})


def test_older_turns_move_to_the_archive_and_history_stays_complete(campaign: Path, tmp_path: Path) -> None:
    before, others = history(campaign), tabs(campaign)
    done = archive_history(WorkbookStore(campaign), WorkbookStore(tmp_path / "old.xlsx"), keep_turns=2)
    moved, kept = history(tmp_path / "old.xlsx"), history(campaign)
    assert turns(moved) == [1, 2] and turns(kept) == [3, 4]
    assert moved + kept == before  # every row, in order, once
    assert (done.moved, done.appended, done.kept, done.oldest_kept, done.turns) == (
        len(moved), len(moved), len(kept), 3, (1, 2)
    )  # fmt: skip
    assert (
        WorkbookStore(tmp_path / "old.xlsx").read()["History"].header
        == WorkbookStore(campaign).read()["History"].header
    )
    assert tabs(campaign) == others  # nothing else in the campaign changed


def test_a_rollback_of_a_turn_kept_is_the_same_as_without_the_archive(campaign: Path, tmp_path: Path) -> None:
    plain = tmp_path / "plain.xlsx"
    shutil.copy(campaign, plain)
    archive_history(WorkbookStore(campaign), WorkbookStore(tmp_path / "old.xlsx"), keep_turns=2)
    ours = app.rollback(str(campaign), 3, now=NOW + timedelta(days=9))
    theirs = app.rollback(str(plain), 3, now=NOW + timedelta(days=9))
    assert ours.summary == theirs.summary
    assert ours.summary["cells restored"] == theirs.summary["cells restored"] == CELLS_RESTORED
    assert tabs(campaign) == tabs(plain)
    # and the turns resolve again
    resolve(str(campaign), 3)


def test_a_rollback_to_an_archived_turn_is_refused_naming_the_oldest_turn_kept(campaign: Path, tmp_path: Path) -> None:
    archive_history(WorkbookStore(campaign), WorkbookStore(tmp_path / "old.xlsx"), keep_turns=2)
    before = campaign.read_bytes()
    with pytest.raises(RollbackError) as error:
        app.rollback(str(campaign), 2)
    assert str(error.value) == (
        "turn 2 is older than History, which starts at turn 3 (older turns were moved to an archive by "
        "`sheets-engine archive`): the oldest turn a rollback can undo is 3. Nothing was written"
    )
    assert campaign.read_bytes() == before


def test_a_run_that_stopped_after_appending_is_finished_without_a_row_twice(
    campaign: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = history(campaign)
    target = tmp_path / "old.xlsx"

    def dies(*args: Any) -> None:
        raise StoreError("the connection dropped")

    monkeypatch.setattr(app.Run, "delete_rows", dies)  # the rows were appended to the archive, then it died
    with pytest.raises(StoreError):
        archive_history(WorkbookStore(campaign), WorkbookStore(target), keep_turns=2)
    assert history(campaign) == before and turns(history(target)) == [1, 2]
    monkeypatch.undo()
    done = archive_history(WorkbookStore(campaign), WorkbookStore(target), keep_turns=2)
    assert done.appended == 0 and done.moved == len(history(target))
    assert history(target) + history(campaign) == before
    again = archive_history(WorkbookStore(campaign), WorkbookStore(target), keep_turns=2)
    assert (again.moved, again.appended) == (0, 0)


def test_the_cut_never_strands_a_rollback_kept() -> None:
    """A rollback to before turn 2 made after turn 3: keeping one turn keeps turn 2's runs too."""
    from sheets_engine.core.history import Entry

    def row(n: int, turn: int, run: str, cause: str = "tax") -> Entry:
        return Entry(n, turn, run, "Provinces", "Owari", "Gold", 1, 2, cause)

    entries = [row(2, 1, "a"), row(3, 2, "b"), row(4, 3, "c"), row(5, 2, "d", "rollback to before turn 2"),
               row(6, 2, "e"), row(7, 3, "f")]  # fmt: skip
    assert cut(entries, 1) == 1  # turn 1 only: cutting at turn 3 would strand the rollback to turn 2
    assert cut(entries, 3) == 0 and cut([], 2) == 0


def test_the_command_archives_a_workbook_beside_it(campaign: Path) -> None:
    moved = len([r for r in history(campaign) if int(r[0]) <= 3])
    kept = len(history(campaign)) - moved
    result = CliRunner().invoke(cli, ["archive", str(campaign), "--keep-turns", "1"])
    assert result.exit_code == 0, result.output
    target = campaign.with_name("campaign-archive.xlsx")
    assert result.output == (
        f"Moved {moved} History rows of turns 1-3 to {target}. History keeps {kept} rows, from turn 4: "
        "the oldest turn a rollback can undo.\n"
    )
    result = CliRunner().invoke(cli, ["archive", str(campaign), "--keep-turns", "1"])
    assert result.output == f"Nothing to archive: History holds {kept} rows, all of the last 1 turn.\n"
    # the archive is read as a campaign's History is
    result = CliRunner().invoke(cli, ["history", str(target), "--turn", "2", "--json"])
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.output)["rows"]) == len([r for r in history(target) if int(r[0]) == 2]) > 0


def test_the_command_wants_an_archive_spreadsheet_for_a_google_sheet() -> None:
    result = CliRunner().invoke(cli, ["archive", f"gsheet:{GAME}", "--keep-turns", "5"])
    assert result.exit_code == 2
    assert "give the archive with --to (a Google Sheet shared with the service account)" in result.output


# -- on Google ---------------------------------------------------------------------------------------
class Google:
    def __init__(self, fake: FakeSheets, root: str, tmp: Path) -> None:
        self.fake, self.root = fake, root
        self.key_file = write_key_file(tmp, token_uri=f"{root}/token")
        fake.add_spreadsheet(GAME, "campaign", editors=[TEST_ACCOUNT])
        fake.add_spreadsheet(ARCHIVE, "archive", editors=[TEST_ACCOUNT])

    def store(self, key: str = GAME) -> GoogleSheetsStore:
        return GoogleSheetsStore.open(
            f"gsheet:{key}", self.key_file, api_root=self.root, retry=RetryPolicy(sleep=lambda s: None)
        )

    def grid(self, key: str, title: str) -> tuple[int, int]:
        sheet = self.fake.spreadsheets[key].sheet(title)
        assert sheet is not None
        return sheet.rows, sheet.columns


@pytest.fixture
def google(tmp_path: Path) -> Any:
    fake = FakeSheets()
    with serve(fake) as root:
        sheet = Google(fake, root, tmp_path)
        sheet.store().create(demo_tabs())
        for turn in range(1, 4):
            resolve(sheet.store(), turn)
        yield sheet


def test_on_google_history_rows_are_deleted_and_its_grid_trimmed(google: Google) -> None:
    before = google.fake.values(GAME, "History")
    entries = read_entries(google.store().read())
    kept = sum(1 for e in entries if e.turn == 3)
    assert google.grid(GAME, "History") == (1_000, 11)  # as init lays it out: as wide as its header
    history = google.fake.sheet_id(GAME, "History")  # as a campaign laid out before was: 26 columns
    google.fake.gm_update(GAME, {"appendDimension": {"sheetId": history, "dimension": "COLUMNS", "length": 15}})
    done = archive_history(google.store(), google.store(ARCHIVE), keep_turns=1)
    assert (done.moved, done.kept, done.oldest_kept) == (len(before) - 1 - kept, kept, 3)
    # the rows moved are deleted and the grid is 11 columns wide (its header's): their cells are freed
    assert google.grid(GAME, "History") == (1_000 - done.moved, 11)
    archived = google.fake.values(ARCHIVE, "History")
    assert archived[0] == before[0] and archived[1:] + google.fake.values(GAME, "History")[1:] == before[1:]
    assert [s.title for s in google.fake.spreadsheets[ARCHIVE].sheets] == ["History"]
    # rollback works for the turn kept, and is refused for one archived
    assert app.rollback(google.store(), 3, now=NOW + timedelta(days=9)).summary["cells restored"] == GOOGLE_RESTORED
    with pytest.raises(RollbackError, match="the oldest turn a rollback can undo is 3"):
        app.rollback(google.store(), 2)


def test_on_google_an_archive_that_would_pass_the_cell_limit_is_refused(
    google: Google, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(archiving, "GOOGLE_CELLS", 12_000)
    before = google.fake.values(GAME, "History")
    with pytest.raises(StoreError, match=r"would hold [\d,]+ cells, over Google's limit of 12,000: make a new archive"):
        archive_history(google.store(), google.store(ARCHIVE), keep_turns=1)
    assert google.fake.values(GAME, "History") == before


def test_on_google_a_gm_edit_in_history_before_the_delete_refuses_it(google: Google) -> None:
    from sheets_engine.stores.guard import ConflictError

    before = google.fake.values(GAME, "History")
    # after the read of the game's History, before the re-read that guards the delete
    google.fake.before(f"{GAME}:getByDataFilter", lambda fake: fake.put_values(GAME, "History!A2", [[77]]), skip=1)
    with pytest.raises(ConflictError):
        archive_history(google.store(), google.store(ARCHIVE), keep_turns=1)
    after = google.fake.values(GAME, "History")
    assert len(after) == len(before) and after[1][0] == 77  # nothing deleted
