"""Benchmarks: each phase of a resolution, timed and measured, at several campaign sizes.

    python -m benchmarks.run                      # 68, 1,000, 10,000 and 100,000 provinces
    python -m benchmarks.run --sizes 68,1000      # some sizes only

Each size runs in its own process (so peak memory is that size's own): a generated campaign is
laid out as a workbook and recalculated once (as a campaign in play would be), then one turn is
resolved phase by phase: read, validate, resolve, recalc, diff, write. The end-to-end time is a
separate `sheets-engine resolve` process on a fresh copy, from process start to exit. The table
is printed and written to benchmarks/results.md with the machine it ran on.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SIZES = (68, 1_000, 10_000, 100_000)
NOW = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)
TARGETS = {68: 1.5, 10_000: 10.0, 100_000: 60.0}  # end-to-end seconds on 2 cores (issue 7)


def peak_mib() -> float:
    """Peak resident memory of this process so far (MiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure_one(size: int, workdir: Path) -> dict[str, Any]:
    """Every phase of one resolution at this size, in this process."""
    from sheets_engine import app
    from sheets_engine.core.load import load_state
    from sheets_engine.core.writeset import Stamp, cell_writes, final_changes, history_rows
    from sheets_engine.generate import generate
    from sheets_engine.rulesets import get_ruleset
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
        [sys.executable, "-m", "sheets_engine", "resolve", str(fresh), "--json", "--force"],
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


def measure_google(size: int, workdir: Path) -> dict[str, Any]:
    """One resolution through the Google Sheets store against the local stand-in: requests and bytes.

    Beside it, the same resolution done the way gspread-dataframe users do it: one read per tab,
    then each changed tab written back whole.
    """
    from sheets_engine import app
    from sheets_engine.core.load import load_state
    from sheets_engine.core.writeset import Stamp, cell_writes, final_changes, history_rows
    from sheets_engine.generate import generate
    from sheets_engine.rulesets import get_ruleset
    from sheets_engine.stores.gsheets import READ_OPTIONS, GoogleSheetsStore
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
        app.resolve(store(), now=NOW, force=True)
        seconds = time.perf_counter() - begin
        ours = list(fake.served)

        # the gspread-dataframe way: a read and a write per tab (state as before the resolution above)
        fake.served.clear()
        baseline = store()
        baseline.read()  # token and metadata (the tab list); its batch-get is replaced below
        fake.served[:] = fake.served[:2]
        tabs = {}
        for title in get_ruleset("sengoku").tabs:
            reply = baseline.client.values_get(key, quote_title(title.name), params=READ_OPTIONS)
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
            props = baseline._sheets[title] if baseline._sheets else {}
            if len(rows) > props.get("gridProperties", {}).get("rowCount", len(rows)):
                # set_with_dataframe resizes the worksheet first when the frame is longer
                grid = {"rowCount": len(rows), "columnCount": max(len(r) for r in rows)}
                baseline.client.batch_update(key, {"requests": [{"updateSheetProperties": {
                    "properties": {"sheetId": props["sheetId"], "gridProperties": grid},
                    "fields": "gridProperties.rowCount,gridProperties.columnCount"}}]})  # fmt: skip
            baseline.client.values_update(key, quote_title(title), params={"valueInputOption": "RAW"},
                                          body={"values": rows})  # fmt: skip
        theirs = list(fake.served)
    return {
        "requests": len(ours),
        "sent": sum(s.received for s in ours),
        "received": sum(s.sent for s in ours),
        "seconds": seconds,
        "baseline_requests": len(theirs),
        "baseline_sent": sum(s.received for s in theirs),
        "baseline_received": sum(s.sent for s in theirs),
    }


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
    """The Google path as a markdown table."""
    lines = [
        "| provinces | requests | sent KiB | received KiB | seconds | baseline requests | baseline sent KiB "
        "| baseline received KiB | requests ratio | sent ratio |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['size']:,} | {r['requests']} | {r['sent'] / 1024:,.0f} | {r['received'] / 1024:,.0f} | "
            f"{r['seconds']:.2f} | {r['baseline_requests']} | {r['baseline_sent'] / 1024:,.0f} | "
            f"{r['baseline_received'] / 1024:,.0f} | {r['baseline_requests'] / r['requests']:.1f}x | "
            f"{r['baseline_sent'] / max(r['sent'], 1):.1f}x |"
        )
    return "\n".join(lines)


def main() -> None:
    """Run every size in its own process and write benchmarks/results.md."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="comma-separated province counts")
    parser.add_argument("--google-sizes", default="68,1000,10000", help="sizes measured through the Sheets stand-in")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--google", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--workdir", help=argparse.SUPPRESS)
    parser.add_argument("--output", default=str(HERE / "results.md"), help="where to write the table")
    args = parser.parse_args()
    if args.one:
        measure = measure_google if args.google else measure_one
        print(json.dumps(measure(args.one, Path(args.workdir))))
        return
    results = []
    with tempfile.TemporaryDirectory(prefix="sheets-engine-bench-") as workdir:
        for size in (int(s) for s in args.sizes.split(",")):
            print(f"measuring {size:,} provinces ...", file=sys.stderr, flush=True)
            done = subprocess.run(
                [sys.executable, "-m", "benchmarks.run", "--one", str(size), "--workdir", workdir],
                capture_output=True, text=True, cwd=HERE.parent, check=False,
            )  # fmt: skip
            if done.returncode != 0:
                print(done.stderr, file=sys.stderr)
                raise SystemExit(f"the {size:,}-province run failed")
            results.append(json.loads(done.stdout.strip().splitlines()[-1]))
        google = []
        for size in (int(s) for s in args.google_sizes.split(",") if s):
            print(f"measuring {size:,} provinces through the Google Sheets stand-in ...", file=sys.stderr, flush=True)
            done = subprocess.run(
                [sys.executable, "-m", "benchmarks.run", "--one", str(size), "--google", "--workdir", workdir],
                capture_output=True, text=True, cwd=HERE.parent, check=False,
            )  # fmt: skip
            if done.returncode != 0:
                print(done.stderr, file=sys.stderr)
                raise SystemExit(f"the {size:,}-province Google run failed")
            google.append({"size": size, **json.loads(done.stdout.strip().splitlines()[-1])})
    report = "\n\n".join([
        "# Benchmark results",
        f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {machine()}.",
        "One turn resolved on the local workbook store, each phase timed in-process; `end to end` is a "
        "separate `sheets-engine resolve` process on a fresh copy (start to exit). Peak MiB is the process's "
        "peak resident memory after the phase. The campaign is generated (`sheets-engine generate`) and "
        "recalculated once before, as a campaign in play would be.",
        table(results),
        "## Google Sheets: HTTP requests and bytes per resolution",
        "Through the Google Sheets store against the local stand-in of the Sheets API "
        "(tests/standin/fake_sheets.py), on 127.0.0.1. `sent` is request bodies, `received` reply "
        "bodies. The baseline is the same resolution done the way gspread-dataframe users do it: one read "
        "per tab, then each changed tab written back whole.",
        google_table(google),
    ])  # fmt: skip
    Path(args.output).write_text(report + "\n")
    print(report)


if __name__ == "__main__":
    main()
