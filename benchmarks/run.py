"""Benchmarks: the engine's CPU time against a plain GM script and against the floor, and each phase.

    python -m benchmarks.run                      # 68, 1,000 and 10,000 provinces
    python -m benchmarks.run --large              # and 100,000
    python -m benchmarks.run --sizes 68,1000      # some sizes only

Ratios first: at each size the engine (`sheets-engine resolve --force --empty`, a whole process) and its two
yardsticks run in turn on fresh copies of the same generated workbook, interleaved (engine, peer,
floor, engine, ...), and the medians of their CPU times (user + system, the process's own
accounting) are compared. The peer is benchmarks/peer.py (openpyxl, pandas, collect every tax,
save); the floor is benchmarks/floor.py (calamine reads every tab into frames, the zip copied).
They run on the campaign's first turn (every derived column still empty: the most changes and
History rows a turn makes) and on its second (a turn in play), and on that second turn again with
History padded to 400,000 rows (a campaign grown old).

Each size runs in its own process (so peak memory is that size's own): a generated campaign is
laid out as a workbook and recalculated once (as a campaign in play would be), then one turn is
resolved phase by phase: read, validate, resolve, recalc, diff, write. The end-to-end time is a
separate `sheets-engine resolve` process on a fresh copy, from process start to exit. The table
is printed and written to benchmarks/results.md with the machine it ran on.
"""

from __future__ import annotations

import argparse
import copy
import gc
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SIZES = (68, 1_000, 10_000)
LARGE = 100_000
OLD_HISTORY = 400_000  # History rows of a campaign grown old
NOTES = "<!-- notes: kept when the tables above are measured again -->"
RUNS = {68: 5, 1_000: 5, 10_000: 3, 100_000: 1}  # interleaved runs of each command per size
NOW = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)
VALUES_READ = {"valueRenderOption": "UNFORMATTED_VALUE", "dateTimeRenderOption": "SERIAL_NUMBER"}  # the baseline's
TARGETS = {68: 1.5, 10_000: 10.0, 100_000: 60.0}  # end-to-end seconds on 2 cores (issue 7)


def peak_mib() -> float:
    """Peak resident memory of this process so far (MiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure_one(size: int, workdir: Path) -> dict[str, Any]:
    """Every phase of one resolution at this size, in this process."""
    from sheets_engine import app
    from sheets_engine.core.history import Stamp, history_rows
    from sheets_engine.core.load import load_state
    from sheets_engine.core.writeset import cell_writes, final_changes
    from sheets_engine.rulesets import get_ruleset
    from sheets_engine.sengoku.generate import generate
    from sheets_engine.stores.xlsx import WorkbookStore

    path = workdir / f"campaign-{size}.xlsx"
    started = time.perf_counter()
    WorkbookStore(path).create(generate(size, seed=1560), overwrite=True)
    app.recalc(str(path), now=NOW)
    prepared = time.perf_counter() - started
    fresh = workdir / f"campaign-{size}-e2e.xlsx"
    shutil.copy(path, fresh)

    rows: list[dict[str, Any]] = []

    def phase(name: str, work: Any) -> Any:
        begin = time.perf_counter()
        result = work()
        rows.append({"phase": name, "seconds": time.perf_counter() - begin, "peak_mib": peak_mib()})
        return result

    store = WorkbookStore(path)
    ruleset = get_ruleset("sengoku")
    raw = phase("read", lambda: store.read(headers_only=app.APPEND_ONLY))  # as a resolution reads

    def validate() -> Any:
        state, problems = load_state(raw, ruleset.tabs)
        problems += ruleset.check(state)
        errors = [p for p in problems if p.severity.value == "error"]
        assert not errors, errors[:5]
        return state

    state = phase("validate", validate)
    outcome = phase("resolve", lambda: ruleset.resolve(state, NOW, True))
    phase("recalc", lambda: ruleset.recalc(outcome.state))

    def diff() -> Any:
        changes = final_changes(outcome.changes)
        history = history_rows(outcome.state, changes, Stamp(outcome.turn, "bench", "2026-11-30 20:00:00"))
        logs = {tab: r for tab, r in outcome.logs.items() if r} | {"History": history}
        return changes, cell_writes(outcome.state, changes, logs)

    changes, writes = phase("diff", diff)
    phase("write", lambda: store.write(writes))

    begin = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "sheets_engine", "resolve", str(fresh), "--json", "--force", "--empty"],
        capture_output=True,
        text=True,
        check=True,
    )
    end_to_end = time.perf_counter() - begin
    summary = json.loads(done.stdout)
    return {
        "size": size,
        "phases": rows,
        "prepare_seconds": prepared,
        "end_to_end_seconds": end_to_end,
        "cells_changed": len(changes),
        "cells_written": len(writes),
        "orders": summary.get("orders resolved", 0) + summary.get("orders rejected", 0),
        "workbook_mib": path.stat().st_size / 2**20,
        "peak_mib": peak_mib(),
    }


def installed_env() -> dict[str, str]:
    """The environment of a measured process: bytecode kept, as an installed package has it.

    pip compiles a package's modules when it installs it (the libraries here have theirs); a
    checkout run with PYTHONDONTWRITEBYTECODE would compile the engine's sixty modules from source
    in every run (some 0.05 s), which no installed engine pays. The engine, the peer and the floor
    all run with the same environment, after `compile_checkout`.
    """
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def compile_checkout() -> None:
    """Compile the engine's and the benchmarks' modules once (their __pycache__ is ignored by git)."""
    folders = [str(HERE.parent / "sheets_engine"), str(HERE)]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *folders], check=True, env=installed_env())


def cpu_seconds(command: list[str], env: dict[str, str] | None = None) -> float:
    """CPU time (user + system) of one whole process run to its end."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, capture_output=True, check=True, cwd=HERE.parent, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def engine(path: Path) -> list[str]:
    """The engine resolving the turn due (as cron runs it)."""
    return [sys.executable, "-m", "sheets_engine", "resolve", str(path), "--json", "--force", "--empty"]


