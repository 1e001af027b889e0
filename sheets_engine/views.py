"""What players see after a turn: each reader's private report and the map picture (`report`, `map`).

The service around the ruleset's capabilities (core.capabilities): it reads the campaign once (a
`reading` run: no lock, no write), asks the record's `report` and `picture` for the content and the
PNG, and writes the files: one self-contained HTML page per reader (inline CSS, the map inline as a
base64 PNG, every piece of sheet text escaped, readable on a phone), and with --json the content
beside it. `map --save-layout` commits the places the ruleset's picture computed.
"""

from __future__ import annotations

import base64
import html
import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

from sheets_engine.app import Run, reading
from sheets_engine.core.capabilities import MapPicture, Page, ReportPages, View
from sheets_engine.core.ruleset import Ruleset
from sheets_engine.rulesets import supporting
from sheets_engine.stores.base import Store, StoreError


class NotForReader(ValueError):
    """A map asked of a reader the ruleset cannot draw one for (the GM's input, said plainly)."""


def _titles(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1] if names else "no"


def report_pages(ruleset: Ruleset) -> ReportPages:
    """The ruleset's reports; StoreError saying which rulesets have some when it has none."""
    if ruleset.report is None:
        known = _titles(supporting("report"))
        raise StoreError(f"reports and maps know the {known} tabs only, not the {ruleset.title} ruleset")
    return ruleset.report


def map_picture(ruleset: Ruleset) -> MapPicture:
    """The ruleset's map; StoreError saying which rulesets have one when it has none."""
    if ruleset.picture is None:
        known = _titles(supporting("picture"))
        raise StoreError(f"maps know the {known} tabs only, not the {ruleset.title} ruleset")
    return ruleset.picture


def view_of(run: Run, logs: tuple[str, ...]) -> View:
    """The checked campaign of a run, with the rows of these log tabs (read whole)."""
    return View(run.campaign().state, {tab: run.log_rows(tab) for tab in logs})


def open_view(source: str | Store, logs: tuple[str, ...] = ("Battles", "Notifications", "History")) -> View:
    """The campaign checked (InvalidCampaign on errors), with the rows of its log tabs: what a view reads."""
    with reading(source, "report", whole=logs) as run:
        return view_of(run, logs)


STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;padding:12px;line-height:1.4;
color:#111;background:#fafafa;max-width:60em}
h1{font-size:1.3em;margin:.2em 0}h2{font-size:1.1em;margin:1.2em 0 .4em;border-bottom:2px solid #E69F00}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}
table{border-collapse:collapse;font-size:.9em;background:#fff}
th,td{border:1px solid #ccc;padding:4px 6px;text-align:left;vertical-align:top}th{background:#eee}
img{max-width:100%;height:auto;border:1px solid #ccc;background:#fff}
.note{color:#555;font-size:.9em}ul{padding-left:1.2em}
"""


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    return html.escape(str(value))


def _table(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return '<p class="note">None.</p>'
    columns = list(rows[0])
    head = "".join(f"<th>{_cell(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{_cell(r.get(c))}</td>" for c in columns) + "</tr>" for r in rows)
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def html_page(page: Page, png: bytes = b"") -> str:
    """A page as one self-contained HTML document (inline CSS, the map inline when the ruleset draws one),
    every sheet text escaped."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_cell(page.title)} - {_cell(page.reader)}</title><style>{STYLE}</style></head><body>",
        f'<h1>{_cell(page.title)}</h1><p class="note">Report for {_cell(page.who)}.</p>',
    ]
    if png:
        parts += [
            "<h2>Map</h2>",
            f'<img alt="{_cell("Map: " + page.title)}" src="data:image/png;base64,{base64.b64encode(png).decode()}">',
        ]
    for heading, rows in page.sections:
        parts.append(f"<h2>{_cell(heading)}</h2>{_table(rows)}")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def file_stem(name: str, taken: set[str]) -> str:
    """A file name for a reader: its name in letters, digits and dashes; never one already taken."""
    stem = re.sub(r"[^0-9A-Za-z]+", "-", name).strip("-").lower() or "clan"
    if stem in taken:
        number = 2
        while f"{stem}-{number}" in taken:
            number += 1
        stem = f"{stem}-{number}"
    taken.add(stem)
    return stem


def write_reports(source: str | Store, out: Path, turn: int | None = None, as_json: bool = False) -> dict[str, Path]:
    """Every reader's report and the GMs' into `out` (reader -> HTML file); with `as_json` a .json beside each.
    Each page has the reader's map inside when the ruleset draws one."""
    with reading(source, "report", whole=("History",)) as run:  # the other log tabs are always read whole
        pages, picture = report_pages(run.ruleset), run.ruleset.picture
        view = view_of(run, tuple(dict.fromkeys(pages.logs + (picture.logs if picture else ()))))
    prepared = picture.prepare(view) if picture else None  # once: every reader's map stands on the same places
    out.mkdir(parents=True, exist_ok=True)
    taken = {"gm"}
    readers: list[tuple[str | None, str]] = [(name, file_stem(name, taken)) for name in pages.readers(view)]
    readers.append((None, "gm"))
    written = {}
    for reader, stem in readers:
        content = pages.content(view, reader, turn)
        page = pages.page(content)
        path = out / f"{stem}.html"
        if page.html is not None:  # the ruleset laid out its whole page (its board inside)
            path.write_text(page.html, encoding="utf-8")
        else:
            png = picture.draw(view, reader, page.turn, prepared) if picture else b""
            path.write_text(html_page(page, png), encoding="utf-8")
        if as_json:
            (out / f"{stem}.json").write_text(json.dumps(content, indent=2, ensure_ascii=False, default=str) + "\n",
                                              encoding="utf-8")  # fmt: skip
        written[reader or pages.gm] = path
    return written


def draw_map(source: str | Store, reader: str | None = None, turn: int | None = None) -> bytes:
    """The map of the campaign (a reader's own view with `reader`), as PNG bytes. NotForReader when the
    ruleset draws no view of its own for that reader (naming why)."""
    return draw_maps(source, ("png",), reader, turn)["png"]


FORMATS = ("png", "svg")


def draw_maps(
    source: str | Store, formats: tuple[str, ...], reader: str | None = None, turn: int | None = None
) -> dict[str, bytes]:
    """The map in each of `formats` ("png", "svg"), from one reading and one layout: format -> bytes.
    NotForReader as `draw_map`; StoreError for SVG from a ruleset that draws PNG only."""
    with reading(source, "map") as run:  # Battles, like every log tab but History, is read whole
        picture = map_picture(run.ruleset)
        view = view_of(run, picture.logs)
    if reader is not None:
        why = picture.reader_problem(view, reader)
        if why:
            raise NotForReader(why)
    if "svg" in formats and picture.svg is None:
        raise StoreError(f"the {run.ruleset.title} map is drawn as PNG only, not SVG")
    prepared = picture.prepare(view)
    drawn: dict[str, bytes] = {}
    for kind in dict.fromkeys(formats):
        if kind == "svg" and picture.svg is not None:
            drawn[kind] = picture.svg(view, reader, turn, prepared).encode("utf-8")
        else:
            drawn[kind] = picture.draw(view, reader, turn, prepared)
    return drawn


def reader_refusal(source: str | Store, reader: str) -> str:
    """Why the map cannot be drawn for `reader` ("" when it can)."""
    with reading(source, "map") as run:
        picture = map_picture(run.ruleset)
        view = view_of(run, ())
    return picture.reader_problem(view, reader)


def save_layout(source: str | Store, now: datetime | None = None) -> int:
    """Keep the map's computed places in the sheet (the ruleset's `picture.layout`), each cell with its
    History row, in one write; how many places (provinces) were written."""
    with Run(source, "map --save-layout", now=now) as run:
        campaign = run.campaign()
        picture = map_picture(campaign.ruleset)
        if picture.layout is None:
            raise NotForReader(picture.no_layout)
        outcome = picture.layout(campaign.state)
        run.commit(outcome)
        return int(outcome.summary.get("provinces placed", 0))
