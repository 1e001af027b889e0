"""The commands a GM runs around a turn, each beside `resolve`, at 1,000 and 10,000 provinces (issue 27).

    python -m benchmarks.commands                     # 1,000 and 10,000 provinces
    python -m benchmarks.commands --sizes 1000        # some sizes only
    python -m benchmarks.commands --write             # and write the table into benchmarks/results.md

At each size a campaign is generated (`sheets-engine generate --seed 7`: every clan's orders sent by the
form, derived columns still empty, as the issue measured it). Then, each a whole `sheets-engine` process
on its own copy: `resolve --force` (turn 1), `check` with every order pending, and on the resolved
campaign `report`, `map`, `history --turn 1` and `rollback --turn 1 --dry-run`, each as a table (stdout
to a file, as a pipe gets it) and as --json, and `resolve --dry-run` as a table and as --json. The CPU
time (user + system) and the peak memory (max RSS) are the child process's own accounting (wait4), so
the ratios compare like with like in one run; a command still running after --timeout wall seconds is
stopped and shown as "stopped".
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SIZES = (1_000, 10_000)
SEED = 7
SECTION = "## Commands at scale: check, report, map and the tables (issue 27)"
SCRIPT = shutil.which("sheets-engine", path=str(Path(sys.executable).parent)) or "sheets-engine"


def run(args: list[str], out: Path, timeout: float) -> dict[str, Any]:
    """One `sheets-engine` process: its CPU seconds, peak MiB and exit (None when stopped at the timeout)."""
    with out.open("wb") as sink:
        child = subprocess.Popen([SCRIPT, *args], stdout=sink, stderr=subprocess.DEVNULL, start_new_session=True)
        started = time.monotonic()
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - started > timeout:
                os.killpg(child.pid, signal.SIGKILL)
                pid, status, usage = os.wait4(child.pid, 0)
                return {"cpu": usage.ru_utime + usage.ru_stime, "mib": usage.ru_maxrss / 1024, "exit": None}
            time.sleep(0.05)
    child.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
    return {"cpu": usage.ru_utime + usage.ru_stime, "mib": usage.ru_maxrss / 1024, "exit": child.returncode}


def measure(size: int, work: Path, timeout: float) -> list[tuple[str, dict[str, Any]]]:
    """Every command at this size, on fresh copies of one generated campaign."""
    fresh = work / f"fresh-{size}.xlsx"
    subprocess.run([SCRIPT, "generate", str(fresh), "--provinces", str(size), "--seed", str(SEED)], check=True,
                   capture_output=True)  # fmt: skip

    def copy(name: str) -> str:
        path = work / f"{name}-{size}.xlsx"
        shutil.copy(fresh, path)
        return str(path)

    out = work / "out"
    results: list[tuple[str, dict[str, Any]]] = []

    def step(name: str, args: list[str]) -> None:
        print(f"  {size:,} {name} ...", file=sys.stderr, flush=True)
        results.append((name, run(args, out, timeout)))

    resolved = copy("resolved")
    step("resolve", ["resolve", resolved, "--force"])
    step("check (every order pending)", ["check", copy("check")])
    dry = copy("dry")
    step("resolve --dry-run (table)", ["resolve", dry, "--dry-run", "--force"])
    step("resolve --dry-run --json", ["resolve", dry, "--dry-run", "--force", "--json"])
    step("history --turn 1 (table)", ["history", resolved, "--turn", "1"])
    step("history --turn 1 --json", ["history", resolved, "--turn", "1", "--json"])
    step("history --turn 1 --nl", ["history", resolved, "--turn", "1", "--nl"])
    step("rollback --turn 1 --dry-run (table)", ["rollback", resolved, "--turn", "1", "--dry-run"])
    step("rollback --turn 1 --dry-run --json", ["rollback", resolved, "--turn", "1", "--dry-run", "--json"])
    step("map", ["map", resolved, "--out", str(work / f"map-{size}.png")])
    step("report (every clan)", ["report", resolved, "--out", str(work / f"reports-{size}")])
    return results


def table(measured: dict[int, list[tuple[str, dict[str, Any]]]], timeout: float) -> str:
    """The markdown table: each command's CPU and memory at each size, its ratio to resolve, and a table's
    ratio to its --json."""
    lines = [
        "| provinces | command | CPU s | peak MiB | / resolve | table / --json |",
        "|---:|---|---:|---:|---:|---:|",
    ]
    for size, results in measured.items():
        by_name = dict(results)
        resolve = by_name["resolve"]["cpu"]
        for name, r in results:
            stopped = r["exit"] is None
            cpu = f"> {r['cpu']:.1f} (stopped at {timeout:.0f} s wall)" if stopped else f"{r['cpu']:.2f}"
            if r["exit"] not in (None, 0):
                cpu += f" (exit {r['exit']})"
            pair = ""
            if name.endswith("(table)"):
                json_name = name.replace(" (table)", " --json")
                if json_name in by_name:
                    pair = f"{r['cpu'] / by_name[json_name]['cpu']:.2f}"
            ratio = "" if name == "resolve" else f"{r['cpu'] / resolve:.2f}" + ("+" if stopped else "")
            lines.append(f"| {size:,} | `{name}` | {cpu} | {r['mib']:.0f} | {ratio} | {pair} |")
    return "\n".join(lines)


def write_results(text: str) -> None:
    """Put the section into benchmarks/results.md, replacing the one of an earlier run (its notes kept)."""
    path = HERE / "results.md"
    body = path.read_text(encoding="utf-8")
    start = body.find(SECTION)
    if start < 0:
        path.write_text(body.rstrip("\n") + "\n\n" + text + "\n", encoding="utf-8")
        return
    following = re.search(r"^## ", body[start + len(SECTION) :], flags=re.M)
    end = start + len(SECTION) + following.start() if following else len(body)
    old = body[start:end]
    notes = old[old.find("### Notes") :] if "### Notes" in old else ""
    kept = "\n\n" + notes.rstrip("\n") if notes else ""
    path.write_text(body[:start] + text + kept + "\n\n" + body[end:].lstrip("\n"), encoding="utf-8")


def main() -> None:
    """Measure, print the table, and with --write keep it in benchmarks/results.md."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(str(s) for s in SIZES), help="comma-separated province counts")
    parser.add_argument("--timeout", type=float, default=300.0, help="wall seconds before a command is stopped")
    parser.add_argument("--write", action="store_true", help="write the table into benchmarks/results.md")
    options = parser.parse_args()
    sizes = [int(s) for s in options.sizes.split(",") if s.strip()]
    with tempfile.TemporaryDirectory(prefix="sheets-engine-commands-") as folder:
        measured = {size: measure(size, Path(folder), options.timeout) for size in sizes}
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    text = (
        f"{SECTION}\n\n`python -m benchmarks.commands` ({when}; {machine}; one process a command, its own CPU "
        f"user + system and max RSS; `generate --seed {SEED}`).\n\n{table(measured, options.timeout)}"
    )
    print(text)
    if options.write:
        write_results(text)


if __name__ == "__main__":
    main()
