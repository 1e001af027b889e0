"""What players see: check (before the deadline), report and map (after the turn)."""

from __future__ import annotations

from pathlib import Path

import click

from sheets_engine.cli import common
from sheets_engine.cli.common import EXIT_OK, BadInput
from sheets_engine.cli.group import cli
from sheets_engine.core.names import plural
from sheets_engine.output import emit_json, json_option, payload, print_text, snake
from sheets_engine.progress import progress


@cli.command()
@click.argument("source")
@json_option()
def check(source: str, as_json: bool) -> None:
    """Before the deadline: copy new form responses into Orders and preview every Pending order's Result.

    Each Pending order of the current turn gets a Result starting "Check: " (valid now, will fail
    and why, or what it depends on: the dice, other clans' orders); its Status stays Pending and
    no game state changes. `resolve` later writes the real Result over it. Safe from cron: a run
    with nothing new writes nothing.

    Example: sheets-engine check campaign.xlsx
    """
    from sheets_engine import app

    with progress("Checking the pending orders", quiet=as_json):
        report = app.check(common.store_for(source))
    summary = dict(report.summary)
    if as_json:
        fields = {snake(k): v for k, v in summary.items()}
        fields |= {"cells_written": report.cells_written, "history_rows": len(report.history)}
        emit_json(payload("ok" if summary.get("checked") else "nothing_to_do", EXIT_OK, **fields))
        return
    if not summary.get("checked"):
        print_text(f"Nothing to do: {summary.get('reason')}.")
        return
    if report.headline:  # the ruleset's own words (The Art of War's seasons and the rows it cannot read)
        print_text(f"{report.headline}; {plural(report.cells_written, 'cell')} written.")
        return
    counts = ", ".join(f"{summary[k]} {k}" for k in ("valid now", "will fail", "will not count") if summary[k])
    depends = summary["depend on dice or other clans"]
    print_text(
        f"Turn {summary['turn']}: {plural(summary['form responses copied'], 'form response')} copied, "
        f"{plural(summary['orders checked'], 'order')} checked"
        + (
            f" ({counts}" + (f", {depends} depend on dice or other clans" if depends else "") + ")"
            if counts or depends
            else ""
        )
        + f"; {plural(report.cells_written, 'cell')} written."
    )


@cli.command()
@click.argument("source")
@click.option("--out", "out", required=True, metavar="DIR", help="The folder the reports are written to.")
@click.option("--turn", type=click.IntRange(min=0), metavar="N", help="The turn reported (default: the last resolved).")
@json_option("Also write each report's content as JSON beside it; print one JSON object naming the files.")
def report(source: str, out: str, turn: int | None, as_json: bool) -> None:
    """Write one private report per clan (its own file, named after it) and one for the GMs (gm.html).

    Each is one self-contained HTML page, readable on a phone, with the map inside (and beside it,
    full size, as CLAN-map.svg): first what happened to that clan this turn, then the map, the next
    deadline and what its treasury pays for, the tables last; what that clan may know after the turn,
    and nothing that belongs to another clan alone. The GMs' has everything, the turn's problems first.
    For The Art of War, each house's board page: where its pieces can march and strike, and its order.
    For Clan War, each faction's: its koku, forces and orders, the others' forces in sight, its battles.

    Example: sheets-engine report campaign.xlsx --out reports/
    """
    from sheets_engine.views import write_reports

    written = write_reports(common.store_for(source), Path(out), turn, as_json=as_json, quiet=as_json)
    if as_json:
        files = {reader: str(path) for reader, path in written.items()}
        emit_json(payload("ok", EXIT_OK, reports=len(written), files=files))
        return
    print_text(f"Wrote {plural(len(written), 'report')} to {out}: " + ", ".join(p.name for p in written.values()))


@cli.command(name="map")
@click.argument("source")
@click.option(
    "--out",
    "outs",
    multiple=True,
    metavar="FILE.png|FILE.svg",
    help="Where to write the picture: SVG for a name ending in .svg, else PNG (give both to write both).",
)
@click.option("--clan", help="Draw this clan's own view (only the armies it may see).")
@click.option("--turn", type=click.IntRange(min=0), metavar="N", help="The turn drawn (default: the last resolved).")
@click.option(
    "--save-layout",
    is_flag=True,
    help="Write the computed places of provinces without Map X/Map Y into those Provinces columns (History rows).",
)
@json_option()
def map_command(
    source: str, outs: tuple[str, ...], clan: str | None, turn: int | None, save_layout: bool, as_json: bool
) -> None:
    """Draw the map: provinces in their controller's colour, capitals, armies, marches, battles, sieges.

    Provinces stand where the Provinces columns Map X (east) and Map Y (north) put them; the
    others are placed by a seeded layout, the same every time, which --save-layout writes into
    those columns for the GM to keep and adjust. The same sheet gives the same PNG and SVG bytes.
    With --clan, the part of the map around the clan's provinces and their neighbours.

    Example: sheets-engine map campaign.xlsx --out map.png --out map.svg --clan Oda
    """
    from sheets_engine.progress import progress
    from sheets_engine.views import NotForReader, draw_maps, reader_refusal
    from sheets_engine.views import save_layout as keep_layout

    if not outs and not save_layout:
        raise click.UsageError("give --out FILE.png, --save-layout, or both")
    kinds = tuple("svg" if Path(out).suffix.lower() == ".svg" else "png" for out in outs)  # PNG as before
    store = common.store_for(source)
    saved = 0
    try:
        if save_layout:
            why = reader_refusal(store, clan) if clan is not None else ""
            if why:  # nothing is kept for a map that cannot be drawn
                raise NotForReader(why)
            saved = keep_layout(store)
            if not as_json:
                print_text(f"Saved the places of {plural(saved, 'province')} in the Provinces columns Map X and Map Y.")
        if outs:
            with progress("Drawing the map", quiet=as_json):
                drawn, clan = draw_maps(store, kinds, clan, turn)  # after --save-layout, the sheet as it is now
            for out, kind in zip(outs, kinds, strict=True):
                Path(out).parent.mkdir(parents=True, exist_ok=True)
                Path(out).write_bytes(drawn[kind])
                if not as_json:
                    print_text(f"Map written to {out}" + (f" ({clan}'s view)" if clan else ""))
    except NotForReader as error:
        raise BadInput(str(error)) from error
    if as_json:
        first = outs[0] if outs else None  # `out` as before; `outs` every file written
        emit_json(payload("ok", EXIT_OK, out=first, outs=list(outs), clan=clan, provinces_placed=saved))
