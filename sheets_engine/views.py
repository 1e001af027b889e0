"""What players see after a turn: each reader's private report and the map picture (`report`, `map`).

The service around the ruleset's capabilities (core.capabilities): it reads the campaign once (a
`reading` run: no lock, no write), asks the record's `report` and `picture` for the content and the
picture, and writes the files: one self-contained HTML page per reader (inline CSS, every piece of
sheet text escaped), and with --json the content beside it. A page opens with the ruleset's `lead`
parts (this turn for the reader), then the map (inline SVG with the full-size STEM-map.svg beside it
when the ruleset draws SVG, else an inline PNG), then its `follow` parts, then its tables, folded
when long. On a phone every table reflows into one card a row; on a desktop the page uses the
width. `map --save-layout` commits the places the ruleset's picture computed.
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
from sheets_engine.core.capabilities import MapPicture, Page, Part, ReportPages, View
from sheets_engine.core.problems import Severity
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
    """The checked campaign of a run, with the rows of these log tabs (read whole) and its warnings."""
    campaign = run.campaign()
    warnings = tuple(str(p) for p in campaign.problems if p.severity is not Severity.ERROR)
    return View(campaign.state, {tab: run.log_rows(tab) for tab in logs}, warnings)


def open_view(source: str | Store, logs: tuple[str, ...] = ("Battles", "Notifications", "History")) -> View:
    """The campaign checked (InvalidCampaign on errors), with the rows of its log tabs: what a view reads."""
    with reading(source, "report", whole=logs) as run:
        return view_of(run, logs)


STYLE = """
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;padding:12px 16px;line-height:1.4;
color:#111;background:#fafafa}
main{max-width:110em;margin:0 auto}
h1{font-size:1.3em;margin:.2em 0}h2{font-size:1.1em;margin:1.2em 0 .4em;border-bottom:2px solid #E69F00}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;max-width:100%}
table{border-collapse:collapse;font-size:.9em;background:#fff}
th,td{border:1px solid #ccc;padding:4px 6px;text-align:left;vertical-align:top}th{background:#eee}
td{overflow-wrap:break-word}td.result{min-width:16em}
table.wide{font-size:.8em}table.wide th,table.wide td{padding:3px 4px}table.wide th{font-size:.85em}
.map{display:block;max-width:100%;height:auto;border:1px solid #ccc;background:#fff}
img{max-width:100%;height:auto;border:1px solid #ccc;background:#fff}
.note{color:#555;font-size:.9em}ul{padding-left:1.2em;margin:.3em 0}
details{margin:.6em 0}summary{cursor:pointer;font-weight:600;font-size:1.05em;padding:.3em 0}
@media (max-width:700px){
body{padding:8px}
table.cards,table.cards tbody,table.cards tr,table.cards td{display:block;width:100%}
table.cards thead{display:none}
table.cards tr{border:1px solid #bbb;border-radius:6px;margin:0 0 10px;background:#fff;padding:4px 0}
table.cards td{border:none;border-bottom:1px solid #eee;display:grid;grid-template-columns:minmax(5.5em,32%) 1fr;
gap:8px;padding:3px 8px}
table.cards td:last-child{border-bottom:none}
table.cards td:empty{display:none}
table.cards td::before{content:attr(data-label);font-weight:600;color:#555}
table.cards td,table.cards td.result{overflow-wrap:anywhere;min-width:0}
.scroll{overflow-x:visible}
}
"""
OPEN_ROWS = 15  # a table of more rows starts folded (its heading says how many): the page stays short
WIDE = 12  # a table of more columns is set smaller (Provinces' 20 fit a laptop's width)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    return html.escape(str(value))


def _table(rows: list[dict[str, Any]] | tuple[dict[str, Any], ...]) -> str:
    """A table that is a table on a desktop and one card a row on a phone (each cell named by its column)."""
    if not rows:
        return '<p class="note">None.</p>'
    columns = list(rows[0])
    head = "".join(f"<th>{_cell(c)}</th>" for c in columns)
    labels = [f' data-label="{_cell(c)}"' for c in columns]
    body = "".join(
        "<tr>"
        + "".join(
            f"<td{label}{' class=result' if c == 'Result' else ''}>{_cell(r.get(c))}</td>"
            for c, label in zip(columns, labels, strict=True)
        )
        + "</tr>"
        for r in rows
    )
    kind = "cards wide" if len(columns) > WIDE else "cards"  # many columns: smaller, so a desktop shows them all
    return (
        f'<div class="scroll"><table class="{kind}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'
    )


def _part(part: Part) -> str:
    found = [f"<section><h2>{_cell(part.heading)}</h2>"]
    if part.lines:
        found.append("<ul>" + "".join(f"<li>{_cell(line)}</li>" for line in part.lines) + "</ul>")
    if part.rows:
        found.append(_table(part.rows))
    found.append("</section>")
    return "".join(found)


def html_page(page: Page, png: bytes = b"", svg: str = "", full: str = "") -> str:
    """A page as one self-contained HTML document (inline CSS, the map inline when the ruleset draws one:
    SVG with `svg`, else the PNG), every sheet text escaped: this turn for the reader first (`page.lead`),
    the map (`full`: the file of the full-size picture, linked), what comes next (`page.follow`), then
    the tables, each folded behind its heading when it is long."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_cell(page.title)} - {_cell(page.reader)}</title><style>{STYLE}</style></head><body><main>",
        f'<h1>{_cell(page.title)}</h1><p class="note">Report for {_cell(page.who)}.</p>',
    ]
    parts += [_part(part) for part in page.lead]
    if svg or png:
        parts.append("<section><h2>Map</h2>")
        if svg:
            # inline (the page stays one file), without the namespace HTML does not need; a tap on it
            # opens the full-size file, which a phone zooms
            inline = svg.replace(' xmlns="http://www.w3.org/2000/svg"', "", 1)
            parts.append(f'<a href="{_cell(full)}">{inline}</a>' if full else inline)
        else:
            alt = _cell("Map: " + page.title)
            parts.append(f'<img alt="{alt}" src="data:image/png;base64,{base64.b64encode(png).decode()}">')
        if full:
            parts.append(f'<p class="note"><a href="{_cell(full)}">Open the map full size</a></p>')
        parts.append("</section>")
    parts += [_part(part) for part in page.follow]
    for heading, rows in page.sections:
        fold = "" if len(rows) > OPEN_ROWS else " open"
        parts.append(f"<details{fold}><summary>{_cell(heading)} ({len(rows)})</summary>{_table(rows)}</details>")
    parts.append("</main></body></html>")
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


def write_reports(
    source: str | Store, out: Path, turn: int | None = None, as_json: bool = False, quiet: bool = True
) -> dict[str, Path]:
    """Every reader's report and the GMs' into `out` (reader -> HTML file); with `as_json` a .json beside each.
    Each page has the reader's map inside when the ruleset draws one, and, when it draws SVG, the
    picture beside it as STEM-map.svg (the page links it, full size). The campaign is read once and
    what every page needs (the layout, who sees what) is worked out once; a bar shows the pages
    written unless `quiet`."""
    from sheets_engine.progress import progress

    with progress("Reading the campaign", quiet=quiet):
        with reading(source, "report", whole=("History",)) as run:  # the other log tabs are always read whole
            pages, picture = report_pages(run.ruleset), run.ruleset.picture
            view = view_of(run, tuple(dict.fromkeys(pages.logs + (picture.logs if picture else ()))))
        prepared = picture.prepare(view) if picture else None  # once: every reader's map stands on the same places
    out.mkdir(parents=True, exist_ok=True)
    taken = {"gm"}
    readers: list[tuple[str | None, str]] = [(name, file_stem(name, taken)) for name in pages.readers(view)]
    readers.append((None, "gm"))
    written = {}
    with progress("Writing reports", len(readers), quiet=quiet) as advance:
        for reader, stem in readers:
            content = pages.content(view, reader, turn)
            page = pages.page(content)
            path = out / f"{stem}.html"
            if page.html is not None:  # the ruleset laid out its whole page (its board inside)
                path.write_text(page.html, encoding="utf-8")
            elif picture is not None and picture.svg is not None:
                drawn = picture.svg(view, reader, page.turn, prepared)
                (out / f"{stem}-map.svg").write_text(drawn, encoding="utf-8")
                path.write_text(html_page(page, svg=drawn, full=f"{stem}-map.svg"), encoding="utf-8")
            else:
                png = picture.draw(view, reader, page.turn, prepared) if picture else b""
                path.write_text(html_page(page, png), encoding="utf-8")
            if as_json:
                (out / f"{stem}.json").write_text(
                    json.dumps(content, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8"
                )
            written[reader or pages.gm] = path
            advance(1)
    return written


def draw_map(source: str | Store, reader: str | None = None, turn: int | None = None) -> bytes:
    """The map of the campaign (a reader's own view with `reader`), as PNG bytes. NotForReader when the
    ruleset draws no view of its own for that reader (naming why)."""
    return draw_maps(source, ("png",), reader, turn)[0]["png"]


FORMATS = ("png", "svg")


def draw_maps(
    source: str | Store, formats: tuple[str, ...], reader: str | None = None, turn: int | None = None
) -> tuple[dict[str, bytes], str | None]:
    """The map in each of `formats` ("png", "svg"), from one reading and one layout: format -> bytes, and the
    reader as the campaign spells it (typed in any case: "oda" is "Oda").
    NotForReader as `draw_map`, and for SVG from a ruleset that draws PNG only."""
    with reading(source, "map") as run:  # Battles, like every log tab but History, is read whole
        picture = map_picture(run.ruleset)
        view = view_of(run, picture.logs)
    if reader is not None:
        reader = picture.reader_name(view, reader)
        why = picture.reader_problem(view, reader)
        if why:
            raise NotForReader(why)
    if "svg" in formats and picture.svg is None:
        raise NotForReader(f"the {run.ruleset.title} map is drawn as PNG only, not SVG")
    prepared = picture.prepare(view)
    drawn: dict[str, bytes] = {}
    for kind in dict.fromkeys(formats):
        if kind == "svg" and picture.svg is not None:
            drawn[kind] = picture.svg(view, reader, turn, prepared).encode("utf-8")
        else:
            drawn[kind] = picture.draw(view, reader, turn, prepared)
    return drawn, reader


def reader_refusal(source: str | Store, reader: str) -> str:
    """Why the map cannot be drawn for `reader` ("" when it can)."""
    with reading(source, "map") as run:
        picture = map_picture(run.ruleset)
        view = view_of(run, ())
    return picture.reader_problem(view, picture.reader_name(view, reader))


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
