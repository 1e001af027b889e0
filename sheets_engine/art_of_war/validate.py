"""The Art of War's checks across tabs: every problem names the tab, the row, the column and the value.

A bad hex, two pieces on one hex, a piece of a fallen house still on the board, an unknown terrain,
a capital that is not on the board: each is an error, and a run stops before anything is written.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from sheets_engine.art_of_war.hexes import Hex, hex_text, parse_hex
from sheets_engine.art_of_war.model import PLAYED_TEMPERS, Status
from sheets_engine.core.problems import Problem, Severity
from sheets_engine.core.tables import GameState

HEX_WORDS = "a hex as q,r (two whole numbers, e.g. 3,-4)"
GAME_KEYS = ("seed", "season", "last_resolved_season", "to_move", "first_house", "max_seasons", "status", "winner")


def check(state: GameState) -> list[Problem]:
    """Every problem across the tabs."""
    problems: list[Problem] = []
    houses = state.frame("Houses")
    names = [str(h) for h in state.rows.get("Houses", houses.index)]  # a row with a bad cell still names its house
    fallen = {str(h) for h, row in houses.iterrows() if row["Fallen"]}
    problems += _game(state, names, fallen)
    board = _board(state, names, problems)
    problems += _houses(state, board, fallen)
    problems += _pieces(state, board, names, fallen)
    problems += _orders(state, names)
    return problems


def _row(state: GameState, tab: str, key: Hashable) -> int | None:
    return state.rows.get(tab, {}).get(key)


def _game(state: GameState, names: list[str], fallen: set[str]) -> list[Problem]:
    problems = []
    game = state.frame("Game")
    for key in GAME_KEYS:
        if key not in game.index:
            problems.append(
                Problem("Game", None, "Key", key, f"a row with the key '{key}' (sheets-engine init writes it)")
            )
    if problems:
        return problems

    def whole(key: str, low: int) -> int | None:
        text = str(state.game(key)).strip()
        if not text.lstrip("-").isdigit() or int(text) < low:
            problems.append(
                Problem(
                    "Game", _row(state, "Game", key), "Value", state.game(key), f"{key}: a whole number, {low} or more"
                )
            )
            return None
        return int(text)

    limit = whole("max_seasons", 1)
    season = whole("season", 1)
    whole("last_resolved_season", 0)
    if limit is not None and season is not None and season > limit:
        problems.append(
            Problem("Game", _row(state, "Game", "season"), "Value", season, f"season: at most max_seasons ({limit})")
        )
    status = str(state.game("status")).strip().casefold()
    if status not in (Status.PLAYING, Status.OVER):
        problems.append(
            Problem("Game", _row(state, "Game", "status"), "Value", state.game("status"), "status: playing or over")
        )
    for key in ("first_house", "to_move"):
        value = str(state.game(key))
        if value not in names:
            problems.append(
                Problem(
                    "Game",
                    _row(state, "Game", key),
                    "Value",
                    value,
                    f"{key}: one of the Houses tab's houses ({', '.join(names) or 'none'})",
                )
            )
        elif key == "to_move" and value in fallen and status == Status.PLAYING:
            problems.append(
                Problem(
                    "Game",
                    _row(state, "Game", key),
                    "Value",
                    value,
                    "to_move: a house still standing (this one has fallen)",
                )
            )
    return problems


def _board(state: GameState, names: list[str], problems: list[Problem]) -> dict[Hex, Hashable]:
    """The board's hexes (checking each row); returns hex -> Board key."""
    known = list(state.rows.get("Terrain", state.frame("Terrain").index))  # a row with a bad cell still names one
    terrains = {str(t).casefold() for t in known}
    listed = ", ".join(str(t) for t in known)
    board: dict[Hex, Hashable] = {}
    capitals: dict[str, Hashable] = {}
    for key, row in state.frame("Board").iterrows():
        number = _row(state, "Board", key)
        where = parse_hex(key)
        if where is None:
            problems.append(Problem("Board", number, "Hex", key, f"expected {HEX_WORDS}"))
            continue
        if where in board:
            first = _row(state, "Board", board[where])
            problems.append(Problem("Board", number, "Hex", key, f"each hex once; row {first} is {hex_text(where)}"))
            continue
        board[where] = key
        if str(row["Terrain"]).casefold() not in terrains:
            problems.append(
                Problem("Board", number, "Terrain", row["Terrain"], f"one of the Terrain tab's terrains ({listed})")
            )
        owner = str(row["Capital Of"])
        if owner and owner not in names:
            problems.append(
                Problem(
                    "Board", number, "Capital Of", owner, f"a house of the Houses tab ({', '.join(names)}), or empty"
                )
            )
        elif owner in capitals:
            problems.append(
                Problem(
                    "Board",
                    number,
                    "Capital Of",
                    owner,
                    f"one capital per house; row {_row(state, 'Board', capitals[owner])} is its capital already",
                )
            )
        elif owner:
            capitals[owner] = key
    return board


