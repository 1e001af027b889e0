"""The golden workbooks: every tab's cells after scripted runs of each ruleset, kept in tests/data/golden/.

tests/test_golden.py plays the same scripts with the code as it stands and compares every cell of
every tab with the kept values (History's Resolution ids, random by design, are compared as the
order in which the runs appear). A change to the rules on purpose changes them: regenerate with

    python -m tests.golden write

and read the diff of the data in review (`python -m tests.golden compare OLD_DIR tests/data/golden`
names every cell that changed). The scripts use only the CLI and `app`, so the same file plays an older
checkout too: copy it into that checkout's tests/ and run `python -m tests.golden write --out DIR` from
its root; `--provinces N` changes the size of the generated campaign (the kept data uses 300; a
10,000-province one is compared by hand).

The kept data was written by the code at ef872ed (issue 26 changed no rule), and the Art of War
scenario's once more with the blank-cell rollback fix of the same change: its one difference from
ef872ed is History's Old of an order typed with its Status empty (recorded empty, not Pending). Issue 29
regenerated the Art of War scenario alone: after the person's order one run plays on into season 2 (its
bots up to the person's house, each season under a run id of its own), and a run that stops at a person's
house has the Step `to-person`. Issue 28's player loop regenerated the Clan War scenario alone: its
workbooks have the Form's tab (Form Responses 1, empty) and the Submitted and Email columns of Purchases,
Bids and Moves (empty in the demo's rows), and the Game key reminded_turn; no cell of the rules changed.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import openpyxl
from click.testing import CliRunner

DATA = Path(__file__).resolve().parent / "data" / "golden"
PROVINCES = 300  # the generated campaign's size: big enough for every rule to act, quick to play
T0 = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)  # a check before the first turn
T1 = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)
T2 = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)
T3 = datetime(2026, 12, 2, 20, 0, tzinfo=UTC)

Snapshots = dict[str, dict[str, list[list[Any]]]]  # snapshot -> tab -> rows (header first)


def cli(*args: str) -> None:
    """Run one command in-process; a failing command fails the script."""
    from sheets_engine.cli import cli as command

    done = CliRunner().invoke(command, list(args), catch_exceptions=False)
    if done.exit_code != 0:
        raise RuntimeError(f"sheets-engine {' '.join(args)} exited {done.exit_code}: {done.output}")


def check(path: Path, now: datetime) -> None:
    """`sheets-engine check` at `now` (the command reads the clock; the service takes it)."""
    from sheets_engine import app

    run = getattr(app, "check", None)
    if run is None:  # before the unit of work (ef872ed), check lived in its own module
        from sheets_engine.check import check as run
    run(str(path), now=now)


def save_layout(path: Path, now: datetime) -> None:
    """`sheets-engine map --save-layout` at `now`."""
    try:
        from sheets_engine.views import save_layout as keep
    except ImportError:  # before the unit of work (ef872ed), the map's places were kept by the map module
        from sheets_engine.mapping import save_layout as keep
    keep(str(path), now=now)


def resolve(path: Path, now: datetime, force: bool = False, empty: bool = False) -> None:
    """`sheets-engine resolve --now NOW` (`--force`, and `--empty` for a forced turn no order is given for:
    an engine from before issue 24 plays one without it, and has no such option)."""
    import inspect

    from sheets_engine import app

    asked = ["--force"] if force else []
    if empty and "empty" in inspect.signature(app.resolve).parameters:
        asked.append("--empty")
    cli("resolve", str(path), "--json", "--now", now.isoformat(), *asked)


def cell(value: Any) -> Any:
    """A cell as JSON holds it: dates as ISO text, empty text as None."""
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, timedelta):
        return str(value)
    return None if value == "" else value


def cells(path: Path) -> dict[str, list[list[Any]]]:
    """Every tab's values (trailing empty cells and rows dropped), History's run ids as "run 1", "run 2"..."""
    book = openpyxl.load_workbook(path, read_only=True)
    found: dict[str, list[list[Any]]] = {}
    for sheet in book.worksheets:
        rows = []
        for row in sheet.iter_rows(values_only=True):
            values = [cell(v) for v in row]
            while values and values[-1] is None:
                values.pop()
            rows.append(values)
        while rows and not rows[-1]:
            rows.pop()
        found[sheet.title] = rows
    book.close()
    history = found.get("History")
    if history and "Resolution" in history[0]:
        at = history[0].index("Resolution")
        runs: dict[Any, str] = {}
        for row in history[1:]:
            if at < len(row) and row[at] is not None:
                row[at] = runs.setdefault(row[at], f"run {len(runs) + 1}")
    return found


def sengoku_demo(folder: Path, take: Callable[[str, Path], None]) -> None:
    """The Sengoku demo: a check before the deadline, two turns, a recalc, the map's places kept."""
    path = folder / "demo.xlsx"
    cli("init", str(path), "--demo")
    check(path, T0)
    take("checked", path)
    resolve(path, T1)
    take("turn 1", path)
    resolve(path, T2)
    take("turn 2", path)
    save_layout(path, T3)
    take("layout kept", path)