def peer(path: Path) -> list[str]:
    """The plain GM script (benchmarks/peer.py)."""
    return [sys.executable, "-m", "benchmarks.peer", str(path)]


def floor(path: Path) -> list[str]:
    """The floor (benchmarks/floor.py)."""
    return [sys.executable, "-m", "benchmarks.floor", str(path)]


def interleaved(commands: dict[str, Any], sources: dict[str, Path], runs: int, workdir: Path) -> dict[str, float]:
    """Median CPU seconds of each named (command, source workbook), run in turn on fresh copies."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    env = installed_env()
    for _ in range(runs):
        for name, command in commands.items():
            copy = workdir / f"run-{name}.xlsx"
            shutil.copy(sources[name], copy)
            times[name].append(cpu_seconds(command(copy), env))
    return {name: statistics.median(values) for name, values in times.items()}


_RENUMBER = re.compile(rb'(<row r=")\d+|(<c r="[A-Z]+)\d+')


def set_history_length(path: Path, rows: int) -> None:
    """Make the History tab hold exactly `rows` rows below its header, its own rows repeated as needed.

    What History holds is never read by a turn (only its header and length), so copies of its rows
    stand for the older turns of a campaign grown old.
    """
    from sheets_engine.stores.xlsx_patch import ROW
    from sheets_engine.stores.xlsx_workbook import sheet_part, sheet_parts
    from sheets_engine.stores.xlsx_zip import deflated, write_zip

    with zipfile.ZipFile(path) as archive:
        part = sheet_parts(archive)["History"]
        xml = archive.read(part)
        entries = [(info, archive.read(info.filename)) for info in archive.infolist()]
    start = xml.index(b"<sheetData>") + len(b"<sheetData>")
    end = xml.index(b"</sheetData>")
    found = [m.group(0) for m in ROW.finditer(xml, start, end)]
    header, body = found[0], found[1:]
    out = [header]
    for number in range(2, rows + 2):
        row = body[(number - 2) % len(body)]
        out.append(_RENUMBER.sub(lambda m, n=b"%d" % number: (m.group(1) or m.group(2)) + n, row))
    xml = xml[:start] + b"".join(out) + xml[end:]
    # written as the engine writes a sheet (xlsx_zip: History in segments its next turn appends to), so
    # that the padded History stands for one the engine grew turn after turn
    written = [(info, sheet_part(xml) if info.filename == part else deflated(data)) for info, data in entries]
    write_zip(str(path), written)


def measure_ratios(size: int, workdir: Path, runs: int) -> dict[str, Any]:
    """The engine's CPU time as ratios to the peer and to the floor, on a first turn and on a turn in play."""
    from sheets_engine.sengoku.generate import generate
    from sheets_engine.stores.xlsx import WorkbookStore

    fresh = workdir / f"fresh-{size}.xlsx"
    WorkbookStore(fresh).create(generate(size, seed=1560), overwrite=True)
    played = workdir / f"played-{size}.xlsx"
    shutil.copy(fresh, played)
    subprocess.run(engine(played), capture_output=True, check=True, cwd=HERE.parent)  # the first turn
    sources = {"engine": fresh, "peer": fresh, "floor": fresh}
    first = interleaved({"engine": engine, "peer": peer, "floor": floor}, sources, runs, workdir)
    result: dict[str, Any] = {"size": size, "runs": runs, "first": first}
    young = workdir / f"young-{size}.xlsx"
    shutil.copy(played, young)
    set_history_length(young, 10_000)
    sources = {"engine": young, "floor": young}
    if size == 10_000:
        old = workdir / f"old-{size}.xlsx"
        shutil.copy(played, old)
        set_history_length(old, OLD_HISTORY)
        sources["old"] = old
    commands = {"engine": engine, "floor": floor} | ({"old": engine} if "old" in sources else {})
    result["in_play"] = interleaved(commands, sources, runs, workdir)
    return result