def _houses(state: GameState, board: dict[Hex, Hashable], fallen: set[str]) -> list[Problem]:
    problems = []
    frame = state.frame("Board")
    tempers = ", ".join(t.value for t in PLAYED_TEMPERS)
    for name, row in state.frame("Houses").iterrows():
        number = _row(state, "Houses", name)
        word = str(row["Temper"]).strip()
        if word and word.casefold() not in {t.value for t in PLAYED_TEMPERS}:
            problems.append(Problem("Houses", number, "Temper", word,
                                    f"a bot's temper ({tempers}), or empty for a house a person plays"))  # fmt: skip
        elif not word and not str(row["Player"]).strip() and name not in fallen:
            problems.append(Problem("Houses", number, "Player", "",
                                    f"the email (as the Form collects it) or the name of the person who plays {name} "
                                    "(it has no Temper, so no bot plays it); or a Temper for a bot",
                                    Severity.WARNING))  # fmt: skip
        where = parse_hex(row["Capital"])
        if where is None:
            if row["Capital"] or name not in fallen:
                problems.append(Problem("Houses", number, "Capital", row["Capital"], f"expected {HEX_WORDS}"))
            continue
        if where not in board:
            problems.append(Problem("Houses", number, "Capital", row["Capital"], "a hex of the Board tab"))
            continue
        marked = str(frame.at[board[where], "Capital Of"])
        if name not in fallen and marked != name:
            problems.append(
                Problem(
                    "Houses",
                    number,
                    "Capital",
                    row["Capital"],
                    f"the hex whose Board Capital Of is {name} (it says '{marked}')",
                )
            )
        if name in fallen and marked == name:
            problems.append(
                Problem(
                    "Board",
                    _row(state, "Board", board[where]),
                    "Capital Of",
                    marked,
                    f"empty: {name} has fallen and its capital is ordinary ground",
                )
            )
    return problems


def _pieces(state: GameState, board: dict[Hex, Hashable], names: list[str], fallen: set[str]) -> list[Problem]:
    problems = []
    standing: dict[Hex, Any] = {}
    for name, row in state.frame("Pieces").iterrows():
        number = _row(state, "Pieces", name)
        if row["House"] not in names:
            problems.append(
                Problem("Pieces", number, "House", row["House"], f"a house of the Houses tab ({', '.join(names)})")
            )
        if not row["Hex"]:
            continue  # off the board: broken, destroyed or removed
        where = parse_hex(row["Hex"])
        if where is None:
            problems.append(
                Problem("Pieces", number, "Hex", row["Hex"], f"expected {HEX_WORDS}, or empty (off the board)")
            )
            continue
        if where not in board:
            problems.append(Problem("Pieces", number, "Hex", row["Hex"], "a hex of the Board tab, or empty"))
            continue
        if where in standing:
            problems.append(
                Problem(
                    "Pieces",
                    number,
                    "Hex",
                    row["Hex"],
                    f"one piece a hex: {standing[where]} (row {_row(state, 'Pieces', standing[where])}) "
                    "stands there already",
                )
            )
            continue
        standing[where] = name
        owner = str(state.frame("Board").at[board[where], "Capital Of"])
        if row["Kind"] == "soldier" and owner and owner != row["House"] and owner not in fallen:
            problems.append(
                Problem("Pieces", number, "Hex", row["Hex"],
                        f"a hex that is no standing rival's capital: {row['House']}'s soldier on {owner}'s capital "
                        f"means {owner} has fallen (mark it Fallen and clear its capital, or move the soldier)")
            )  # fmt: skip
        if row["House"] in fallen:
            problems.append(
                Problem(
                    "Pieces",
                    number,
                    "House",
                    row["House"],
                    f"a standing house: {row['House']} has fallen, so its pieces have left the board (empty the Hex)",
                )
            )
    return problems


def _orders(state: GameState, names: list[str]) -> list[Problem]:
    known = {n.casefold() for n in names}
    columns = state.layouts["Orders"].columns
    lacking = [c for c in ("Email", "Submitted") if c not in columns]
    if lacking and not state.frame("Form Responses 1").empty:
        return [
            Problem("Orders", 1, lacking[0], "", "a column headed 'Email' and one headed 'Submitted': "
                    "Form responses are copied into Orders with who sent them and when")
        ]  # fmt: skip
    return [
        Problem(
            "Orders",
            _row(state, "Orders", key),
            "House",
            row["House"],
            f"a house of the Houses tab ({', '.join(names)}): this order is never played",
            Severity.WARNING,
        )
        for key, row in state.frame("Orders").iterrows()
        if row["Status"] == "Pending" and " ".join(str(row["House"]).split()).casefold() not in known
    ]
