"""Clan War's player loop end to end, through the CLI as cron and the GM run it: init --demo, form sync
(through the Forms API stand-in), the players' Form responses (one sent from another player's email, one
after the deadline), check (which copies them first), resolve (paused for the battles, the Form closed and
reopened), a cron resolve during the pause, the GM's Battle Results, resolve, report, map and remind
(through the Discord stand-in). Never the network."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import openpyxl

from sheets_engine.stores.gforms import FORMS_ROOT_ENV
from tests.gsheets_support import run_cli
from tests.standin.discord import FakeDiscord, write_webhooks
from tests.standin.fake_forms import FakeForms, clan_war_form, serve_forms
from tests.standin.keys import write_key_file
from tests.test_clan_war_campaign import cells, column, fill_results

FORM = "1ClanWarLoop000000000000000000000000000000000"
FACTIONS = ("Crab", "Crane", "Lion", "Shadowlands")
RESPONSES = [  # (Timestamp, Email Address, Faction, Order, Item, Count, Target, Province, Mover, To), Tokyo time
    ("2026-11-28 10:00:00", "crab@example.com", "Crab", "buy", "Hida Ashigaru Spearmen", "5", "Crab Reserve", "Hida",
     "", ""),
    ("2026-11-28 11:30:00", "crane@example.com", "Crab", "stockpile", "Yari", "5", "", "", "", ""),  # not Crab's email
    ("2026-11-28 20:01:00", "junzo@example.com", "Shadowlands", "primary move", "", "", "", "", "Ogre Band", "Kaiu"),
]  # fmt: skip


def set_game(path: Path, values: dict[str, Any]) -> None:
    book = openpyxl.load_workbook(path)
    sheet = book["Game"]
    for row in sheet.iter_rows(min_row=2):
        if row[0].value in values:
            row[1].value = values[row[0].value]
    book.save(path)


def send_responses(path: Path) -> None:
    """What the linked Form writes in its tab as the players answer."""
    book = openpyxl.load_workbook(path)
    sheet = book["Form Responses 1"]
    header = [c.value for c in sheet[1]]
    names = ("Timestamp", "Email Address", "Faction", "Order", "Item", "Count", "Target", "Province", "Mover", "To")
    for response in RESPONSES:
        answers = dict(zip(names, response, strict=True))
        sheet.append([answers.get(h, "") for h in header])
    book.save(path)


def test_clan_war_player_loop(tmp_path: Path, capsys: Any, monkeypatch: Any, discord: tuple[FakeDiscord, str]) -> None:
    def cli(*args: str) -> tuple[int, str, str]:
        return run_cli(list(args), capsys, monkeypatch)

    def valid() -> list[str]:
        code, out, err = cli("validate", str(path), "--json")
        assert code == 0, out + err
        return [p["expected"] for p in json.loads(out)["problems"]]

    path, out_dir = tmp_path / "cw.xlsx", tmp_path / "reports"
    assert cli("init", str(path), "--ruleset", "clan-war", "--demo")[0] == 0
    assert "Form Responses 1" in openpyxl.load_workbook(path).sheetnames
    set_game(path, {"deadline": "2026-11-28 20:00:00", "time_zone": "Asia/Tokyo"})
    assert valid() == []

    fake = FakeForms()
    fake.add(clan_war_form(FORM, "1SomeSheet"))
    with serve_forms(fake) as root:
        key_file = write_key_file(tmp_path, token_uri=f"{root}/token")
        monkeypatch.setenv(FORMS_ROOT_ENV, root)
        code, out, err = cli("--credentials", str(key_file), "form", "sync", str(path), "--form", FORM, "--json")
        assert code == 0, err
        assert json.loads(out)["options"] == {
            "faction": 4, "order": 17, "item": 67, "province": 47, "mover": 21, "to": 47,
        }  # fmt: skip
        assert "Warning: the campaign is a workbook" in err
        assert valid() == []  # the Form's keys in the Game tab are the campaign's own

        send_responses(path)
        # check: the responses sent by the deadline are copied first
        code, out, err = cli("check", str(path), "--json")
        assert code == 0, err
        checked = json.loads(out)
        assert (checked["form_responses_copied"], checked["orders_checked"]) == (
            2,
            26,
        )  # the refused one copied Rejected
        purchases = cells(path)["Purchases"]
        copied = [dict(zip(purchases[0], row, strict=False)) for row in purchases[1:] if len(row) > 11 and row[11]]
        assert [(r["Faction"], r["Action"], r["Email"], r["Status"]) for r in copied] == [
            ("Crab", "buy", "crab@example.com", "Pending"),
            ("Crab", "stockpile", "crane@example.com", "Rejected"),
        ]
        assert copied[1]["Result"] == (
            "refused: sent from crane@example.com, not from the email of the Crab faction's player (Aiko)"
        )
        assert copied[0]["Result"].startswith("Check: valid now: bought 5 models of Hida Ashigaru Spearmen")
        assert valid() == []

        # resolve after the deadline (21:00 in Tokyo): the Form closed while it reads, reopened after
        code, out, err = cli("--credentials", str(key_file), "resolve", str(path), "--now", "2026-11-28 21:00",
                             "--json")  # fmt: skip
        assert code == 0, err
        paused = json.loads(out)
        assert paused["headline"] == "Turn 1 paused: waiting for the Battle Results of 2 battles: Kakita, Shiro Hiruma."
        assert paused["form"] == {"form_id": FORM, "closed": True, "reopened": True}
        assert paused["form_responses_waiting_for_a_later_turn"] == 1
        assert len(valid()) == 2  # the two battles waiting for their results
        moves = cells(path)["Moves"]
        assert all(row[3] != "Ogre Band" for row in moves[1:])  # the late move waits in the Form's tab
        purchases = cells(path)["Purchases"]
        assert sum(1 for row in purchases[1:] if len(row) > 12 and row[12]) == 2  # copied by check, not again

        code, out, err = cli("resolve", str(path), "--now", "2026-11-28 22:00", "--json")  # cron, during the pause
        assert (code, json.loads(out)["status"]) == (0, "nothing_to_do")

        fill_results(path)
        assert valid() == []
        code, out, err = cli("--credentials", str(key_file), "resolve", str(path), "--now", "2026-11-28 23:00",
                             "--json")  # fmt: skip
        assert code == 0, err
        assert json.loads(out)["headline"] == "Turn 1 resolved (2 battles applied)"
    assert valid() == [
        "a living personality of Crane: Doji Hoturi is Dead, so the faction names a new Daimyo",
    ]
    after = cells(path)
    # the demo's koku, less the Crab's 40 for its Form purchase; nothing for the impostor's Yari
    assert column(after["Factions"], "Koku") == {"Crab": 8185, "Crane": 8104, "Lion": 8297, "Shadowlands": 8300}
    assert column(after["Units"], "Province", "Models")["Crab Reserve"] == ("Hida", 5)

    # report: a page a faction; the Crab's shows its orders with their Results, and not Lion's
    code, out, err = cli("report", str(path), "--out", str(out_dir), "--json")
    assert code == 0, err
    assert sorted(p.name for p in out_dir.iterdir()) == [
        "crab.html", "crab.json", "crane.html", "crane.json", "gm.html", "gm.json", "lion.html", "lion.json",
        "shadowlands.html", "shadowlands.json",
    ]  # fmt: skip
    crab = json.loads((out_dir / "crab.json").read_text(encoding="utf-8"))
    assert crab["turn"] == 1 and {o["Faction"] for o in crab["orders"]} == {"Crab"}
    refused = [o for o in crab["orders"] if o["Status"] == "Rejected" and o["Submitted"]]
    assert [o["Result"] for o in refused] == [
        "refused: sent from crane@example.com, not from the email of the Crab faction's player (Aiko)"
    ]
    assert [b["Province"] for b in crab["battles"]] == ["Shiro Hiruma"]
    assert json.loads((out_dir / "gm.json").read_text(encoding="utf-8"))["problems"][0]["Column"] == "Daimyo"

    for name, extra in (("map.png", ()), ("crab.png", ("--clan", "Crab"))):
        code, out, err = cli("map", str(path), "--out", str(tmp_path / name), *extra)
        assert code == 0, err
    whole, crabs = (tmp_path / "map.png").read_bytes(), (tmp_path / "crab.png").read_bytes()
    assert whole.startswith(b"\x89PNG") and crabs.startswith(b"\x89PNG") and whole != crabs

    # remind, five hours before turn 2's deadline: the late move is the Shadowlands' order for turn 2
    hooks = write_webhooks(tmp_path / "hooks.toml", *discord, tuple(f"faction:{f}" for f in FACTIONS))
    code, out, err = cli("remind", str(path), "--webhooks", str(hooks), "--before", "6", "--now", "2026-12-05 15:00")
    assert code == 0, err
    assert out.strip() == "Reminded 3 factions of 3 players without an order for turn 2."
    fake_discord, _ = discord
    posted = {FACTIONS[int(p.webhook.split("/")[0]) - 1]: p.content for p in fake_discord.posted}
    assert posted == {
        faction: "**Turn 2** · orders\nThe deadline is 2026-12-05 20:00:00 (Asia/Tokyo), in 5 h 00 min. "
        f"No order yet from the {faction} faction ({player})."
        for faction, player in (("Crab", "Aiko"), ("Crane", "Benjiro"), ("Lion", "Chiyo"))
    }
    assert cli("remind", str(path), "--webhooks", str(hooks), "--before", "6", "--now", "2026-12-05 16:00")[1] == (
        "Nothing to do: the factions were reminded for turn 2 already.\n"
    )
