"""A house's board page as one self-contained HTML document: the board as inline SVG, the mandate table,
the last circuit's moves, and a small order builder (the `report` capability's page).

The board follows the player guide: every hex's ground on hover (its SVG `<title>`), a selected
piece's march reach outlined with a dashed pale line and its strike reach hatched in red, each
target's `<title>` giving the attack's arithmetic. Click (or tap) one of the house's pieces, then a
marked hex: the order's Moves entry appears in the builder, ready to type into the Orders tab or
the Form. Everything is inline (no file, script or style from elsewhere), every piece of sheet text
escaped, and it reads at a phone's width: the SVG scales to the page, the tables scroll inside
their own box.
"""

from __future__ import annotations

import html
import math
from typing import Any

from sheets_engine.art_of_war.board import arithmetic
from sheets_engine.art_of_war.hexes import parse_hex
from sheets_engine.art_of_war.hexmap import GROUND_COLOURS, OTHER_GROUND, centre
from sheets_engine.core.capabilities import Page
from sheets_engine.core.names import plural

SIZE = 30  # a hex's radius in SVG units
PALE = "#FFFDF0"  # the guide's dashed pale outline
STRIKE = "#D7191C"  # the guide's red hatching

STYLE = """
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;padding:12px;line-height:1.4;
color:#111;background:#fafafa;max-width:72em;overflow-wrap:anywhere}
h1{font-size:1.3em;margin:.2em 0}h2{font-size:1.1em;margin:1.2em 0 .4em;border-bottom:2px solid #E69F00}
.note{color:#555;font-size:.9em}
.layout{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}
.boardbox{flex:1 1 560px;min-width:0;max-width:100%}
.side{flex:1 1 280px;min-width:0;max-width:100%}
svg#board{display:block;width:100%;height:auto;background:#fff;border:1px solid #ccc;touch-action:manipulation}
.hex{stroke:#666;stroke-width:1}
.capital{fill:none;stroke-width:4}
.piece{cursor:default}.piece.mine{cursor:pointer}
.piece.selected .token{stroke:#000;stroke-width:4}
.token{stroke:#111;stroke-width:1.5}
.label{font-size:11px;text-anchor:middle;dominant-baseline:central;pointer-events:none;fill:#fff;
font-weight:600;paint-order:stroke;stroke:#111;stroke-width:2px}
.moved{fill:none;stroke-width:3;stroke-linecap:round;opacity:.8;pointer-events:none}
.march{fill:rgba(255,255,255,.12);stroke:#FFFDF0;stroke-width:3;stroke-dasharray:6 4;cursor:pointer}
.strike{fill:url(#hatch);stroke:#D7191C;stroke-width:2;cursor:pointer}
#panel{min-height:3em;background:#fff;border:1px solid #ccc;padding:6px 8px;font-size:.9em}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;max-width:100%}
table{border-collapse:collapse;font-size:.9em;background:#fff}
th,td{border:1px solid #ccc;padding:4px 6px;text-align:left;vertical-align:top;overflow-wrap:normal}
th{background:#eee}#mandate td,#mandate th{white-space:nowrap}
@media (max-width:600px){body{padding:8px}.label{font-size:13px}
.reflow thead{display:none}.reflow,.reflow tbody,.reflow tr,.reflow td{display:block;width:100%}
.reflow tr{border:1px solid #ccc;margin:0 0 6px}.reflow td{border:0;border-top:1px solid #eee;display:flex;gap:8px}
.reflow td::before{content:attr(data-label);font-weight:600;flex:0 0 9em}
#mandate.reflow td,#mandate.reflow th{white-space:normal}}
.builder{background:#fff;border:1px solid #ccc;padding:8px}
.builder code{display:block;white-space:pre-wrap;background:#f3f3f3;padding:6px;margin:.4em 0}
button,select{font:inherit;padding:4px 10px;margin:2px 4px 2px 0}
ul{padding-left:1.2em}
"""

