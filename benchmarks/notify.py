"""Benchmark: `notify` and `remind` on a generated campaign, against the Discord stand-in.

    python -m benchmarks.notify                               # 10,000 provinces, this checkout
    python -m benchmarks.notify --provinces 1000
    python -m benchmarks.notify --against /tmp/main-copy      # and another checkout, side by side

A campaign is generated (with a deadline) and its first turn resolved, once. Then, on a fresh copy
of it for each checkout, in turn (this one, the other, this one, ...: `--runs`), each a whole
`sheets-engine` process: `notify --dry-run`, `notify` (every Notifications row of the turn, to one
webhook per audience), and `remind --before 6` three hours before the next deadline (one reminder
per clan with a character who has not ordered). The Discord stand-in (tests/standin/discord.py)
runs in this process, on 127.0.0.1, with its default (generous) bucket. Each command's CPU seconds
(user + system of the process, medians), its wall time, the Discord messages posted and the guarded
writes it made (WorkbookStore.write calls, counted in the process) are printed as one markdown
table, for benchmarks/results.md; with `--against`, each of this checkout's over the other's.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
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


def run(args: list[str], workdir: Path, checkout: Path) -> dict[str, Any]:
    """One whole `sheets-engine` process of that checkout's engine: its CPU seconds, wall seconds, guarded
    writes and JSON output."""
    counts = workdir / "counts.json"
    env = {**os.environ, "PYTHONPATH": str(checkout)}  # its sheets_engine, before any installed one
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", str(counts), *args],
        capture_output=True, text=True, cwd=checkout, env=env, check=False,
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


def measure(provinces: int, workdir: Path, checkouts: list[Path], runs: int) -> dict[Path, list[dict[str, Any]]]:
    """Generate and resolve turn 1, then notify --dry-run, notify and remind on a copy for each checkout
    in turn; each checkout's result for each command (CPU and wall the medians of `runs`)."""
    sys.path.insert(0, str(HERE.parent))
    from python_calamine import CalamineWorkbook

    from tests.standin.discord import FakeDiscord, serve_discord, write_webhooks

    path = workdir / "campaign.xlsx"
    engine = [sys.executable, "-m", "sheets_engine"]
    generate = [*engine, "generate", str(path), "--provinces", str(provinces), "--seed", "7"]
    subprocess.run(generate, cwd=HERE.parent, check=True, capture_output=True)
    set_deadline(path)
    resolve = [*engine, "resolve", str(path), "--now", RESOLVE_AT]
    subprocess.run(resolve, cwd=HERE.parent, check=True, capture_output=True)
    book = CalamineWorkbook.from_path(str(path))
    rows = book.get_sheet_by_name("Notifications").to_python()[1:]
    clans = [r[0] for r in book.get_sheet_by_name("Clans").to_python()[1:] if r and r[0]]
    audiences = tuple(dict.fromkeys([*(str(r[1]) for r in rows if r[3]), *(f"clan:{c}" for c in clans)]))
    fake = FakeDiscord()
    found: dict[Path, dict[str, list[dict[str, Any]]]] = {checkout: {} for checkout in checkouts}
    copy = workdir / "copy.xlsx"
    with serve_discord(fake) as base:
        hooks = write_webhooks(workdir / "webhooks.toml", fake, base, audiences)
        for _ in range(runs):
            for checkout in checkouts:
                shutil.copy(path, copy)
                for name, args in (
                    ("notify --dry-run", ["notify", str(copy), "--webhooks", str(hooks), "--dry-run", "--json"]),
                    ("notify", ["notify", str(copy), "--webhooks", str(hooks), "--json"]),
                    ("remind", ["remind", str(copy), "--webhooks", str(hooks), "--before", "6", "--now", REMIND_AT,
                                "--json"]),
                ):  # fmt: skip
                    posted = len(fake.posted)
                    result = run(args, workdir, checkout)
                    out = result.pop("out")
                    rows_done = out.get("rows_posted", len(out.get("clans_reminded", [])))
                    result = {"command": name, "rows": rows_done, "messages": len(fake.posted) - posted, **result}
                    found[checkout].setdefault(name, []).append(result)
                    print(f"{checkout.name}: {result}", file=sys.stderr, flush=True)
    if fake.refused:
        raise SystemExit(f"the stand-in refused requests: {fake.refused[:3]}")
    return {
        checkout: [
            {**tries[0], "cpu": statistics.median(t["cpu"] for t in tries),
             "wall": statistics.median(t["wall"] for t in tries)}
            for tries in by_command.values()
        ]
        for checkout, by_command in found.items()
    }  # fmt: skip


def table(provinces: int, results: list[dict[str, Any]], against: list[dict[str, Any]] | None = None) -> str:
    """The results as a markdown table (with the other checkout's, and the ratios, when given)."""
    head = "| provinces | command | rows | Discord messages | guarded writes | CPU s | wall s |"
    if against is not None:
        head += " before: messages | writes | CPU s | wall s | CPU after / before | wall after / before |"
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for n, r in enumerate(results):
        line = (
            f"| {provinces:,} | `{r['command']}` | {r['rows']:,} | {r['messages']:,} | {r['writes']:,} "
            f"| {r['cpu']:.2f} | {r['wall']:.2f} |"
        )
        if against is not None:
            b = against[n]
            line += (
                f" {b['messages']:,} | {b['writes']:,} | {b['cpu']:.2f} | {b['wall']:.2f} "
                f"| {r['cpu'] / b['cpu']:.2f}x | {r['wall'] / b['wall']:.2f}x |"
            )
        lines.append(line)
    return "\n".join(lines)


def main() -> None:
    """Measure and print the table."""
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child()
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--provinces", type=int, default=10_000)
    parser.add_argument("--against", help="another checkout (its root) to measure side by side, e.g. main's")
    parser.add_argument("--runs", type=int, default=1, help="interleaved runs of each checkout (medians)")
    args = parser.parse_args()
    this = HERE.parent
    checkouts = [this] + ([Path(args.against).resolve()] if args.against else [])
    with tempfile.TemporaryDirectory(prefix="sheets-engine-notify-") as workdir:
        results = measure(args.provinces, Path(workdir), checkouts, args.runs)
    print(table(args.provinces, results[this], results[checkouts[1]] if args.against else None))


if __name__ == "__main__":
    main()