def ratio_table(rows: list[dict[str, Any]]) -> str:
    """The ratios as a markdown table, with the targets of issue 15."""

    def mark(value: float, target: float | None) -> str:
        return f"{value:.2f}x" + ("" if target is None else (" ok" if value <= target else f" (target {target}x)"))

    lines = [
        "| provinces | runs | first turn: engine CPU s | peer s | floor s | engine/peer | engine/floor "
        "| in play: engine s | floor s | engine/floor | History 400k / 10k |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        first, play = r["first"], r["in_play"]
        peer_target = 1.3 if r["size"] <= 68 else 1.0
        big = r["size"] == 10_000
        age = mark(play["old"] / play["engine"], 1.3) if "old" in play else ""
        lines.append(
            f"| {r['size']:,} | {r['runs']} | {first['engine']:.2f} | {first['peer']:.2f} | {first['floor']:.2f} | "
            f"{mark(first['engine'] / first['peer'], peer_target)} | "
            f"{mark(first['engine'] / first['floor'], 6.0 if big else None)} | {play['engine']:.2f} | "
            f"{play['floor']:.2f} | {mark(play['engine'] / play['floor'], 2.0 if big else None)} | {age} |"
        )
    return "\n".join(lines)


def measure_google(size: int, workdir: Path) -> dict[str, Any]:
    """A first turn and the turn in play after it, through the Google Sheets store against the local
    stand-in: requests and bytes.

    Beside them, the first turn's resolution done the way gspread-dataframe users do it: one read per
    tab, then each changed tab written back whole (the values API, which the strict stand-in refuses
    from the store: here it answers leniently).
    """
    from sheets_engine import app
    from sheets_engine.core.history import Stamp, history_rows
    from sheets_engine.core.load import load_state
    from sheets_engine.core.writeset import cell_writes, final_changes
    from sheets_engine.rulesets import get_ruleset
    from sheets_engine.sengoku.generate import generate
    from sheets_engine.stores.gsheets import GoogleSheetsStore
    from sheets_engine.stores.gsheets_layout import quote_title
    from tests.standin.fake_sheets import FakeSheets
    from tests.standin.keys import TEST_ACCOUNT, write_key_file
    from tests.standin.record import NO_WAIT
    from tests.standin.server import serve

    key = "1BenchmarkCampaign000000000000000000000000"
    fake = FakeSheets()
    with serve(fake) as root:
        key_file = write_key_file(workdir, token_uri=f"{root}/token")

        def store() -> GoogleSheetsStore:
            return GoogleSheetsStore.open(f"gsheet:{key}", key_file, api_root=root, retry=NO_WAIT)

        fake.add_spreadsheet(key, "benchmark", editors=[TEST_ACCOUNT])
        store().create(generate(size, seed=1560), overwrite=True)
        app.recalc(store(), now=NOW)

        fake.served.clear()
        begin = time.perf_counter()
        report = app.resolve(store(), now=NOW, force=True, empty=True)
        seconds = time.perf_counter() - begin
        ours = list(fake.served)
        fake.served.clear()
        in_play = app.resolve(store(), now=NOW + timedelta(days=1), force=True, empty=True)
        play = list(fake.served)

        # the gspread-dataframe way: a read and a write per tab (state as the turns above left it)
        fake.served.clear()
        fake.strict = False
        baseline = store()
        baseline.read()  # token and metadata (the tab list); its read of cells is replaced below
        fake.served[:] = fake.served[:2]
        tabs = {}
        for title in get_ruleset("sengoku").tabs:
            reply = baseline.client.values_get(key, quote_title(title.name), params=VALUES_READ)
            tabs[title.name] = reply.get("values", [])
        from sheets_engine.stores.memory import MemoryStore

        memory = MemoryStore(tabs)
        ruleset = get_ruleset("sengoku")
        state, _ = load_state(memory.read(), ruleset.tabs)
        outcome = ruleset.resolve(state, NOW, True)
        changes = final_changes(outcome.changes)
        logs = {t: r for t, r in outcome.logs.items() if r}
        logs["History"] = history_rows(outcome.state, changes, Stamp(outcome.turn, "bench", "2026-11-30"))
        memory.write(cell_writes(outcome.state, changes, logs))
        for title in sorted({c.tab for c in changes} | set(logs)):
            rows = [["" if v is None else v for v in row] for row in memory.tabs[title]]
            props = (baseline.seen.sheets or {}).get(title, {})
            if len(rows) > props.get("gridProperties", {}).get("rowCount", len(rows)):
                # set_with_dataframe resizes the worksheet first when the frame is longer
                grid = {"rowCount": len(rows), "columnCount": max(len(r) for r in rows)}
                baseline.client.send_write(key, {"requests": [{"updateSheetProperties": {
                    "properties": {"sheetId": props["sheetId"], "gridProperties": grid},
                    "fields": "gridProperties.rowCount,gridProperties.columnCount"}}]})  # fmt: skip
            baseline.client.values_update(key, quote_title(title), params={"valueInputOption": "RAW"},
                                          body={"values": rows})  # fmt: skip
        theirs = list(fake.served)
        fake.strict = True
        age = google_age(fake, key, store) if size == 10_000 else {}
    return {
        **_traffic(ours, report.cells_written),
        "play": _traffic(play, in_play.cells_written),
        "seconds": seconds,
        "baseline_requests": len(theirs),
        "baseline_sent": sum(s.received for s in theirs),
        "baseline_received": sum(s.sent for s in theirs),
        **age,
    }


def _traffic(served: list[Any], cells: int) -> dict[str, Any]:
    """A resolution's requests and bytes, as the stand-in served them."""
    return {
        "requests": len(served),
        "cells": cells,
        "sent": sum(s.received for s in served),
        "written": sum(s.received for s in served if s.kind == "write"),
        "received": sum(s.sent for s in served),
        "largest": max(s.received for s in served),
    }


def google_age(fake: Any, key: str, store: Any, runs: int = 3) -> dict[str, Any]:
    """The next turn through the stand-in with History at 10,000 rows and at 400,000, interleaved.

    `engine` is the CPU time of the thread that runs the resolution (the stand-in answers from its own
    thread, standing for Google's servers); `wall` includes the stand-in. History's padding repeats its
    own rows, as in the workbook benchmark: a turn reads only its header and column A.
    """
    from sheets_engine import app

    book = fake.spreadsheets[key]
    history = book.sheet("History")
    history.cells = {cell: value for cell, value in history.cells.items() if cell[0] <= 10_000}
    history.properties["gridProperties"]["rowCount"] = 10_001
    base = {s.title: (copy.deepcopy(s.properties), dict(s.cells)) for s in book.sheets}
    times: dict[str, list[tuple[float, float]]] = {"young": [], "old": []}
    for _ in range(runs):
        for which in times:
            for sheet in book.sheets:
                properties, cells = base[sheet.title]
                sheet.properties, sheet.cells = copy.deepcopy(properties), dict(cells)
            if which == "old":
                pad_history(book.sheet("History"), OLD_HISTORY)
            gc.collect()
            gc.freeze()  # the stand-in's cells stand for Google's servers: the engine's collector never walks them
            begin, cpu = time.perf_counter(), time.thread_time()
            app.resolve(store(), now=NOW + timedelta(days=7), force=True, empty=True)
            times[which].append((time.thread_time() - cpu, time.perf_counter() - begin))
            gc.unfreeze()
            if which == "young":  # what a turn in play adds to History, and what the other tabs hold
                appended = len(fake.values(key, "History")) - 10_001
                grids = {s.title: s.rows * s.columns for s in book.sheets}
    young, old = ([statistics.median(t[i] for t in times[w]) for i in (0, 1)] for w in ("young", "old"))
    others = sum(cells for title, cells in grids.items() if title != "History")
    return {"age_engine": old[0] / young[0], "age_wall": old[1] / young[1], "age_young_cpu": young[0],
            "history_rows_in_play": appended, "other_cells": others}  # fmt: skip


def pad_history(history: Any, rows: int) -> None:
    """History in the stand-in made `rows` rows long below its header, its own rows repeated."""
    own = max(cell[0] for cell in history.cells)
    by_row: dict[int, list[tuple[int, Any]]] = {}
    for (r, c), value in history.cells.items():
        if r >= 1:
            by_row.setdefault(r, []).append((c, value))
    for r in range(own + 1, rows + 1):
        for c, value in by_row[(r - 1) % own + 1]:
            history.cells[(r, c)] = value
    history.properties["gridProperties"]["rowCount"] = rows + 1


def machine() -> str:
    """What the numbers were measured on."""
    model = ""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    memory = ""
    meminfo = Path("/proc/meminfo")
    if meminfo.exists():
        total = int(meminfo.read_text().split()[1]) / 2**20
        memory = f", {total:.0f} GiB"
    return (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores{memory}, {model or 'unknown CPU'}; "
        f"Python {platform.python_version()}"
    )


def table(results: list[dict[str, Any]]) -> str:
    """The results as a markdown table."""
    phases = ["read", "validate", "resolve", "recalc", "diff", "write"]
    head = "| provinces | " + " | ".join(f"{p} s" for p in phases) + " | end to end s | target s | peak MiB |"
    head += " cells changed | cells written | workbook MiB |"
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in results:
        by = {p["phase"]: p for p in r["phases"]}
        target = TARGETS.get(r["size"])
        mark = "" if target is None else (" ok" if r["end_to_end_seconds"] <= target else " MISSED")
        lines.append(
            f"| {r['size']:,} | "
            + " | ".join(f"{by[p]['seconds']:.2f}" for p in phases)
            + f" | {r['end_to_end_seconds']:.2f}{mark} | {target or ''} | {r['peak_mib']:.0f} |"
            + f" {r['cells_changed']:,} | {r['cells_written']:,} | {r['workbook_mib']:.1f} |"
        )
    return "\n".join(lines)


def google_table(rows: list[dict[str, Any]]) -> str:
    """The Google path as a markdown table: a first turn and a turn in play, with the request limit."""
    from sheets_engine.stores.gsheets_layout import MAX_REQUEST_BYTES

    lines = [
        "| provinces | first turn: requests | cells written | sent KiB | write bytes / cell | largest request KiB "
        "| received KiB | in play: requests | cells written | write bytes / cell | largest request KiB | received KiB "
        "| seconds | History 400k / 10k: engine CPU | (wall, stand-in included) | baseline requests "
        "| baseline sent KiB | baseline received KiB |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]

    def largest(traffic: dict[str, Any]) -> str:
        return f"{traffic['largest'] / 1024:,.0f}" + (
            " ok" if traffic["largest"] <= MAX_REQUEST_BYTES else " (over 1,953)"
        )

    for r in rows:
        play = r["play"]
        age = (
            f"{r['age_engine']:.2f}x" + (" ok" if r["age_engine"] <= 1.3 else " (target 1.3x)")
            if "age_engine" in r
            else ""
        )
        wall = f"{r['age_wall']:.2f}x" if "age_wall" in r else ""
        lines.append(
            f"| {r['size']:,} | {r['requests']} | {r['cells']:,} | {r['sent'] / 1024:,.0f} | "
            f"{r['written'] / max(r['cells'], 1):.1f} | {largest(r)} | {r['received'] / 1024:,.0f} | "
            f"{play['requests']} | {play['cells']:,} | {play['written'] / max(play['cells'], 1):.1f} | "
            f"{largest(play)} | {play['received'] / 1024:,.0f} | "
            f"{r['seconds']:.2f} | {age} | {wall} | {r['baseline_requests']} | {r['baseline_sent'] / 1024:,.0f} | "
            f"{r['baseline_received'] / 1024:,.0f} |"
        )
    return "\n".join(lines)


def _child(args: list[str], workdir: str, what: str) -> Any:
    """One measurement in its own process (its peak memory is its own); its JSON line."""
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.run", *args, "--workdir", workdir],
        capture_output=True, text=True, cwd=HERE.parent, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        print(done.stderr, file=sys.stderr)
        raise SystemExit(f"the {what} run failed")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    """Measure every size (each in its own process), print the tables and write benchmarks/results.md."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="comma-separated province counts")
    parser.add_argument("--large", action="store_true", help=f"add {LARGE:,} provinces (some minutes)")
    parser.add_argument("--runs", type=int, help="interleaved runs of each command (default: by size)")
    parser.add_argument("--phases", action="store_true", help="also time each phase of a resolution in-process")
    parser.add_argument("--google-sizes", default="68,1000,10000", help="sizes measured through the Sheets stand-in")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--mode", choices=("ratios", "phases", "google"), help=argparse.SUPPRESS)
    parser.add_argument("--workdir", help=argparse.SUPPRESS)
    parser.add_argument("--output", default=str(HERE / "results.md"), help="where to write the tables")
    args = parser.parse_args()
    if args.one:
        if args.mode == "ratios":
            print(json.dumps(measure_ratios(args.one, Path(args.workdir), args.runs or RUNS.get(args.one, 3))))
        else:
            measure = measure_google if args.mode == "google" else measure_one
            print(json.dumps(measure(args.one, Path(args.workdir))))
        return
    sizes = [int(s) for s in args.sizes.split(",") if s] + ([LARGE] if args.large else [])
    ratios, results, google = [], [], []
    compile_checkout()
    with tempfile.TemporaryDirectory(prefix="sheets-engine-bench-") as workdir:
        for size in sizes:
            print(f"ratios at {size:,} provinces ...", file=sys.stderr, flush=True)
            extra = ["--runs", str(args.runs)] if args.runs else []
            ratios.append(_child(["--one", str(size), "--mode", "ratios", *extra], workdir, f"{size:,}-province"))
            print(ratio_table(ratios[-1:]), file=sys.stderr, flush=True)
        for size in sizes if args.phases else []:
            print(f"phases at {size:,} provinces ...", file=sys.stderr, flush=True)
            results.append(_child(["--one", str(size), "--mode", "phases"], workdir, f"{size:,}-province"))
        for size in (int(s) for s in args.google_sizes.split(",") if s):
            print(f"measuring {size:,} provinces through the Google Sheets stand-in ...", file=sys.stderr, flush=True)
            google.append({"size": size, **_child(["--one", str(size), "--mode", "google"], workdir, "Google")})
    parts = [
        "# Benchmark results",
        f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {machine()}.",
        "## The engine against a plain GM script and against the floor",
        "CPU seconds (user + system) of whole processes, medians of interleaved runs on fresh copies of the "
        "same generated workbook (`runs` each). The peer is benchmarks/peer.py: openpyxl loads the workbook, "
        "pandas frames of every tab, the tax of every province collected, saved (no validation, no History). "
        "The floor is benchmarks/floor.py: calamine reads every tab into frames, and the zip is copied. "
        "*First turn*: the generated campaign's first turn (every derived column still empty, so the most "
        "changes and History rows). *In play*: its second turn, with History cut to 10,000 rows; "
        "*History 400k / 10k*: that same turn with History at 400,000 rows, as a ratio to it.",
        ratio_table(ratios),
    ]
    if results:
        parts += [
            "## Each phase of one resolution",
            "Each phase timed in-process; `end to end` is a separate `sheets-engine resolve` process on a fresh "
            "copy (start to exit). The campaign is generated and recalculated once before.",
            table(results),
        ]
    if google:
        parts += [
            "## Google Sheets: HTTP requests and bytes per resolution",
            "Through the Google Sheets store against the local stand-in of the Sheets API "
            "(tests/standin/fake_sheets.py), on 127.0.0.1: a first turn (the generated campaign's, recalculated "
            "before) and the turn in play after it. `sent` is request bodies, `received` reply bodies; write "
            "bytes per cell is the batchUpdate bodies' bytes over the cells written (every value a typed "
            "CellData). A write over 2,000,000 bytes (Google's recommended payload) is staged in a hidden tab, so "
            "it takes more than five requests. *History 400k / 10k*: "
            "the next turn with History at 400,000 rows over the same turn with 10,000 (medians of 3 interleaved "
            "runs; the engine's own CPU, and wall time with the stand-in's). The baseline is the same resolution "
            "done the way gspread-dataframe users do it: one read per tab, then each changed tab written back whole.",
            google_table(google),
        ]
    report = "\n\n".join(parts)
    output = Path(args.output)
    kept = output.read_text().partition(NOTES)[2] if output.exists() else ""
    output.write_text(report + "\n\n" + NOTES + (kept or "\n"))  # the notes written by hand below the marker stay
    print(report)


if __name__ == "__main__":
    main()