SCRIPT = """
(function () {
  var board = document.getElementById('board'), panel = document.getElementById('panel');
  var builder = document.getElementById('builder'), selected = null, entries = {}, order = 'march', house = '';
  function show(id) {
    selected = id;
    board.querySelectorAll('g.reach').forEach(function (g) { g.style.display = g.dataset.for === id ? '' : 'none'; });
    board.querySelectorAll('g.piece').forEach(function (p) { p.classList.toggle('selected', p.dataset.piece === id); });
    var said = document.getElementById('selected');
    if (said) { said.textContent = id ? id + ' selected: click a dashed hex to march, a hatched one to strike'
                                      : 'No piece selected: click one of your pieces.'; }
  }
  function render() {
    if (!builder) { return; }
    var moves = Object.keys(entries).map(function (k) { return entries[k]; }).join('; ');
    var raises = document.getElementById('order-raises').value;
    if (house) { document.getElementById('order-house').textContent = house; }
    document.getElementById('order-kind').textContent = order;
    document.getElementById('order-moves').textContent = order === 'march' ? moves : '';
    document.getElementById('order-capital').textContent = raises;
    document.getElementById('order-line').textContent = 'Season ' + builder.dataset.season + ' | '
      + document.getElementById('order-house').textContent + ' | ' + order
      + (order === 'march' ? ' | ' + moves : '') + ' | ' + raises;
  }
  board.addEventListener('click', function (event) {
    var target = event.target.closest('[data-moves]');
    if (target && selected) {
      var piece = board.querySelector('g.piece[data-piece="' + CSS.escape(selected) + '"]');
      if (house !== piece.dataset.house) {  // another house's piece (the GMs' page): its own order
        entries = {}; house = piece.dataset.house;
        if (builder && piece.dataset.season) {
          builder.dataset.season = piece.dataset.season;
          document.getElementById('order-season').textContent = piece.dataset.season;
        }
      }
      entries[selected] = target.dataset.moves; order = 'march'; show(null); render(); return;
    }
    var found = event.target.closest('g.piece.mine');
    show(found && found.dataset.piece !== selected ? found.dataset.piece : null);
  });
  board.addEventListener('pointerover', function (event) {
    var shape = event.target.closest('[data-tip]');
    if (shape) { panel.textContent = shape.dataset.tip; }
  });
  document.addEventListener('keydown', function (event) { if (event.key === 'Escape') { show(null); } });
  if (builder) {
    house = builder.dataset.house;
    document.getElementById('order-raise').addEventListener('click', function () { order = 'raise'; render(); });
    document.getElementById('order-clear').addEventListener('click', function () {
      entries = {}; order = 'march'; show(null); render(); });
    document.getElementById('order-raises').addEventListener('change', render);
    render();
  }
  show(null);
})();
"""


