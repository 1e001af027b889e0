"""Private reports: a clan's holds what it may know and nothing of another clan's; the GMs' holds everything."""

from __future__ import annotations

import html
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from sheets_engine import app
from sheets_engine.cli import cli
from sheets_engine.sengoku.report import content
from sheets_engine.stores.memory import MemoryStore
from sheets_engine.views import open_view, write_reports
from tests.support import tabs

NOW = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)
CLANS = ("Oda", "Imagawa", "Takeda", "Uesugi", "Mori")
FILES = {"Oda": "oda", "Imagawa": "imagawa", "Takeda": "takeda", "Uesugi": "uesugi", "Mori": "mori", "GMs": "gm"}


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], dict[str, dict]]:
    """The demo, turn 1 resolved, reported: (workbook, HTML by reader, JSON by reader)."""
    folder = tmp_path_factory.mktemp("reports")
    path = folder / "demo.xlsx"
    app.init(str(path), demo=True)
    app.resolve(str(path), now=NOW)
    result = CliRunner().invoke(cli, ["report", str(path), "--out", str(folder / "out"), "--json"])
    assert result.exit_code == 0, result.output
    body = json.loads(result.output)
    assert (body["status"], body["reports"]) == ("ok", len(FILES))
    assert body["files"] == {r: str(folder / "out" / f"{f}.html") for r, f in FILES.items()}
    pages = {r: (folder / "out" / f"{f}.html").read_text(encoding="utf-8") for r, f in FILES.items()}
    data = {r: json.loads((folder / "out" / f"{f}.json").read_text(encoding="utf-8")) for r, f in FILES.items()}
    return path, pages, data


def only(pages: dict[str, str], text: str) -> set[str]:
    """The readers whose report holds this sheet text (as the page shows it, escaped)."""
    return {reader for reader, page in pages.items() if html.escape(text) in page}


def test_a_clans_report_holds_its_own_treasury_and_tech_and_no_other_clans(reports: tuple) -> None:
    _, _, data = reports
    for clan in CLANS:
        assert [c["Clan"] for c in data[clan]["clans"]] == [clan]
    assert data["Oda"]["clans"] == [
        {"Clan": "Oda", "Capital": "Owari", "Treasury": 42, "Knowledge": 9, "Development": 3, "Expansion": 1,
         "Warfare": 2, "Piety": 0, "Learning": 1, "Tech Points": 0}
    ]  # fmt: skip
    assert [c["Clan"] for c in data["GMs"]["clans"]] == list(CLANS)
    assert {p["Province"] for p in data["Oda"]["provinces"]} == {
        "Owari", "Mino", "Ise", "Omi", "Yamashiro", "Yamato", "Settsu", "Mikawa",
    }  # fmt: skip
    mino = next(p for p in data["Oda"]["provinces"] if p["Province"] == "Mino")
    assert (mino["Buildings"], mino["Tax Stockpile"], mino["Tax Cap"], mino["Slots"]) == ("Fortress, Fields", 3, 3, 5)


def test_orders_and_their_treasury_figures_reach_only_their_clan_and_the_gms(reports: tuple) -> None:
    _, pages, data = reports
    assert only(pages, "Collected 11 Mon from Suruga (Tax Stockpile 4 + Mon Bonus 7); Imagawa treasury now 49") == {
        "Imagawa",
        "GMs",
    }
    assert only(pages, "Hired 1 Samurai into Mori Main Host for 7 Mon; Mori treasury now 20") == {"Mori", "GMs"}
    # The order of a character killed this turn stays his clan's (he lost his Clan when he died).
    assert only(pages, "Oda Vanguard marched from Mikawa to Totomi") == {"Oda", "GMs"}
    assert len(data["Oda"]["orders"]) == 5 and len(data["GMs"]["orders"]) == 21
    for clan in CLANS:
        for order in data[clan]["orders"]:
            assert only(pages, order["Result"]) == {clan, "GMs"}, order