def generated(folder: Path, take: Callable[[str, Path], None], provinces: int = PROVINCES) -> None:
    """A generated campaign: recalculated once, then its first two turns."""
    from sheets_engine import app

    path = folder / "generated.xlsx"
    cli("generate", str(path), "--provinces", str(provinces), "--seed", "7")
    app.recalc(str(path), now=T0)
    take("recalculated", path)
    resolve(path, T1, force=True, empty=True)  # a generated campaign has no orders: its turns are empty ones
    take("turn 1", path)
    resolve(path, T2, force=True, empty=True)
    take("turn 2", path)


CLAN_WAR_RESULTS = [
    {"Province": "Kakita", "Winner": "Lion"},
    {"Province": "Kakita", "Unit": "Crane Iron Warriors", "Models Lost": 6, "Final Status": "Broken",
     "Left Table": True, "Withdraw To": "Doji"},
    {"Province": "Kakita", "Unit": "Crane Duelists", "Models Lost": 12, "Final Status": "Destroyed"},
    {"Province": "Kakita", "Personality": "Doji Hoturi", "Wounds Over Max": 1},
    {"Province": "Kakita", "Unit": "Lion Cavalry", "Models Lost": 3, "Final Status": "Ready"},
    {"Province": "Shiro Hiruma", "Winner": "Crab"},
    {"Province": "Shiro Hiruma", "Unit": "Goblin Horde", "Models Lost": 30, "Final Status": "Routed",
     "Left Table": True, "Withdraw To": "Festering Pit"},
    {"Province": "Shiro Hiruma", "Unit": "Crab Wall Guard", "Models Lost": 4, "Final Status": "Ready"},
]  # fmt: skip


def append_rows(path: Path, tab: str, rows: list[dict[str, Any]]) -> None:
    """Rows a GM or a player types below a tab's last row."""
    book = openpyxl.load_workbook(path)
    sheet = book[tab]
    header = [c.value for c in sheet[1]]
    for row in rows:
        sheet.append([row.get(h) for h in header])
    book.save(path)


def clan_war_demo(folder: Path, take: Callable[[str, Path], None]) -> None:
    """The Clan War demo: a check, the turn paused for its battles, then completed with their results."""
    path = folder / "cw.xlsx"
    cli("init", str(path), "--ruleset", "clan-war", "--demo")
    check(path, T0)
    take("checked", path)
    resolve(path, T1)
    take("paused", path)
    append_rows(path, "Battle Results", [{"Turn": 1, **row} for row in CLAN_WAR_RESULTS])
    resolve(path, T2)
    take("completed", path)


def game_value(path: Path, key: str) -> Any:
    """A Game tab value."""
    book = openpyxl.load_workbook(path, read_only=True)
    value = next(row[1] for row in book["Game"].iter_rows(values_only=True) if row[0] == key)
    book.close()
    return value


def art_of_war(folder: Path, take: Callable[[str, Path], None]) -> None:
    """An Art of War board with one person's house: the bots play up to it, a check, its order, the season on;
    and a board of bots alone, three seasons of it."""
    path = folder / "aw.xlsx"
    cli("init", str(path), "--ruleset", "art-of-war", "--houses", "4", "--people", "1", "--temper", "steady",
        "--seed", "plum rain")  # fmt: skip
    resolve(path, T1)
    take("waiting for the person", path)
    house, season = game_value(path, "to_move"), int(game_value(path, "season"))
    append_rows(path, "Orders", [{"Season": season, "House": house, "Order": "raise"}])
    check(path, T1 + timedelta(hours=1))
    take("checked", path)
    resolve(path, T2)
    take("the person's order played", path)
    bots = folder / "bots.xlsx"
    cli("init", str(bots), "--ruleset", "art-of-war", "--houses", "3", "--people", "0", "--temper", "ruthless",
        "--seed", "7")  # fmt: skip
    for number, moment in enumerate((T1, T2, T3), start=1):
        resolve(bots, moment)
        take(f"bots, run {number}", bots)