def _e(value: Any) -> str:
    """Sheet text as HTML text or an attribute's value: escaped, quotes included."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    return html.escape(str(value), quote=True)


def _xy(text: str) -> tuple[float, float]:
    where = parse_hex(text)
    assert where is not None
    x, y = centre(where)
    return x * SIZE, -y * SIZE  # north up: the SVG's y grows downwards


def _corners(text: str, shrink: float = 0.0) -> str:
    x, y = _xy(text)
    radius = SIZE - shrink
    points = []
    for i in range(6):  # pointy-topped, as the PNG draws them
        angle = math.radians(60 * i - 30)
        points.append(f"{x + radius * math.cos(angle):.1f},{y + radius * math.sin(angle):.1f}")
    return " ".join(points)


def _ground_tip(cell: dict[str, Any]) -> str:
    capital = f"; capital of {cell['capital']}" if cell["capital"] else ""
    return (
        f"{cell['hex']}: {cell['ground']} (costs {cell['cost']} to enter, cover {cell['cover']}, a settler here "
        f"raises {cell['raises']}){capital}"
    )


def svg(content: dict[str, Any]) -> str:
    """The board as inline SVG: hexes by ground, capitals, the last circuit's marches, pieces, and each marked
    piece's reach (hidden until the piece is selected)."""
    colours: dict[str, str] = content["colours"]
    cells = content["board"]
    xs = [_xy(c["hex"])[0] for c in cells] or [0.0]
    ys = [_xy(c["hex"])[1] for c in cells] or [0.0]
    pad = SIZE + 4
    left, top = min(xs) - pad, min(ys) - pad
    width, height = max(xs) - min(xs) + 2 * pad, max(ys) - min(ys) + 2 * pad
    parts = [
        f'<svg id="board" viewBox="{left:.0f} {top:.0f} {width:.0f} {height:.0f}" role="img" '
        f'aria-label="The board, season {_e(content["season"])}" xmlns="http://www.w3.org/2000/svg">',
        '<defs><pattern id="hatch" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
        f'<rect width="8" height="8" fill="rgba(215,25,28,.15)"/><line x1="0" y1="0" x2="0" y2="8" stroke="{STRIKE}" '
        'stroke-width="3"/></pattern></defs>',
        '<g class="ground">',
    ]
    for cell in cells:
        fill = GROUND_COLOURS.get(cell["ground"], OTHER_GROUND)
        tip = _e(_ground_tip(cell))
        parts.append(
            f'<polygon class="hex" data-hex="{_e(cell["hex"])}" data-ground="{_e(cell["ground"])}" '
            f'points="{_corners(cell["hex"])}" fill="{fill}" data-tip="{tip}"><title>{tip}</title></polygon>'
        )
    parts.append('</g><g class="capitals">')
    for cell in cells:
        if cell["capital"]:
            colour = colours.get(cell["capital"], "#000")
            parts.append(
                f'<polygon class="capital" data-capital="{_e(cell["capital"])}" points="{_corners(cell["hex"], 4)}" '
                f'stroke="{colour}" pointer-events="none"/>'
            )
    parts.append('</g><g class="moves">')
    for path in content["moved"]:
        points = [_xy(h) for h in path["hexes"]]
        if path["attacked"]:
            points.append(_xy(path["attacked"]))
        if len(points) > 1:
            line = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
            colour = colours.get(path["house"], "#000")
            parts.append(f'<polyline class="moved" points="{line}" stroke="{colour}"/>')
    parts.append('</g><g class="pieces">')
    for piece in content["pieces"]:
        x, y = _xy(piece["hex"])
        colour = colours.get(piece["house"], "#999")
        mine = piece["piece"] in content["reach"]
        season = content["next seasons"].get(piece["house"], "")
        tip = _e(f"{piece['piece']}: {piece['house']}'s {piece['kind']} at {piece['hex']}")
        if piece["kind"] == "soldier":
            shape = (
                f'<rect class="token" x="{x - 13:.1f}" y="{y - 13:.1f}" width="26" height="26" rx="3" fill="{colour}"/>'
            )
        else:
            shape = f'<circle class="token" cx="{x:.1f}" cy="{y:.1f}" r="13" fill="{colour}"/>'
        parts.append(
            f'<g class="piece{" mine" if mine else ""}" data-piece="{_e(piece["piece"])}" '
            f'data-house="{_e(piece["house"])}" data-kind="{_e(piece["kind"])}" data-hex="{_e(piece["hex"])}" '
            f'data-season="{_e(season)}" '
            f'data-tip="{tip}"><title>{tip}</title>{shape}'
            f'<text class="label" x="{x:.1f}" y="{y:.1f}">{_e(piece["piece"])}</text></g>'
        )
    parts.append('</g><g class="reaches">')
    for name, reach in content["reach"].items():
        parts.append(f'<g class="reach" data-for="{_e(name)}" style="display:none">')
        for step in reach["march"]:
            tip = _e(f"{name} marches to {step['hex']} ({step['moves']}; {plural(step['points left'], 'point')} left)")
            parts.append(
                f'<polygon class="march" data-hex="{_e(step["hex"])}" data-moves="{_e(step["moves"])}" '
                f'points="{_corners(step["hex"], 2)}" data-tip="{tip}"><title>{tip}</title></polygon>'
            )
        for strike in reach["strike"]:
            tip = _e(arithmetic(strike, name))
            parts.append(
                f'<polygon class="strike" data-hex="{_e(strike["hex"])}" data-moves="{_e(strike["moves"])}" '
                f'data-attack="{strike["attack"]}" data-defence="{strike["defence"]}" '
                f'points="{_corners(strike["hex"], 2)}" data-tip="{tip}"><title>{tip}</title></polygon>'
            )
        parts.append("</g>")
    parts.append("</g></svg>")
    return "".join(parts)


