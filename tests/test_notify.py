"""`sheets-engine notify`: every Notifications row posted once to its audience's Discord webhook.

Against a local stand-in of Discord's webhook endpoint (tests/standin/discord.py), never the network.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from python_calamine import CalamineWorkbook

from sheets_engine import app
from sheets_engine.discord import WebhookClient, split_message
from sheets_engine.notify import Webhooks, notify
from sheets_engine.stores.xlsx import WorkbookStore
from tests.gsheets_support import run_cli
from tests.standin.discord import FakeDiscord, write_webhooks

CLANS = ("Oda", "Takeda", "Uesugi", "Mori", "Imagawa")


@pytest.fixture
def campaign(tmp_path: Path) -> Path:
    """The demo after turn 1: 15 Notifications rows for public, gm and four clans."""
    path = tmp_path / "demo.xlsx"
    app.init(str(path), demo=True)
    app.resolve(str(path))
    return path


def webhooks_file(tmp_path: Path, fake: FakeDiscord, base: str, audiences: tuple[str, ...]) -> Path:
    """A webhooks file with one webhook per audience (ids 1, 2, ...)."""
    return write_webhooks(tmp_path / "webhooks.toml", fake, base, audiences)


AUDIENCES = ("public", "gm", *(f"clan:{c}" for c in CLANS))


def notifications(path: Path) -> list[list[Any]]:
    return CalamineWorkbook.from_path(str(path)).get_sheet_by_name("Notifications").to_python()[1:]


def no_wait() -> WebhookClient:
    waits: list[float] = []
    client = WebhookClient(sleep=waits.append)
    client.waits = waits  # type: ignore[attr-defined]
    return client


def test_notify_posts_each_row_once_to_the_webhook_of_its_audience(
    campaign: Path, tmp_path: Path, discord: tuple[FakeDiscord, str]
) -> None:
    fake, base = discord
    hooks = Webhooks.load(webhooks_file(tmp_path, fake, base, AUDIENCES))
    rows = notifications(campaign)
    report = notify(WorkbookStore(campaign), hooks, client=no_wait())
    assert len(report.posted) == len(rows) == 15 and report.unroutable == {}
    by_webhook = {n: AUDIENCES[int(n.split("/")[0]) - 1] for n in {p.webhook for p in fake.posted}}
    sent = sorted((by_webhook[p.webhook], p.content.split("\n", 1)[1]) for p in fake.posted)
    assert sent == sorted((row[1], row[3]) for row in rows)
    assert all(p.wait for p in fake.posted)  # ?wait=true: Discord returns the message id
    # the message ids are recorded in Delivered, after the time
    delivered = [row[4] for row in notifications(campaign)]
    ids = {p_id for cell in delivered for p_id in cell.split(": ", 1)[1].split()}
    assert len(ids) == 15 and all(cell.endswith(tuple(ids)) for cell in delivered)
    # a second notify posts nothing
    again = notify(WorkbookStore(campaign), hooks, client=no_wait())
    assert again.posted == [] and len(fake.posted) == 15


def test_a_channel_webhook_takes_its_rows_before_the_audience_webhook(
    campaign: Path, tmp_path: Path, discord: tuple[FakeDiscord, str]
) -> None:
    fake, base = discord
    hooks = Webhooks.load(webhooks_file(tmp_path, fake, base, ("public/graveyard", "public")))
    notify(WorkbookStore(campaign), hooks, client=no_wait())
    graveyard = [p.content for p in fake.posted if p.webhook == "1/token1"]
    assert graveyard == [
        "**Turn 1** · graveyard\nShibata Katsuie, Karo of the Oda clan, has died: fell in the battle at Totomi."
    ]
    assert [p.webhook for p in fake.posted].count("2/token2") == 1  # the world news


def test_rows_with_no_webhook_are_left_for_later_and_a_private_row_never_goes_to_the_clan(
    tmp_path: Path, discord: tuple[FakeDiscord, str]
) -> None:
    fake, base = discord
    path = tmp_path / "c.xlsx"
    app.init(str(path), demo=True)
    tabs = {"Notifications": [["Turn", "Audience", "Channel", "Message", "Delivered"]]}
    tabs["Notifications"] += [[2, "character:Oda Nobunaga", "private", "Your coup was found out.", None]]
    tabs["Notifications"] += [[2, "clan:Oda", "capital", "Oda has 1 unallocated tech point(s).", None]]
    _replace_tab(path, tabs)
    hooks = Webhooks.load(webhooks_file(tmp_path, fake, base, ("clan:Oda",)))
    report = notify(WorkbookStore(path), hooks, client=no_wait())
    assert report.posted == [3] and report.unroutable == {"character:Oda Nobunaga": [2]}
    assert notifications(path)[0][4] in (None, "")


def test_a_429_is_waited_out_for_its_retry_after(
    campaign: Path, tmp_path: Path, discord: tuple[FakeDiscord, str]
) -> None:
    fake, base = discord
    hooks = Webhooks.load(webhooks_file(tmp_path, fake, base, AUDIENCES))
    fake.rate_limit("1/token1", retry_after=1.25, times=2)
    client = no_wait()
    report = notify(WorkbookStore(campaign), hooks, client=client)
    assert client.waits == [1.25, 1.25]  # type: ignore[attr-defined]
    assert len(report.posted) == 15 and len(fake.posted) == 15


def test_a_message_of_5000_characters_arrives_as_three_messages(
    tmp_path: Path, discord: tuple[FakeDiscord, str]
) -> None:
    fake, base = discord
    path = tmp_path / "c.xlsx"
    app.init(str(path), demo=True)
    letter = " ".join(["word"] * 1000)[:4999] + "!"  # 5,000 characters
    _replace_tab(path, {"Notifications": [["Turn", "Audience", "Channel", "Message"], [3, "public", "world", letter]]})
    _add_delivered_header(path)
    hooks = Webhooks.load(webhooks_file(tmp_path, fake, base, ("public",)))
    report = notify(WorkbookStore(path), hooks, client=no_wait())
    assert report.posted == [2] and report.messages == 3
    assert [len(p.content) <= 2000 for p in fake.posted] == [True, True, True]
    rejoined = " ".join(p.content for p in fake.posted).removeprefix("**Turn 3** · world\n")
    assert rejoined == letter
    assert len(notifications(path)[0][4].split(": ", 1)[1].split()) == 3  # three message ids


def test_a_players_everyone_is_not_a_ping(tmp_path: Path, discord: tuple[FakeDiscord, str]) -> None:
    fake, base = discord
    path = tmp_path / "c.xlsx"
    app.init(str(path), demo=True)
    text = "Letter from Oda Nobunaga of Oda: @everyone <@123456789> bow to me"
    _replace_tab(
        path,
        {
            "Notifications": [
                ["Turn", "Audience", "Channel", "Message", "Delivered"],
                [1, "public", "world", text, None],
            ]
        },
    )
    hooks = Webhooks.load(webhooks_file(tmp_path, fake, base, ("public",)))
    notify(WorkbookStore(path), hooks, client=no_wait())
    (posted,) = fake.posted
    assert "@everyone" in posted.content
    assert (posted.mention_everyone, posted.user_pings) == (False, [])
    assert posted.body["allowed_mentions"] == {"parse": []}


def test_a_run_that_died_after_claiming_never_posts_twice(
    campaign: Path, tmp_path: Path, discord: tuple[FakeDiscord, str], monkeypatch: Any
) -> None:
    fake, base = discord
    hooks = Webhooks.load(webhooks_file(tmp_path, fake, base, AUDIENCES))

    class Killed(BaseException):
        pass

    client = no_wait()
    real_post = client.post
    sent = []

    def post_then_die(url: str, content: str, label: str) -> str:
        if len(sent) == 5:
            raise Killed  # the process dies here: five messages reached Discord, nothing recorded
        sent.append(real_post(url, content, label))
        return sent[-1]

    monkeypatch.setattr(client, "post", post_then_die)
    with pytest.raises(Killed):
        notify(WorkbookStore(campaign), hooks, client=client)
    assert len(fake.posted) == 5
    assert all(str(row[4]).startswith("sending ") for row in notifications(campaign))
    later = notify(WorkbookStore(campaign), hooks, client=no_wait())
    assert later.posted == [] and later.unconfirmed == list(range(2, 17)) and len(fake.posted) == 5
    resent = notify(WorkbookStore(campaign), hooks, client=no_wait(), resend_unconfirmed=True)
    assert len(resent.posted) == 15


def test_a_webhook_that_answers_404_is_reported_and_skipped(
    campaign: Path, tmp_path: Path, discord: tuple[FakeDiscord, str], capsys: Any, monkeypatch: Any
) -> None:
    fake, base = discord
    file = webhooks_file(tmp_path, fake, base, AUDIENCES)
    fake.webhooks.discard("2/token2")  # the gm webhook was deleted in Discord
    code, out, err = run_cli(["notify", str(campaign), "--webhooks", str(file), "--json"], capsys, monkeypatch)
    body = json.loads(out)
    assert code == 2 and (body["status"], body["webhooks_gone"]) == ("webhook_gone", ["gm"])
    assert body["rows_posted"] == 12  # the three gm rows wait
    assert f"Error: the gm webhook no longer exists (404): make a new one and update {file}" in err
    assert base not in out + err and "token" not in out + err  # a webhook URL is a secret
    undelivered = [row[1] for row in notifications(campaign) if not row[4]]
    assert undelivered == ["gm"] * 3


def test_a_webhooks_file_that_is_not_a_url_names_the_key_not_the_value(
    campaign: Path, tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    file = tmp_path / "hooks.toml"
    file.write_text('public = "discord.com/api/webhooks/1/secret-token"\n', encoding="utf-8")
    code, _, err = run_cli(["notify", str(campaign), "--webhooks", str(file)], capsys, monkeypatch)
    assert code == 2
    assert err.strip() == f"Error: the webhooks file {file}: 'public' must be a webhook URL in quotes (https://...)"


def test_split_message_cuts_at_spaces_within_the_limit() -> None:
    assert split_message("a" * 10, limit=4) == ["aaaa", "aaaa", "aa"]
    assert split_message("one two three four", limit=9) == ["one two", "three", "four"]
    assert split_message("") == [""]


def _replace_tab(path: Path, tabs: dict[str, list[list[Any]]]) -> None:
    from openpyxl import load_workbook

    book = load_workbook(path)
    for title, rows in tabs.items():
        sheet = book[title]
        sheet.delete_rows(1, sheet.max_row)
        for row in rows:
            sheet.append(row)
    book.save(path)


def _add_delivered_header(path: Path) -> None:
    from openpyxl import load_workbook

    book = load_workbook(path)
    book["Notifications"]["E1"] = "Delivered"
    book.save(path)