SCENARIOS: dict[str, Callable[[Path, Callable[[str, Path], None]], None]] = {
    "sengoku-demo": sengoku_demo,
    "generated": generated,
    "clan-war-demo": clan_war_demo,
    "art-of-war": art_of_war,
}


def play(name: str, provinces: int = PROVINCES) -> Snapshots:
    """Play one scenario in a fresh folder; every snapshot it takes."""
    taken: Snapshots = {}
    with TemporaryDirectory(prefix="sheets-engine-golden-") as folder:

        def take(label: str, path: Path) -> None:
            taken[label] = cells(path)

        if name == "generated":
            generated(Path(folder), take, provinces)
        else:
            SCENARIOS[name](Path(folder), take)
    return taken


def data_file(folder: Path, name: str) -> Path:
    """Where a scenario's snapshots are kept."""
    return folder / f"{name}.json.gz"


def save(folder: Path, name: str, snapshots: Snapshots) -> None:
    """Keep the snapshots (gzip'd JSON, stable bytes: no timestamp in the gzip header)."""
    folder.mkdir(parents=True, exist_ok=True)
    text = json.dumps(snapshots, ensure_ascii=False, separators=(",", ":"), default=str)
    data_file(folder, name).write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))


def load(folder: Path, name: str) -> Snapshots:
    """The kept snapshots of a scenario."""
    return json.loads(gzip.decompress(data_file(folder, name).read_bytes()).decode("utf-8"))


def column_name(index: int) -> str:
    """A 0-based column as the sheet letters it (0 -> A, 26 -> AA)."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def differences(expected: Snapshots, found: Snapshots, limit: int = 20) -> Iterator[str]:
    """Every snapshot, tab and cell that differs, in words ("turn 1: Provinces!F7 (Tax): expected 3, found 4")."""
    shown = 0
    for label in sorted(expected.keys() | found.keys()):
        if label not in found or label not in expected:
            yield f"{label}: snapshot {'missing' if label not in found else 'not kept'}"
            continue
        for tab in sorted(expected[label].keys() | found[label].keys()):
            was, now = expected[label].get(tab), found[label].get(tab)
            if was is None or now is None:
                yield f"{label}: tab {tab} {'missing' if now is None else 'new'}"
                continue
            header = was[0] if was else []
            for r in range(max(len(was), len(now))):
                old_row = was[r] if r < len(was) else []
                new_row = now[r] if r < len(now) else []
                for c in range(max(len(old_row), len(new_row))):
                    a = old_row[c] if c < len(old_row) else None
                    b = new_row[c] if c < len(new_row) else None
                    if a != b:
                        name = f" ({header[c]})" if c < len(header) and header[c] else ""
                        yield f"{label}: {tab}!{column_name(c)}{r + 1}{name}: expected {a!r}, found {b!r}"
                        shown += 1
                        if shown >= limit:
                            yield "... (more differences left out)"
                            return


def main(argv: list[str] | None = None) -> int:
    """`write [--out DIR] [--provinces N]` or `compare DIR_A DIR_B`."""
    parser = argparse.ArgumentParser(prog="python -m tests.golden", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    commands = parser.add_subparsers(dest="command", required=True)
    write = commands.add_parser("write", help="play every scenario and keep its cells")
    write.add_argument("--out", default=str(DATA), help="the folder (default: tests/data/golden)")
    write.add_argument("--provinces", type=int, default=PROVINCES, help="the generated campaign's size")
    write.add_argument("--only", help="one scenario: " + ", ".join(SCENARIOS))
    compare = commands.add_parser("compare", help="compare two folders of kept cells")
    compare.add_argument("first")
    compare.add_argument("second")
    args = parser.parse_args(argv)
    if args.command == "write":
        for name in [args.only] if args.only else SCENARIOS:
            save(Path(args.out), name, play(name, args.provinces))
            print(f"kept {data_file(Path(args.out), name)}")
        return 0
    failed = 0
    for name in SCENARIOS:
        if not (data_file(Path(args.first), name).exists() and data_file(Path(args.second), name).exists()):
            continue
        found = list(differences(load(Path(args.first), name), load(Path(args.second), name)))
        print(
            f"{name}: " + ("the same" if not found else f"{len(found)} difference" + ("" if len(found) == 1 else "s"))
        )
        for line in found:
            print("  " + line)
        failed += bool(found)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
