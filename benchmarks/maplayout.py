"""The map's layout and views (issue 27) against networkx's spring layout, the map's layout today.

    python -m benchmarks.maplayout                         # 300, 1,000 and 10,000 provinces
    python -m benchmarks.maplayout --sizes 1000            # some sizes only
    python -m benchmarks.maplayout --spring-up-to 10000    # spring at 10,000 too (minutes; needs scipy)

Each size runs in its own process (its peak memory is its own) on the campaign `sheets-engine generate`
makes (seed 1560), no place saved. Measured there, in CPU seconds of the process (medians of `runs`):

- *layout*: `maplayout.layout` of every province; its peak traced memory (tracemalloc: numpy's arrays
  included) and the quality of the result (the longest link and the closest pair, in links);
- *views*: what a report adds per run besides drawing: `mapview.Views`, then for every clan its window,
  its labels (every province in the window, own ones first) and its legend;
- *spring*: `networkx.spring_layout` as sheets_engine/mapping.py calls it (seeded, k = 3 / sqrt(n), 500
  rounds up to 300 provinces, 100 above), where it runs: from 500 provinces it needs scipy, which the
  project does not declare; above `--spring-up-to` it is left out (it took 347 s at 10,000, issue 27);
- *resolve*: one `app.resolve` of the same campaign's first turn in memory (no workbook), the yardstick
  of the issue's targets (`map` within 2 times a resolve, `report` within 4).

The table is printed and written to benchmarks/maplayout.md with the machine it ran on.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import time
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.run import NOTES, NOW, machine, peak_mib

HERE = Path(__file__).resolve().parent
SIZES = (300, 1_000, 10_000)
RUNS = {300: 5, 1_000: 5, 10_000: 3}
SEED = 1560
PICTURE = (11 * 110, 7 * 110)  # pixels: the map's part of today's picture (11 by 7 inches at 110 dpi)
FONT = 7 / 72 * 110  # a 7-point label at 110 dpi, in pixels


def campaign(size: int) -> tuple[Any, dict[str, str], list[str], dict[str, list[list[Any]]]]:
    """A generated campaign's map (provinces in row order), each province's owner, the clans, the tabs."""
    import networkx as nx

    from sheets_engine.core.cells import split_names
    from sheets_engine.sengoku.generate import generate

    tabs = generate(size, seed=SEED)
    header, *rows = tabs["Provinces"]
    name, adjacent, owner = (header.index(c) for c in ("Province", "Adjacent", "Province Owner"))
    graph = nx.Graph()
    graph.add_nodes_from(row[name] for row in rows)
    for row in rows:
        graph.add_edges_from((row[name], other) for other in split_names(row[adjacent] or ""))
    return graph, {row[name]: row[owner] or "" for row in rows}, [r[0] for r in tabs["Clans"][1:]], tabs


def views(done: Any, graph: Any, owner: dict[str, str], clans: list[str]) -> int:
    """Every clan's window, labels and legend, as a report would ask for them; the labels shown."""
    from sheets_engine.mapview import Entry, Label, Views, clan_styles, fit_legend, place_labels
    from sheets_engine.mapview import borders as clan_borders

    index = Views(done.places, graph, done.link)
    held: dict[str, list[str]] = {clan: [] for clan in clans}
    for province, clan in owner.items():
        if clan:
            held[clan].append(province)
    styles = clan_styles(clans, clan_borders(graph, owner), 28)
    entries = [Entry(clan, styles[clan], len(held[clan])) for clan in clans]
    shown = 0
    for clan in clans:
        window = index.clan(held[clan], aspect=PICTURE[0] / PICTURE[1])
        scale = PICTURE[0] / window.width
        labels = [Label(p, p, *done.places[p], 2.0 if owner[p] == clan else 1.0) for p in window.provinces]
        points = [done.places[p] for p in window.provinces]
        shown += len(place_labels(labels, scale, 0.62 * FONT, 1.2 * FONT, 0.28 * done.link * scale, points, window.box))
        near = {owner[p] for p in window.provinces if owner[p]}
        fit_legend(entries, PICTURE[1] - 60, 18, 200, 5.3, viewer=clan, near=near)
    return shown


