"""What each Clan War faction may know (its report and its map), the GMs' page, and who a reminder names:
the demo's turn 1 paused for its two battles (Kakita: Crane against Lion; Shiro Hiruma: Crab against the
Shadowlands)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from sheets_engine import app
from sheets_engine.clan_war import mapping, report
from sheets_engine.clan_war.reminders import without_orders
from sheets_engine.core.capabilities import View
from sheets_engine.stores.memory import MemoryStore
from sheets_engine.views import NotForReader, draw_map, open_view, write_reports
from tests.clan_war_support import demo_tabs


@pytest.fixture(scope="module")
def paused() -> MemoryStore:
    store = MemoryStore(demo_tabs())
    app.resolve(store, now=datetime(2026, 11, 28, tzinfo=UTC), force=True)
    return store


@pytest.fixture(scope="module")
def view(paused: MemoryStore) -> View:
    return open_view(paused)


def test_a_factions_report_holds_its_own_forces_koku_and_orders_and_the_others_forces_it_can_see(view) -> None:
    crab = report.content(view, "Crab")
    assert crab["factions"] == [
        {"Faction": "Crab", "Player": "Aiko", "Koku": 7725, "Daimyo": "Hida Kisada", "Special": "", "Rings": 0}
    ]
    assert [p["Province"] for p in crab["provinces"]] == ["Hida", "Kaiu", "Kuni", "Yasuki"]
    assert [u["Unit"] for u in crab["units"]] == ["Crab Wall Guard", "Crab Spears", "Crab Engineers"]
    assert [p["Personality"] for p in crab["personalities"]] == ["Hida Kisada", "Kuni Yori"]
    # its own orders only, each with its Status and Result
    assert {o["Faction"] for o in crab["orders"]} == {"Crab"}
    assert [(o["Tab"], o["Status"]) for o in crab["orders"]] == [
        ("Purchases", "Accepted"), ("Purchases", "Rejected"), ("Purchases", "Accepted"), ("Purchases", "Accepted"),
        ("Purchases", "Accepted"), ("Purchases", "Resolved"), ("Purchases", "Resolved"), ("Bids", "Won"),
        ("Moves", "Resolved"), ("Moves", "Rejected"), ("Moves", "Pending"),
    ]  # fmt: skip
    # the others' forces in or next to the provinces it controls or stands in (the Wall Guard is at Shiro
    # Hiruma now, next to the Plains of Desperate Evil); never Lion's, far away, nor the others' koku
    assert [(u["Unit"], u["Province"]) for u in crab["units in sight"]] == [
        ("Crane Archers", "Daidoji"), ("Goblin Horde", "Shiro Hiruma"), ("Ogre Band", "Festering Pit"),
        ("Bat Swarm", "Plains of Desperate Evil"),
    ]  # fmt: skip
    assert set(crab["units in sight"][0]) == {"Unit", "Faction", "Item", "Province", "Models", "Status"}  # no Leader
    assert [p["Personality"] for p in crab["personalities in sight"]] == ["Yogo Junzo", "Cultist Maro"]
    assert [b["Province"] for b in crab["battles"]] == ["Shiro Hiruma"]  # its own battle, not Kakita
    assert [a["Faction B"] for a in crab["alliances"]] == ["Crane"]


def test_the_gms_page_has_everything_with_the_problems_first(view) -> None:
    gm = report.content(view, None)
    page = report.page(gm)
    assert page.title == "Clan War Demo: The Battle of the Wall: turn 1 (waiting for the Battle Results)"
    assert page.who == "the GMs (everything)"
    heading, problems = page.sections[0]
    assert heading == "Problems (validate)"
    assert [(p["Severity"], p["Tab"], p["Column"]) for p in problems] == [("warning", "Battle Results", "Winner")] * 2
    assert problems[0]["Expected"] == (
        "a row with Turn 1, Province Kakita and the Winner of the battle there (Crane, Lion): the turn waits for it"
    )
    assert len(gm["orders"]) == 25 and len(gm["factions"]) == 4
    assert [b["Province"] for b in gm["battles"]] == ["Kakita", "Shiro Hiruma"]
    assert "units in sight" not in gm  # the GMs see every unit in Units


def test_report_writes_one_private_page_per_faction_and_the_gms(paused: MemoryStore, tmp_path: Path) -> None:
    written = write_reports(paused, tmp_path)
    assert {k: p.name for k, p in written.items()} == {
        "Crab": "crab.html", "Crane": "crane.html", "Lion": "lion.html", "Shadowlands": "shadowlands.html",
        "GMs": "gm.html",
    }  # fmt: skip
    crab = (tmp_path / "crab.html").read_text(encoding="utf-8")
    assert "Report for the Crab faction (private)." in crab and "<h2>Map</h2>" in crab
    assert "Lion Cavalry" not in crab and "Lion Cavalry" in (tmp_path / "gm.html").read_text(encoding="utf-8")


def test_a_factions_map_frames_its_part_and_marks_only_the_forces_it_sees(paused: MemoryStore, view) -> None:
    placed = mapping.prepare(view)
    assert len(placed.places) == 47  # the document's provinces
    crab = mapping.scene(view.state, "Crab", None, view.rows("Battles"), placed)
    everyone = mapping.scene(view.state, None, None, view.rows("Battles"), placed)
    assert sorted((f.province, f.faction, f.text) for f in crab.forces) == [
        ("Daidoji", "Crane", "1 unit, 24m"), ("Festering Pit", "Shadowlands", "1 unit, 6m"),
        ("Hida", "Crab", "1 unit, 20m"), ("Kaiu", "Crab", "1 unit, 8m"), ("Kuni", "Crab", "+1 pers."),
        ("Plains of Desperate Evil", "Shadowlands", "1 unit, 10m"), ("Shiro Hiruma", "Crab", "1 unit, 20m"),
        ("Shiro Hiruma", "Shadowlands", "1 unit, 40m"),
    ]  # fmt: skip
    assert len(everyone.forces) == 13
    assert (crab.battles, everyone.battles) == (["Shiro Hiruma"], ["Kakita", "Shiro Hiruma"])
    whole, part = everyone.box, crab.box
    assert part[2] - part[0] < whole[2] - whole[0]  # the Crab's window is narrower than the whole map
    picture = draw_map(paused, "Crab")
    assert picture.startswith(b"\x89PNG") and picture == draw_map(paused, "Crab")  # the same sheet, the same bytes
    assert picture != draw_map(paused)
    with pytest.raises(NotForReader, match=r"no faction 'Dragon' in the Factions tab \(factions: Crab, Crane, Lion"):
        draw_map(paused, "Dragon")
    assert draw_map(paused, " crab ") == picture  # typed in any case, as map --clan takes it
    with pytest.raises(NotForReader, match=r"there is no faction 'crabb' in the Factions tab \(did you mean 'Crab'\?"):
        draw_map(paused, "crabb")


def test_a_reminder_names_each_played_faction_with_no_order_for_the_turn(view) -> None:
    # turn 1 has every faction's orders; turn 2 has none yet
    assert without_orders(view.state, 1, None) == {}
    assert without_orders(view.state, 2, None) == {
        "Crab": ["Aiko"], "Crane": ["Benjiro"], "Lion": ["Chiyo"], "Shadowlands": ["Daichi"],
    }  # fmt: skip