def _table(rows: list[dict[str, Any]], id_: str) -> str:
    if not rows:
        return '<p class="note">None yet.</p>'
    columns = list(rows[0])
    head = "".join(f"<th>{_e(c)}</th>" for c in columns)
    body = "".join(
        "<tr>" + "".join(f'<td data-label="{_e(c)}">{_e(r.get(c))}</td>' for c in columns) + "</tr>" for r in rows
    )  # each cell names its column: on a phone a row reflows into a card of label and value
    table = f'<table id="{id_}" class="reflow"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
    return f'<div class="scroll">{table}</div>'


def _builder(content: dict[str, Any]) -> str:
    order = content["order"]
    if order is None:
        return ""
    raises = order["capital raises"]
    choices = "".join(
        f'<option value="{k}"{" selected" if k == raises else ""}>{k}</option>' for k in ("settler", "soldier")
    )
    cells = (
        ("Season", f'<span id="order-season">{_e(order["season"])}</span>'),
        ("House", f'<span id="order-house">{_e(order["house"])}</span>'),
        ("Order", '<span id="order-kind">march</span>'),
        ("Moves", '<span id="order-moves"></span>'),
        ("Capital Raises", '<span id="order-capital"></span>'),
    )
    rows = "".join(f"<tr><th>{name}</th><td>{cell}</td></tr>" for name, cell in cells)
    return (
        f'<h2>Your order</h2><div class="builder" id="builder" data-season="{_e(order["season"])}" '
        f'data-house="{_e(order["house"])}"><p id="selected" class="note"></p>'
        '<button type="button" id="order-raise">Raise levies instead</button>'
        '<button type="button" id="order-clear">Start again</button>'
        f'<label>Capital raises <select id="order-raises">{choices}</select></label>'
        f'<div class="scroll"><table>{rows}</table></div>'
        '<p class="note">Type these into a new row of the Orders tab, or send them by the Form (House, Order, Moves, '
        "Capital Raises). One order a turn: raise levies, or march; a march may move every piece.</p>"
        '<code id="order-line"></code></div>'
    )


def document(content: dict[str, Any]) -> str:
    """The whole page."""
    title, reader = content["title"], content["reader"]
    if content["status"] == "over":
        state = f"The campaign is over: {content['winner'] or 'no house'} won."
    else:
        state = f"Season {content['season']}: {content['to move']} to move."
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)} - {_e(reader)}</title><style>{STYLE}</style></head><body>",
        f'<h1>{_e(title)}</h1><p class="note">Board page for {_e(content["who"])}. {_e(state)}</p>',
        '<div class="layout"><div class="boardbox">',
        svg(content),
        '<p class="note">Point at a hex for its ground, at a hatched target for the attack\'s arithmetic. '
        "Click one of your pieces: dashed hexes it can march to, hatched ones it can strike, this turn, on the "
        "board as it stands.</p></div>",
        '<div class="side"><div id="panel" aria-live="polite">Point at a hex to read its ground.</div>',
        _builder(content),
        "</div></div>",
        "<h2>Mandate</h2>",
        _table(content["houses"], "mandate"),
        "<h2>The last circuit</h2>",
    ]
    moves = content["last circuit"]
    if moves:
        parts.append('<ul id="circuit">' + "".join(f"<li>{_e(m['What happened'])}</li>" for m in moves) + "</ul>")
    else:
        parts.append('<p class="note" id="circuit">No house has moved yet.</p>')
    parts.append(f"<script>{SCRIPT}</script></body></html>")
    return "\n".join(parts) + "\n"


def page(content: dict[str, Any]) -> Page:
    """The content laid out: the whole page in `html` (written as is), its tables in `sections` too."""
    sections = [("Mandate", content["houses"]), ("The last circuit", content["last circuit"])]
    return Page(content["title"], content["reader"], content["who"], content["season"], sections, document(content))