def test_secret_declarations_reach_only_the_declaring_clan_and_the_gms(reports: tuple) -> None:
    _, pages, data = reports
    secret = "The Oda clan secretly declares Uesugi its ally (one-sided until Uesugi declares Oda too)"
    assert only(pages, secret) == {"Oda", "GMs"}
    assert only(pages, "Secret declaration: The Oda clan declares the Uesugi clan its ally.") == {"GMs"}
    declared = {clan: {(a["Clan"], a["Ally"]) for a in data[clan]["alliances"]} for clan in (*CLANS, "GMs")}
    assert ("Mori", "Oda") in declared["Mori"] and ("Mori", "Oda") in declared["GMs"]  # the demo's secret one
    assert all(("Mori", "Oda") not in declared[c] for c in ("Oda", "Imagawa", "Takeda", "Uesugi"))
    assert all(("Takeda", "Imagawa") in declared[c] for c in declared)  # a public declaration: everyone


def test_letters_reach_the_receiving_and_sending_clans_and_the_gms(reports: tuple) -> None:
    _, pages, _ = reports
    assert only(pages, "I do not fight my enemies with salt. The roads from Echigo stay open.") == {
        "Takeda",
        "Uesugi",
        "GMs",
    }
    assert only(pages, "The inland sea is calm this season. Our merchants would sail to Sunpu") == {
        "Imagawa",
        "Mori",
        "GMs",
    }
    assert only(pages, "=Surrender or perish") == {"Oda", "Imagawa", "GMs"}


def test_a_clan_sees_only_the_armies_in_or_next_to_its_provinces_or_where_its_people_stand(reports: tuple) -> None:
    _, pages, data = reports
    assert [a["Army"] for a in data["Oda"]["armies"]] == [
        "Oda Main Host", "Oda Vanguard", "Oda Kinai Guard", "Imagawa Main Host", "Takeda Cavalry Corps",
    ]  # fmt: skip
    for hidden in ("Imagawa Home Guard", "Takeda Main Host", "Uesugi Main Host", "Mori Main Host", "Mori Suo Guard"):
        assert hidden not in pages["Oda"]
        assert hidden in pages["GMs"]
    assert len(data["GMs"]["armies"]) == 12


def test_notifications_battles_and_what_is_public(reports: tuple) -> None:
    _, pages, data = reports
    public = "Battle at Totomi: Shibata Katsuie fell; Oda Vanguard retreated to Mikawa; Imagawa held Totomi."
    assert only(pages, public) == {*CLANS, "GMs"}
    assert only(pages, "Relations established between the Takeda and Mori clans") == {"Takeda", "Mori", "GMs"}
    assert [b["Province"] for b in data["Oda"]["battles"]] == ["Totomi"]
    assert data["Takeda"]["battles"] == [] and len(data["GMs"]["battles"]) == 1
    dice = next(n["Message"] for n in data["GMs"]["notifications"] if n["Message"].startswith("Dice "))
    assert only(pages, dice) == {"GMs"}


def test_a_report_is_one_self_contained_page_with_its_map(reports: tuple) -> None:
    _, pages, data = reports
    for reader, page in pages.items():
        assert page.startswith("<!DOCTYPE html>")
        assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
        assert page.count("<svg ") == 1 and page.count("</svg>") == 1  # the map inline: the page is one file
        stem = FILES[reader]
        assert f'<a href="{stem}-map.svg">Open the map full size</a>' in page
        assert "http://" not in page and "https://" not in page and "<link" not in page and "<script" not in page
        assert data[reader]["reader"] == reader and data[reader]["turn"] == 1


