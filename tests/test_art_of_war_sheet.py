"""The Art of War played by sheet: init from the seed, validation naming the cell, runs that stop at a
person's house and play on after its order, the Form, History and rollback."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import openpyxl
from click.testing import CliRunner

from sheets_engine import app
from sheets_engine.art_of_war.hexes import distance, neighbours, parse_hex
from sheets_engine.cli import cli
from sheets_engine.core.lifecycle import RunStatus
from sheets_engine.stores.memory import MemoryStore

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
PLUM = {"houses": 4, "people": "ana@kai.jp", "temper": "steady", "seed": "plum rain"}


def campaign(**options: Any) -> MemoryStore:
    """A new Art of War campaign in memory."""
    store = MemoryStore()
    app.init(store, ruleset="art-of-war", options={**PLUM, **options})
    return store


def game(store: MemoryStore) -> dict[str, Any]:
    return {r["Key"]: r["Value"] for r in store.records("Game")}


def edit(store: MemoryStore, tab: str, key: str, column: str, value: Any) -> None:
    """Set one cell of the row whose first cell is `key`."""
    header = store.tabs[tab][0]
    row = next(r for r in store.tabs[tab][1:] if r[0] == key)
    row[header.index(column)] = value


def problems(store: MemoryStore) -> list[str]:
    return [str(p) for p in app.validate(store)]


# -- init ------------------------------------------------------------------------------------------
def test_the_same_seed_makes_the_same_board_words_or_numbers() -> None:
    first, again = campaign(), campaign()
    assert first.tabs == again.tabs
    assert campaign(seed="Plum  RAIN").tabs["Board"] == first.tabs["Board"]  # spaces and case aside
    assert campaign(seed="plum snow").tabs["Board"] != first.tabs["Board"]
    assert campaign(seed="1560").tabs["Board"] != first.tabs["Board"]
    assert game(first)["first_house"] == "Lotus" and game(first)["to_move"] == "Lotus"
    assert [r["House"] for r in first.records("Houses")] == ["Crane", "Tiger", "Lotus", "Wolf"]
    assert [r["Player"] for r in first.records("Houses")] == ["ana@kai.jp", None, None, None]
    assert [r["Mandate"] for r in first.records("Houses")] == [15, 15, 15, 15]  # shown from the first season
    assert problems(first) == []


def test_no_seed_makes_a_fresh_board_whose_seed_is_kept_to_replay_it() -> None:
    fresh = campaign(seed=None)
    seed = game(fresh)["seed"]
    assert seed.startswith("fresh ") and len(seed) == len("fresh ") + 8
    assert campaign(seed=seed).tabs["Board"] == fresh.tabs["Board"]


def test_capitals_are_placed_fairly_apart_each_with_the_same_home_ground() -> None:
    for houses in range(2, 7):
        store = campaign(houses=houses, people=0, seed=f"fair {houses}")
        terrain = {parse_hex(r["Hex"]): r["Terrain"] for r in store.records("Board")}
        capitals = [parse_hex(r["Capital"]) for r in store.records("Houses")]
        radius = 4 if houses <= 3 else 5
        assert {distance(c, (0, 0)) for c in capitals} == {radius - 1}
        assert min(distance(a, b) for a in capitals for b in capitals if a != b) >= 4
        homes = {tuple(sorted(Counter(terrain[h] for h in neighbours(c)).items())) for c in capitals}
        assert homes == {(("forest", 1), ("highland", 2), ("plain", 3))}
        kinds = Counter((r["House"], r["Kind"]) for r in store.records("Pieces"))
        assert set(kinds.values()) == {1, 2} and len(kinds) == 2 * houses  # a soldier and two settlers each


def test_a_bad_init_option_is_refused_with_exit_2_and_the_reason(tmp_path: Path) -> None:
    runner = CliRunner()
    base = ["init", str(tmp_path / "aw.xlsx"), "--ruleset", "art-of-war"]
    result = runner.invoke(cli, [*base, "--houses", "7"])
    assert (result.exit_code, result.output.strip()) == (2, "Error: --houses 7: from 2 to 6 houses contend")
    result = runner.invoke(cli, [*base, "--temper", "reckless"])
    assert result.output.strip() == "Error: --temper reckless: a bot's temper is cautious, steady, ruthless, hard"
    result = runner.invoke(cli, [*base, "--temper", "random"])  # the tournament's baseline, no temper to play
    assert result.output.strip() == "Error: --temper random: a bot's temper is cautious, steady, ruthless, hard"
    result = runner.invoke(cli, [*base, "--people", "ana@kai.jp,,ben"])
    assert result.output.strip() == (
        "Error: --people 'ana@kai.jp,,ben': each person's email or name, separated by commas (one is empty)"
    )
    result = runner.invoke(cli, [*base, "--houses", "3", "--people", "4"])
    assert result.output.strip() == "Error: --people 4: from 0 to 3 of the 3 houses may be played by people"
    result = runner.invoke(cli, [*base, "--demo"])
    assert result.output.strip() == "Error: --demo: The Art of War has no demo campaign; the board is made from --seed"
    assert not (tmp_path / "aw.xlsx").exists()


# -- validation ------------------------------------------------------------------------------------
def test_a_bad_hex_an_unknown_terrain_two_pieces_on_a_hex_and_a_fallen_houses_piece_are_errors() -> None:
    store = campaign()
    edit(store, "Board", "0,0", "Hex", "0;0")
    edit(store, "Board", "1,0", "Terrain", "swamp")
    edit(store, "Pieces", "P2", "Hex", "0,-4")  # P1 stands there
    edit(store, "Pieces", "P5", "Hex", "9,9")
    edit(store, "Houses", "Wolf", "Fallen", True)
    edit(store, "Board", "4,-2", "Capital Of", "")
    edit(store, "Pieces", "P8", "Hex", "-4,2")  # Tiger's capital: a Lotus soldier on it
    edit(store, "Pieces", "P4", "Hex", "")  # Tiger's settler was there
    assert problems(store) == [
        "Board, row 47, column Hex: found '0;0'; expected a hex as q,r (two whole numbers, e.g. 3,-4)",
        "Board, row 48, column Terrain: found 'swamp'; one of the Terrain tab's terrains (plain, highland, forest)",
        "Pieces, row 3, column Hex: found '0,-4'; one piece a hex: P1 (row 2) stands there already",
        "Pieces, row 6, column Hex: found '9,9'; a hex of the Board tab, or empty",
        "Pieces, row 9, column Hex: found '-4,2'; a hex that is no standing rival's capital: Lotus's soldier on "
        "Tiger's capital means Tiger has fallen (mark it Fallen and clear its capital, or move the soldier)",
        "Pieces, row 11, column House: found 'Wolf'; a standing house: Wolf has fallen, so its pieces have left "
        "the board (empty the Hex)",
        "Pieces, row 12, column House: found 'Wolf'; a standing house: Wolf has fallen, so its pieces have left "
        "the board (empty the Hex)",
        "Pieces, row 13, column House: found 'Wolf'; a standing house: Wolf has fallen, so its pieces have left "
        "the board (empty the Hex)",
    ]


# -- runs ------------------------------------------------------------------------------------------
def _add_order(path: Path, *cells: Any) -> None:
    book = openpyxl.load_workbook(path)
    book["Orders"].append(list(cells))
    book.save(path)


def test_resolve_plays_the_bots_up_to_the_persons_house_and_plays_on_after_its_order(tmp_path: Path) -> None:
    path = tmp_path / "aw.xlsx"
    runner = CliRunner()
    init = [
        "init",
        str(path),
        "--ruleset",
        "art-of-war",
        "--houses",
        "4",
        "--people",
        "ana@kai.jp",
        "--temper",
        "steady",
    ]
    assert runner.invoke(cli, [*init, "--seed", "plum rain"]).exit_code == 0
    assert runner.invoke(cli, ["validate", str(path)]).exit_code == 0
    first = runner.invoke(cli, ["resolve", str(path), "--json"])
    assert first.exit_code == 0, first.output
    report = json.loads(first.output)
    assert (report["status"], report["headline"], report["houses_played"]) == (
        "paused",
        "Season 1 paused: waiting for Crane's order (played by ana@kai.jp): it is Crane's turn.",
        "Lotus, Wolf",
    )
    again = json.loads(runner.invoke(cli, ["resolve", str(path), "--json"]).output)
    assert (again["status"], again["cells_changed"]) == ("paused", 0)  # no order yet: nothing moves
    _add_order(path, 1, "Crane", "march", "P2: 0,-3 > 0,-2 > 1,-2; P1: 0,-4 x 1,-4", "soldier")
    played = json.loads(runner.invoke(cli, ["resolve", str(path), "--json"]).output)
    # one run plays on through the season's close to Crane's turn of season 2 (issue 29)
    assert (played["status"], played["headline"], played["played_on"]) == (
        "paused",
        "Season 1 resolved: season 2 opens with Lotus. Season 2 paused: waiting for Crane's order (played by "
        "ana@kai.jp): it is Crane's turn.",
        "season 1: Crane, Tiger played",
    )
    book = openpyxl.load_workbook(path)
    orders = list(book["Orders"].iter_rows(min_row=2, values_only=True))
    crane = next(o for o in orders if o[1] == "Crane")
    assert crane[5:8] == (
        "Resolved",
        "Crane's capital now raises soldier; P2 marches 0,-3 > 0,-2; P2 cannot enter 1,-2: highland costs 2 and it "
        "has 0 left; P1 cannot attack 1,-4: settlers never attack",
        "P2: 0,-3 > 0,-2",
    )
    third = json.loads(runner.invoke(cli, ["resolve", str(path), "--json"]).output)
    assert (third["status"], third["cells_changed"]) == ("paused", 0)
    assert third["headline"] == "Season 2 paused: waiting for Crane's order (played by ana@kai.jp): it is Crane's turn."
    history = [r for r in book["History"].iter_rows(min_row=2, values_only=True) if r[3] == "Pieces"]
    assert ("P2", "Hex", "0,-3", "0,-2") in {(r[4], r[5], r[6], r[7]) for r in history}


def test_history_records_every_piece_moved_raised_broken_or_sworn_with_why() -> None:
    store = campaign(people=0, seed="history")
    for _ in range(12):
        app.resolve(store, now=NOW)
    rows = store.records("History")
    causes = [r["Cause"] for r in rows if r["Tab"] == "Pieces"]
    assert any(" raises " in c for c in causes) and any(" marches " in c for c in causes)
    moved = next(r for r in rows if r["Tab"] == "Pieces" and r["Column"] == "Hex" and r["Old"])
    assert moved["Cause"].startswith(f"season {moved['Turn']}, ")
    assert f"{moved['Key']} " in moved["Cause"]


def test_a_form_response_from_the_houses_player_is_its_order() -> None:
    store = campaign()
    edit(store, "Houses", "Crane", "Player", "ann@example.com")
    assert app.resolve(store, now=NOW).status is RunStatus.PAUSED
    header = store.tabs["Form Responses 1"][0]
    answers = {
        "Timestamp": "2026-12-01 10:00:00",
        "Email Address": "bob@example.com",
        "House": "crane",
        "Order": "raise",
    }
    store.tabs["Form Responses 1"].append([answers.get(c) for c in header])
    store.tabs["Form Responses 1"].append([{**answers, "Email Address": "Ann@example.com"}.get(c) for c in header])
    report = app.resolve(store, now=NOW)
    assert report.headline.startswith("Season 1 resolved: season 2 opens with Lotus. Season 2 paused: ")
    copied = [(o["House"], o["Email"], o["Status"], o["Result"]) for o in store.records("Orders") if o["Email"]]
    assert copied == [
        ("Crane", "bob@example.com", "Rejected", "not your house: bob@example.com does not play Crane"),
        (
            "Crane",
            "Ann@example.com",
            "Resolved",
            "P1 at 0,-4 raises settler P17 at 1,-4; P3 at 0,-5 raises settler P18 at 1,-5",
        ),
    ]
    app.resolve(store, now=NOW)
    assert sum(1 for o in store.records("Orders") if o["Email"]) == 2  # a response is copied once
    # season 2 is being played and Crane's turn in it is still to come: its next response is for season 2;
    # Lotus has moved in season 2 already, so an order for it now is for season 3
    edit(store, "Houses", "Lotus", "Player", "lee@example.com")
    later = {**answers, "Timestamp": "2026-12-01 11:00:00"}
    store.tabs["Form Responses 1"].append([{**later, "Email Address": "ann@example.com"}.get(c) for c in header])
    store.tabs["Form Responses 1"].append(
        [{**later, "Email Address": "lee@example.com", "House": "Lotus"}.get(c) for c in header]
    )
    app.resolve(store, now=NOW)
    assert [(o["House"], o["Season"]) for o in store.records("Orders") if o["Email"]][2:] == [
        ("Crane", 2),
        ("Lotus", 3),
    ]


def test_an_unreadable_order_is_rejected_and_the_house_may_order_again() -> None:
    store = campaign()
    app.resolve(store, now=NOW)
    header = store.tabs["Orders"][0]
    store.tabs["Orders"].append([{"Season": 1, "House": "Crane", "Order": "charge"}.get(c) for c in header])
    report = app.resolve(store, now=NOW)
    assert report.headline == (
        "Season 1 paused: waiting for Crane's order (played by ana@kai.jp): it is Crane's turn; its last order was "
        'rejected: unknown order "charge": the order is raise or march.'
    )
    assert store.records("Orders")[-1]["Status"] == "Rejected"


def test_rollback_puts_the_board_back_as_the_season_began_and_the_replay_is_identical() -> None:
    store = campaign(people=0, seed="rollback")
    app.resolve(store, now=NOW)
    after_one = {t: [list(r) for r in store.tabs[t]] for t in ("Game", "Houses", "Board", "Pieces")}
    assert app.resolve(store, now=NOW).headline.startswith("Season 2 resolved")
    after_two = {t: [list(r) for r in store.tabs[t]] for t in ("Game", "Houses", "Board", "Pieces")}
    app.rollback(store, 2, now=NOW)
    trimmed = {t: [r for r in store.tabs[t] if any(c not in (None, "") for c in r)] for t in after_one}

    def as_text(tabs: dict[str, list[list[Any]]]) -> dict[str, list[list[Any]]]:
        """The Game values as text: rollback puts back the seasons as History keeps them, as text (the next
        run writes them as numbers again)."""
        return {**tabs, "Game": [[str(c) if c is not None else c for c in r] for r in tabs["Game"]]}

    assert as_text(trimmed) == as_text(after_one)
    app.resolve(store, now=NOW)
    assert {t: [list(r) for r in store.tabs[t]] for t in after_two} == after_two


def test_a_campaign_that_is_over_has_nothing_to_do() -> None:
    store = campaign(people=0, seed="over")
    edit(store, "Game", "status", "Value", "over")
    edit(store, "Game", "winner", "Value", "Tiger")
    report = app.resolve(store, now=NOW)
    assert (report.status, report.headline) == (RunStatus.NOTHING, "Nothing to do: the campaign is over (Tiger won).")


def test_an_orders_tab_laid_out_by_hand_without_the_engines_extra_columns_still_plays() -> None:
    store = campaign(people=0, seed="by hand")
    keep = ["Season", "House", "Order", "Moves", "Capital Raises", "Status", "Result"]
    store.tabs["Orders"] = [keep]
    assert problems(store) == []
    assert app.resolve(store, now=NOW).headline.startswith("Season 1 resolved")
    assert [o["Status"] for o in store.records("Orders")] == ["Resolved"] * 4
    header = store.tabs["Form Responses 1"][0]
    store.tabs["Form Responses 1"].append(["2026-12-01 10:00:00", "ann@example.com", "Crane", "raise", None, None])
    assert header[:2] == ["Timestamp", "Email Address"]
    assert problems(store) == [
        "Orders, row 1, column Email: found an empty cell; a column headed 'Email' and one headed 'Submitted': "
        "Form responses are copied into Orders with who sent them and when"
    ]


# -- found in a second reading ---------------------------------------------------------------------
def test_a_seed_longer_than_a_cell_holds_is_refused_so_the_kept_seed_always_remakes_the_board(tmp_path: Path) -> None:
    target = tmp_path / "aw.xlsx"
    result = CliRunner().invoke(cli, ["init", str(target), "--ruleset", "art-of-war", "--seed", "x" * 40_000])
    assert (result.exit_code, result.output.strip()) == (
        2,
        "Error: --seed: 40,000 characters; a seed is at most 1,000 (it is kept in the Game tab to remake the board)",
    )
    assert not target.exists()


def test_an_order_for_a_season_that_is_over_is_rejected_saying_so_when_the_house_moves() -> None:
    store = campaign()
    app.resolve(store, now=NOW)
    header = store.tabs["Orders"][0]
    store.tabs["Orders"].append([{"Season": 1, "House": "Crane", "Order": "raise"}.get(c) for c in header])
    app.resolve(store, now=NOW)  # Crane raises in season 1, Tiger closes it
    store.tabs["Orders"].append([{"Season": 1, "House": "Crane", "Order": "raise"}.get(c) for c in header])
    report = app.resolve(store, now=NOW)
    assert report.headline == (
        "Season 2 paused: waiting for Crane's order (played by ana@kai.jp): it is Crane's turn; its last order was "
        "rejected: season 1 is over: this order was never played (send an order for season 2)."
    )
    late = [r for r in store.records("Orders") if (r["House"], r["Season"]) == ("Crane", 1)][-1]
    assert (late["Status"], late["Result"]) == (
        "Rejected",
        "season 1 is over: this order was never played (send an order for season 2)",
    )


def test_a_march_with_no_entry_that_can_be_read_is_rejected_and_the_house_may_order_again() -> None:
    store = campaign()
    app.resolve(store, now=NOW)
    header = store.tabs["Orders"][0]
    row = {"Season": 1, "House": "Crane", "Order": "march", "Moves": "P2 0,-3 > 0,-2"}
    store.tabs["Orders"].append([row.get(c) for c in header])
    report = app.resolve(store, now=NOW)
    reason = 'cannot read "P2 0,-3 > 0,-2": write a piece\'s march as P7: 3,4 > 4,4 x 5,4'
    assert report.headline == (
        f"Season 1 paused: waiting for Crane's order (played by ana@kai.jp): it is Crane's turn; its last order was "
        f"rejected: {reason}."
    )
    assert store.records("Orders")[-1]["Status"] == "Rejected"
    assert next(r for r in store.records("Pieces") if r["Piece"] == "P2")["Hex"] == "0,-3"


def test_a_bad_cell_of_a_house_or_a_terrain_is_one_error_not_one_for_every_cell_that_names_it() -> None:
    store = campaign()
    edit(store, "Houses", "Tiger", "Temper", "angry")
    edit(store, "Terrain", "plain", "Cost", 3)
    assert problems(store) == [
        "Terrain, row 2, column Cost: found '3'; expected at most 2",
        "Houses, row 3, column Temper: found 'angry'; a bot's temper (cautious, steady, ruthless, hard), or empty "
        "for a house a person plays",
    ]


def test_an_order_with_no_season_is_rejected_asking_for_the_season() -> None:
    store = campaign()
    app.resolve(store, now=NOW)
    header = store.tabs["Orders"][0]
    store.tabs["Orders"].append([{"House": "Crane", "Order": "raise"}.get(c) for c in header])
    report = app.resolve(store, now=NOW)
    assert report.headline == (
        "Season 1 paused: waiting for Crane's order (played by ana@kai.jp): it is Crane's turn; its last order was "
        "rejected: no season given: write the season of the order (1) in its Season column."
    )
    assert store.records("Orders")[-1]["Status"] == "Rejected"


def test_the_season_is_a_number_in_the_game_tab(tmp_path: Path) -> None:
    path = tmp_path / "aw.xlsx"
    app.init(str(path), ruleset="art-of-war", options={**PLUM, "people": 0, "seed": "numbers"})

    def seasons() -> tuple[Any, Any]:
        cells = {r[0]: r[1] for r in openpyxl.load_workbook(path)["Game"].iter_rows(min_row=2, values_only=True)}
        return cells["season"], cells["last_resolved_season"]

    assert seasons() == (1, 0)  # numbers, not the text "1"
    app.resolve(str(path), now=NOW)  # bots only: the season closes
    assert seasons() == (2, 1)
    assert app.validate(str(path)) == []


def test_people_given_by_count_have_no_temper_and_the_gm_types_who_plays(tmp_path: Path) -> None:
    store = campaign(people=2)
    houses = store.records("Houses")
    assert [(h["Player"], h["Temper"]) for h in houses] == [(None, None), (None, None), (None, "steady"),
                                                            (None, "steady")]  # fmt: skip
    assert problems(store) == [
        f"Houses, row {row}, column Player: found an empty cell; the email (as the Form collects it) or the name of "
        f"the person who plays {name} (it has no Temper, so no bot plays it); or a Temper for a bot"
        for row, name in ((2, "Crane"), (3, "Tiger"))
    ]
    paused = app.resolve(store, now=NOW)
    assert paused.headline == (
        "Season 1 paused: waiting for Crane's order (no Player is written for it in Houses yet): it is Crane's turn."
    )
    edit(store, "Houses", "Crane", "Player", "Ana")  # the GM types who plays it, as they call her
    edit(store, "Houses", "Tiger", "Player", "ben@kai.jp")
    assert problems(store) == []
    assert app.resolve(store, now=NOW).headline == (
        "Season 1 paused: waiting for Crane's order (played by Ana): it is Crane's turn."
    )
    named = campaign(people="Ana, ben@kai.jp")
    assert [(h["Player"], h["Temper"]) for h in named.records("Houses")][:2] == [("Ana", None),
                                                                                ("ben@kai.jp", None)]  # fmt: skip


def test_check_and_a_dry_run_speak_of_seasons(tmp_path: Path) -> None:
    path = tmp_path / "aw.xlsx"
    app.init(str(path), ruleset="art-of-war", options={**PLUM, "seed": "seasons"})
    runner = CliRunner()
    dry = runner.invoke(cli, ["resolve", str(path), "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "Season 1: " in dry.output and "cells would change (dry run: nothing written)" in dry.output
    assert "Turn" not in dry.output.split("dry run")[0]
    checked = runner.invoke(cli, ["check", str(path)])
    assert checked.output.strip() == "Season 1: 0 form responses copied, 0 orders checked; 0 cells written."