def measure(size: int, runs: int, spring_up_to: int) -> dict[str, Any]:
    """Every measurement at this size, in this process."""
    import networkx as nx
    import numpy as np

    from sheets_engine import app
    from sheets_engine.maplayout import layout
    from sheets_engine.stores.memory import MemoryStore

    graph, owner, clans, tabs = campaign(size)
    seconds = []
    for _ in range(runs):
        begin = time.process_time()
        done = layout(graph, seed=SEED)
        seconds.append(time.process_time() - begin)
    tracemalloc.start()
    layout(graph, seed=SEED)
    traced = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    lengths = [math.dist(done.places[a], done.places[b]) for a, b in graph.edges]
    names = list(done.places)
    points = np.array([done.places[p] for p in names])
    from sheets_engine.stresslayout import close_pairs

    i, j = close_pairs(points, 2.0)  # every pair within two links; the closest is among them
    closest = float(np.sqrt(((points[i] - points[j]) ** 2).sum(axis=1)).min()) if i.size else math.inf
    begin = time.process_time()
    shown = views(done, graph, owner, clans)
    view_seconds = time.process_time() - begin
    spring: float | str = "left out"
    if size <= spring_up_to:
        try:
            begin = time.process_time()
            nx.spring_layout(graph, seed=SEED, iterations=500 if size <= 300 else 100, k=3 / size**0.5)
            spring = time.process_time() - begin
        except ImportError as missing:
            spring = f"fails: {missing}"
    store = MemoryStore(tabs)
    begin = time.process_time()
    app.resolve(store, now=NOW, force=True, empty=True)
    resolve = time.process_time() - begin
    return {
        "size": size,
        "runs": runs,
        "layout": statistics.median(seconds),
        "traced_mib": traced,
        "longest_link": max(lengths),
        "closest": closest,
        "clans": len(clans),
        "views": view_seconds,
        "labels": shown,
        "spring": spring,
        "resolve": resolve,
        "peak_mib": peak_mib(),
    }


def table(rows: list[dict[str, Any]]) -> str:
    """The results as a markdown table."""
    head = (
        "| provinces | runs | layout CPU s | spring CPU s | spring / layout | layout traced MiB | longest link "
        "| closest pair | clans | views CPU s (all clans) | labels shown | resolve CPU s | (layout + views) / "
        "resolve | process peak MiB |"
    )
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        spring = r["spring"]
        timed = isinstance(spring, float)
        spring_text, ratio = (f"{spring:.2f}", f"{spring / r['layout']:.0f}x") if timed else (spring, "")
        lines.append(
            f"| {r['size']:,} | {r['runs']} | {r['layout']:.2f} | {spring_text} | "
            f"{ratio} | {r['traced_mib']:.0f} | {r['longest_link']:.2f} | "
            f"{r['closest']:.2f} | {r['clans']} | {r['views']:.2f} | {r['labels']:,} | {r['resolve']:.2f} | "
            f"{(r['layout'] + r['views']) / r['resolve']:.2f}x | {r['peak_mib']:.0f} |"
        )
    return "\n".join(lines)


def main() -> None:
    """Measure every size (each in its own process), print the table and write benchmarks/maplayout.md."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="comma-separated province counts")
    parser.add_argument("--runs", type=int, help="layout runs per size (default: by size)")
    parser.add_argument("--spring-up-to", type=int, default=1_000, help="largest size to time spring_layout at")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--output", default=str(HERE / "maplayout.md"), help="where to write the table")
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.runs or RUNS.get(args.one, 3), args.spring_up_to)))
        return
    rows = []
    for size in (int(s) for s in args.sizes.split(",") if s):
        print(f"the map layout at {size:,} provinces ...", file=sys.stderr, flush=True)
        command = [sys.executable, "-m", "benchmarks.maplayout", "--one", str(size)]
        command += ["--spring-up-to", str(args.spring_up_to)] + (["--runs", str(args.runs)] if args.runs else [])
        done = subprocess.run(command, capture_output=True, text=True, cwd=HERE.parent, check=False)
        if done.returncode != 0:
            print(done.stderr, file=sys.stderr)
            raise SystemExit(f"the {size:,}-province run failed")
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(table(rows[-1:]), file=sys.stderr, flush=True)
    report = "\n\n".join(
        [
            "# The map's layout and views",
            f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {machine()}.",
            "CPU seconds of one process per size (benchmarks/maplayout.py says what each column measures). "
            "Links and pairs in link lengths; the spacing the layout guarantees is 0.60.",
            table(rows),
        ]
    )
    output = Path(args.output)
    kept = output.read_text().partition(NOTES)[2] if output.exists() else ""
    output.write_text(report + "\n\n" + NOTES + (kept or "\n"))  # the notes written by hand below the marker stay
    print(report)


if __name__ == "__main__":
    main()