def test_sheet_text_is_escaped_in_the_page(tmp_path: Path) -> None:
    letter = {"Letter": "L9", "Turn": 0, "From": "Mori Motonari", "To Clan": "Oda",
              "Text": '<script>alert("mon")</script> & <b>bold</b>', "Status": "Pending"}  # fmt: skip
    store = MemoryStore(tabs(demo=True, letters=[letter]))
    app.resolve(store, now=NOW)
    written = write_reports(store, tmp_path)
    page = written["Oda"].read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(&quot;mon&quot;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in page
    assert "<script" not in page and "<b>bold" not in page


def test_an_earlier_turn_can_be_reported(reports: tuple) -> None:
    path, _, _ = reports
    before = content(open_view(str(path)), "Oda", turn=0)
    assert before["turn"] == 0 and before["orders"] == [] and before["battles"] == []


def test_a_clans_report_opens_with_its_turn_then_its_map_then_what_comes_next(reports: tuple) -> None:
    _, pages, data = reports
    oda = data["Oda"]
    assert oda["changes"][0] == {"What": "Clan Oda", "Change": "Knowledge 6 → 9; Treasury 32 → 42"}
    settsu = "Tax Stockpile 2 → 4; Manpower Stockpile 3 → 4; Building 2 (empty) → Treasury"
    assert {"What": "Province Settsu", "Change": settsu} in oda["changes"]
    assert oda["changes"][-1] == {
        "What": "Army Oda Vanguard",
        "Change": "Spear 6 → 0; Sword 5 → 0; Archer 2 → 0; Cavalry 1 → 0; Leader Shibata Katsuie → (empty)",
    }
    assert all(not c["What"].startswith(("Clan Imagawa", "Army Imagawa")) for c in oda["changes"])
    assert oda["next"]["turn"] == 2 and oda["next"]["deadline"] == "" and oda["next"]["samurai"] == 6
    assert oda["next"]["buildings"][0] == "Dojo (3 Mon)" and oda["next"]["too dear"] == []
    page = pages["Oda"]
    order = [
        page.index("<h2>Turn 1: your orders and their Results</h2>"),
        page.index("<h2>Battles fought</h2>"),
        page.index("<h2>Letters received</h2>"),
        page.index("<h2>What changed</h2>"),
        page.index("<h2>Map</h2>"),
        page.index("<h2>Next turn</h2>"),
        page.index("<summary>Clan (1)</summary>"),
    ]
    assert order == sorted(order)
    assert "<li>Totomi: Oda against Imagawa (strength 30 to 68, damage 14 to 2): " in page
    assert "<li>From Mori Motonari: One arrow breaks easily;" in page
    assert "<li>Stockpiles changed in 7 more of your provinces (see Provinces below).</li>" in page
    assert "<li>Or up to 6 Samurai hired at 7 Mon each.</li>" in page
    assert "<summary>Provinces (8)</summary>" in page  # short tables open, long ones folded
    assert "<details open><summary>Armies (5)</summary>" in page


def test_the_next_deadline_is_written_in_the_campaigns_time_zone(tmp_path: Path) -> None:
    store = MemoryStore(
        tabs({"deadline": "2026-11-30 20:00:00", "time_zone": "Asia/Tokyo", "turn_hours": 24}, demo=True)
    )
    app.resolve(store, now=datetime(2026, 11, 30, 12, 0, tzinfo=UTC))  # 21:00 in Tokyo: past the deadline
    oda = content(open_view(store), "Oda")
    assert oda["next"]["deadline"] == "2026-12-01 20:00:00 (Asia/Tokyo)"
    page = write_reports(store, tmp_path)["Oda"].read_text(encoding="utf-8")
    assert "<li>Orders for turn 2 are due by 2026-12-01 20:00:00 (Asia/Tokyo).</li>" in page


def test_the_gms_page_leads_with_the_campaigns_warnings_and_refused_orders(reports: tuple) -> None:
    _, pages, data = reports
    assert data["GMs"]["problems"] == []
    page = pages["GMs"]
    assert page.index("<h2>The turn&#x27;s problems</h2>") < page.index("<h2>Refused orders of turn 1</h2>")
    assert page.index("<h2>Refused orders of turn 1</h2>") < page.index("<h2>Map</h2>")
    assert "<li>The campaign has no warnings.</li>" in page
    assert page.count(">Rejected</td>") == 4 + 4  # the refused orders first, and in the Orders table


def test_sight_sees_what_visible_provinces_and_visible_armies_see(reports: tuple) -> None:
    from sheets_engine.sengoku.visibility import Sight, visible_armies, visible_provinces

    path, _, _ = reports
    state = open_view(str(path)).state
    sight = Sight(state)
    for clan in CLANS:
        assert sight.provinces(clan) == visible_provinces(state, clan)
        assert sight.armies(clan) == visible_armies(state, clan)
    assert sight.armies("Oda") == ["Oda Main Host", "Oda Vanguard", "Oda Kinai Guard", "Imagawa Main Host",
                                   "Takeda Cavalry Corps"]  # fmt: skip


def test_an_army_raised_this_turn_is_shown_as_new_with_what_it_is() -> None:
    from sheets_engine.sengoku.generate import generate

    store = MemoryStore(generate(300, seed=7))
    app.resolve(store, now=NOW, force=True)
    oda = content(open_view(store), "Oda")
    raised = [c for c in oda["changes"] if c["Change"].startswith("new: ")]
    assert raised == [
        {"What": "Army Oda Levies of Koshi", "Change": "new: Clan Oda; Province Koshi; Archer 2; Status Field"}
    ]
