"""Benchmark: `notify` and `remind` on a generated campaign, against the Discord stand-in.

    python -m benchmarks.notify                    # 10,000 provinces
    python -m benchmarks.notify --provinces 1000

A campaign is generated (with a deadline), its first turn resolved, and then, each a whole
`sheets-engine` process on the same workbook: `notify --dry-run`, `notify` (every Notifications row
of the turn, to one webhook per audience), and `remind --before 6` three hours before the next
deadline (one reminder per clan with a character who has not ordered). The Discord stand-in
(tests/standin/discord.py) runs in this process, on 127.0.0.1, with its default (generous) bucket.
Each command's CPU seconds (user + system of the process), its wall time, the Discord messages
posted and the guarded writes it made (WorkbookStore.write calls, counted in the process) are
printed as one markdown table, for benchmarks/results.md.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEADLINE = "2026-12-01 20:00:00"  # the generated campaign's first deadline (UTC): turn 1 is resolved after it
RESOLVE_AT = "2026-12-01 21:00"
REMIND_AT = "2026-12-02 17:00"  # three hours before turn 2's deadline (turn_hours 24)


def child() -> None:
    """Run the CLI (argv after `--child COUNTS`) in this process, counting the store's guarded writes."""
    counts_file = sys.argv[2]
    del sys.argv[1:3]
    from sheets_engine.cli import main
    from sheets_engine.stores.xlsx import WorkbookStore

    counted = {"writes": 0}
    write = WorkbookStore.write

    def counting(self: WorkbookStore, cells: Any) -> None:
        if cells:
            counted["writes"] += 1
        write(self, cells)

    WorkbookStore.write = counting  # type: ignore[method-assign]
    try:
        main()
    finally:
        Path(counts_file).write_text(json.dumps(counted))


def run(args: list[str], workdir: Path) -> dict[str, Any]:
    """One whole `sheets-engine` process: its CPU seconds, wall seconds, guarded writes and JSON output."""
    counts = workdir / "counts.json"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.notify", "--child", str(counts), *args],
        capture_output=True, text=True, cwd=HERE.parent, check=False,
    )  # fmt: skip
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0,):
        print(done.stdout, done.stderr, file=sys.stderr)
        raise SystemExit(f"sheets-engine {args[0]} exited {done.returncode}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    out = json.loads(done.stdout) if done.stdout.strip().startswith("{") else {}
    return {"cpu": cpu, "wall": wall, "writes": json.loads(counts.read_text())["writes"], "out": out}


def set_deadline(path: Path) -> None:
    """The generated campaign's Game key deadline (it has none), so that remind has one to remind of."""
    import openpyxl

    book = openpyxl.load_workbook(path)
    game = book["Game"]
    for row in game.iter_rows(min_row=2):
        if row[0].value == "deadline":
            row[1].value = DEADLINE
    book.save(path)


def measure(provinces: int, workdir: Path) -> list[dict[str, Any]]:
    """Generate, resolve turn 1, then notify --dry-run, notify and remind; one result a command."""
    sys.path.insert(0, str(HERE.parent))
    from python_calamine import CalamineWorkbook

    from tests.standin.discord import FakeDiscord, serve_discord, write_webhooks

    path = workdir / "campaign.xlsx"
    engine = [sys.executable, "-m", "sheets_engine"]
    subprocess.run([*engine, "generate", str(path), "--provinces", str(provinces), "--seed", "7"], check=True,
                   capture_output=True)  # fmt: skip
    set_deadline(path)
    subprocess.run([*engine, "resolve", str(path), "--now", RESOLVE_AT], check=True, capture_output=True)
    book = CalamineWorkbook.from_path(str(path))
    rows = book.get_sheet_by_name("Notifications").to_python()[1:]
    clans = [r[0] for r in book.get_sheet_by_name("Clans").to_python()[1:] if r and r[0]]
    audiences = tuple(dict.fromkeys([*(str(r[1]) for r in rows if r[3]), *(f"clan:{c}" for c in clans)]))
    fake = FakeDiscord()
    results = []
    with serve_discord(fake) as base:
        hooks = write_webhooks(workdir / "webhooks.toml", fake, base, audiences)
        for name, args in (
            ("notify --dry-run", ["notify", str(path), "--webhooks", str(hooks), "--dry-run", "--json"]),
            ("notify", ["notify", str(path), "--webhooks", str(hooks), "--json"]),
            ("remind", ["remind", str(path), "--webhooks", str(hooks), "--before", "6", "--now", REMIND_AT, "--json"]),
        ):
            posted = len(fake.posted)
            result = run(args, workdir)
            out = result.pop("out")
            rows_done = out.get("rows_posted", len(out.get("clans_reminded", [])))
            results.append({"command": name, "rows": rows_done, "messages": len(fake.posted) - posted, **result})
            print(f"{name}: {results[-1]}", file=sys.stderr, flush=True)
    if fake.refused:
        raise SystemExit(f"the stand-in refused requests: {fake.refused[:3]}")
    return results


def table(provinces: int, results: list[dict[str, Any]]) -> str:
    """The results as a markdown table."""
    lines = [
        "| provinces | command | rows | Discord messages | guarded writes | CPU s | wall s |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {provinces:,} | `{r['command']}` | {r['rows']:,} | {r['messages']:,} | {r['writes']:,} "
            f"| {r['cpu']:.2f} | {r['wall']:.2f} |"
        )
    return "\n".join(lines)


def main() -> None:
    """Measure and print the table."""
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child()
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--provinces", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sheets-engine-notify-") as workdir:
        results = measure(args.provinces, Path(workdir))
    print(table(args.provinces, results))


if __name__ == "__main__":
    main()
