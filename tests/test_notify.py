"""`sheets-engine notify`: every Notifications row posted once to its audience's Discord webhook.

Against a local stand-in of Discord's webhook endpoint (tests/standin/discord.py), never the network.
"""

from __future__ import annotations

import json
import shutil
import threading
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


@pytest.fixture(scope="module")
def resolved_demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo after turn 1, resolved once for the module (tests take a copy)."""
    path = tmp_path_factory.mktemp("notify") / "demo.xlsx"
    app.init(str(path), demo=True)
    app.resolve(str(path))
    return path


@pytest.fixture
def campaign(resolved_demo: Path, tmp_path: Path) -> Path:
    """The demo after turn 1: 15 Notifications rows for public, gm and four clans (each test its own copy)."""
    path = tmp_path / "demo.xlsx"
    shutil.copy(resolved_demo, path)
    return path


def webhooks_file(tmp_path: Path, fake: FakeDiscord, base: str, audiences: tuple[str, ...]) -> Path:
    """A webhooks file with one webhook per audience (ids 1, 2, ...)."""
    return write_webhooks(tmp_path / "webhooks.toml", fake, base, audiences)


AUDIENCES = ("public", "gm", *(f"clan:{c}" for c in CLANS))


def notifications(path: Path) -> list[list[Any]]:
    return CalamineWorkbook.from_path(str(path)).get_sheet_by_name("Notifications").to_python()[1:]


def no_wait() -> WebhookClient:
    waits: list[float] = []
    client = WebhookClient(sleep=waits.append)  # the stand-in's default bucket is never spent
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
    assert report.messages == len(fake.posted) == 7  # one message a webhook: the turn's rows together
    sent = sorted((AUDIENCES[int(p.webhook.split("/")[0]) - 1], line) for p in fake.posted for line in _lines(p))
    assert sent == sorted((row[1], row[3]) for row in rows)
    assert all(p.wait for p in fake.posted)  # ?wait=true: Discord returns the message id
    mori = next(p.content for p in fake.posted if p.webhook == "6/token6")
    assert [line for line in mori.split("\n") if line.startswith("**")] == [
        "**Turn 1** · diplomacy", "**Turn 1** · orders", "**Turn 1** · capital"
    ]  # fmt: skip
    # the message ids are recorded in Delivered, after the time: an audience's rows share theirs
    delivered = [row[4] for row in notifications(campaign)]
    ids = {row[1]: cell.split(" UTC: ", 1)[1] for row, cell in zip(rows, delivered, strict=True)}
    assert len(set(ids.values())) == 7 and all(i.isdigit() for i in ids.values())
    assert all(cell.endswith(ids[row[1]]) for row, cell in zip(rows, delivered, strict=True))
    # a second notify posts nothing
    again = notify(WorkbookStore(campaign), hooks, client=no_wait())
    assert again.posted == [] and len(fake.posted) == 7


def _lines(posted: Any) -> list[str]:
    """The rows' messages in one post: its lines but the headings (the turn and the channel)."""
    return [line for line in str(posted.content).split("\n") if not line.startswith("**")]


def test_rows_of_one_turn_for_one_webhook_go_in_one_message_up_to_2000_characters(
    tmp_path: Path, discord: tuple[FakeDiscord, str]
) -> None:
    fake, base = discord
    path = tmp_path / "c.xlsx"
    app.init(str(path), demo=True)
    news = [f"{n:03d} " + "x" * 96 for n in range(30)]  # 100 characters each
    rows = [[2, "public", "world", text, None] for text in news]
    rows += [[2, "public", "graveyard", "Oda Nobunaga has died.", None], [3, "public", "world", "Spring.", None]]
    rows += [[2, "public", "world", "y" * 1900, None], [2, "public", "world", "Last news.", None]]
    _replace_tab(path, {"Notifications": [["Turn", "Audience", "Channel", "Message", "Delivered"], *rows]})
    hooks = Webhooks.load(webhooks_file(tmp_path, fake, base, ("public",)))
    report = notify(WorkbookStore(path), hooks, client=no_wait())
    assert len(report.posted) == 34 and fake.refused == []
    # "**Turn 2** · world" and 19 lines of 101 characters is 1,937; a 20th would be 2,038
    assert [len(p.content) for p in fake.posted] == [1937, 18 + 11 * 101 + 1 + 22 + 1 + 22, 26, 18 + 1 + 1900 + 11]
    assert [_lines(p) for p in fake.posted] == [
        news[:19],
        [*news[19:], "Oda Nobunaga has died."],  # under its own heading
        ["Spring."],
        ["y" * 1900, "Last news."],  # too long to join the second; the next row joins it
    ]
    assert fake.posted[1].content.endswith(news[-1] + "\n**Turn 2** · graveyard\nOda Nobunaga has died.")
    assert fake.posted[2].content == "**Turn 3** · world\nSpring."


def test_a_dry_run_says_how_many_messages_it_would_send_and_sends_none(
    campaign: Path, tmp_path: Path, discord: tuple[FakeDiscord, str]
) -> None:
    fake, base = discord
    hooks = Webhooks.load(webhooks_file(tmp_path, fake, base, AUDIENCES))
    report = notify(WorkbookStore(campaign), hooks, client=no_wait(), dry_run=True)
    assert (len(report.posted), report.messages, fake.requests) == (15, 7, 0)
    assert all(not row[4] for row in notifications(campaign))


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
    assert len(report.posted) == 15 and len(fake.posted) == 7


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


def _die_after(client: WebhookClient, posts: int, monkeypatch: Any) -> type[BaseException]:
    """The client's process dies right after its `posts`-th message reached Discord (whichever thread
    posted it), before anything more is recorded; the exception it dies of."""

    class Killed(BaseException):
        pass

    real_post, lock, done = client.post, threading.Lock(), []

    def post_then_die(*args: Any, **kwargs: Any) -> Any:
        posted = real_post(*args, **kwargs)
        with lock:
            done.append(posted)
            last = len(done) == posts
        if last:
            raise Killed
        return posted

    monkeypatch.setattr(client, "post", post_then_die)
    return Killed


def test_notify_killed_after_its_second_post_leaves_the_batch_in_flight_unconfirmed_and_the_next_run_sends_the_rest(
    tmp_path: Path, discord: tuple[FakeDiscord, str], monkeypatch: Any
) -> None:
    """Ten clans' webhooks, a row each: at most eight messages, each to another webhook, are claimed,
    posted at once, and recorded with the next batch's claim. The process dying during the first batch
    leaves its eight rows `sending`, and no other (issue 25); the next run sends the other two."""
    fake, base = discord
    path = tmp_path / "c.xlsx"
    app.init(str(path), demo=True)
    clans = tuple(f"clan:C{n}" for n in range(10))
    rows = [[2, clan, "capital", f"News for {clan}.", None] for clan in clans]
    _replace_tab(path, {"Notifications": [["Turn", "Audience", "Channel", "Message", "Delivered"], *rows]})
    hooks = Webhooks.load(webhooks_file(tmp_path, fake, base, clans))
    client = no_wait()
    with pytest.raises(_die_after(client, 2, monkeypatch)):
        notify(WorkbookStore(path), hooks, client=client)
    cells = [str(row[4] or "") for row in notifications(path)]
    assert [c.startswith("sending ") for c in cells] == [True] * 8 + [False] * 2 and cells[8:] == ["", ""]
    assert len(fake.posted) == 8  # the batch's other posts were under way too
    later = notify(WorkbookStore(path), hooks, client=no_wait())
    assert later.unconfirmed == list(range(2, 10)) and later.posted == [10, 11]
    sent = sorted((clans[int(p.webhook.split("/")[0]) - 1], line) for p in fake.posted for line in _lines(p))
    assert sent == sorted((row[1], row[3]) for row in rows)  # every row once, nothing twice
    resent = notify(WorkbookStore(path), hooks, client=no_wait(), resend_unconfirmed=True)
    assert resent.posted == list(range(2, 10)) and len(fake.posted) == 18  # a GM's choice, after looking


def test_a_post_whose_answer_is_lost_keeps_its_rows_unconfirmed(
    campaign: Path, tmp_path: Path, discord: tuple[FakeDiscord, str]
) -> None:
    """The message may be in the channel: its rows are not given back to be posted again."""
    fake, base = discord
    hooks = Webhooks.load(webhooks_file(tmp_path, fake, base, AUDIENCES))
    fake.lose("1/token1")  # public's post: saved, and answered after the client stopped waiting
    report = notify(WorkbookStore(campaign), hooks, client=WebhookClient(sleep=lambda s: None, timeout=(2.0, 0.2)))
    public = [i for i, row in enumerate(notifications(campaign), start=2) if row[1] == "public"]
    assert public == [11, 13] and report.unconfirmed == public and "public" in report.failed
    assert len(report.posted) == 13  # the other webhooks' rows
    assert all(str(notifications(campaign)[n - 2][4]).startswith("sending ") for n in public)
    again = notify(WorkbookStore(campaign), hooks, client=no_wait())
    assert again.unconfirmed == public and again.posted == []
    lost = [notifications(campaign)[n - 2][3] for n in public]
    assert [sum(1 for p in fake.posted if text in _lines(p)) for text in lost] == [1, 1]  # once, never again


@pytest.mark.parametrize(("status", "released"), [(500, False), (502, False), (400, True), (403, True)])
def test_a_5xx_leaves_the_row_unconfirmed_and_a_refusal_gives_it_back(
    campaign: Path, tmp_path: Path, discord: tuple[FakeDiscord, str], status: int, released: bool
) -> None:
    fake, base = discord
    hooks = Webhooks.load(webhooks_file(tmp_path, fake, base, ("gm",)))
    fake.fail("1/token1", status)
    report = notify(WorkbookStore(campaign), hooks, client=no_wait())
    gm = [i for i, row in enumerate(notifications(campaign), start=2) if row[1] == "gm"]
    cells = [str(notifications(campaign)[n - 2][4] or "") for n in gm]
    assert gm == [2, 12, 16] and report.posted == []  # the gm rows of turn 1: one message
    if released:
        assert cells == ["", "", ""] and report.unconfirmed == []
    else:
        assert all(c.startswith("sending ") for c in cells) and report.unconfirmed == gm


def test_a_webhook_is_paced_to_discords_rate_limit_headers(tmp_path: Path, discord: tuple[FakeDiscord, str]) -> None:
    """Twelve rows to one webhook whose bucket is 5 requests per 2 s: the client waits for each reset
    the headers announce, and Discord never has to refuse a request."""
    from tests.standin.discord import DISCORDS

    fake, base = discord
    fake.bucket = DISCORDS
    path = tmp_path / "c.xlsx"
    app.init(str(path), demo=True)
    rows = [[n, "public", "world", f"News number {n}.", None] for n in range(1, 13)]
    _replace_tab(path, {"Notifications": [["Turn", "Audience", "Channel", "Message", "Delivered"], *rows]})
    hooks = Webhooks.load(webhooks_file(tmp_path, fake, base, ("public",)))
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        fake.clock.sleep(seconds)

    client = WebhookClient(sleep=sleep, clock=fake.clock.time)
    report = notify(WorkbookStore(path), hooks, client=client)
    assert len(report.posted) == 12 and fake.refused == []  # not one 429
    assert len(waits) == 2 and all(1.9 < w <= 2.0 for w in waits)  # after the 5th and the 10th post


def test_a_forum_channels_webhook_starts_a_thread_per_message_and_a_long_row_stays_in_its_thread(
    tmp_path: Path, discord: tuple[FakeDiscord, str]
) -> None:
    fake, base = discord
    path = tmp_path / "c.xlsx"
    app.init(str(path), demo=True)
    letter = " ".join(["word"] * 1000)[:4999] + "!"
    rows = [[3, "public", "world", letter, None], [3, "public/graveyard", "graveyard", "Oda Nobunaga has died.", None],
            [4, "public", "world", "Spring comes.", None], [4, "public", "world", "Rice grows.", None]]  # fmt: skip
    _replace_tab(path, {"Notifications": [["Turn", "Audience", "Channel", "Message", "Delivered"], *rows]})
    fake.add("7/forum", forum=True)
    fake.add("8/channel")
    file = tmp_path / "hooks.toml"
    file.write_text(
        f'public = {{ url = "{base}/7/forum", thread_name = "Turn {{turn}} news" }}\n'
        f'"public/graveyard" = {{ url = "{base}/8/channel" }}\n',
        encoding="utf-8",
    )
    report = notify(WorkbookStore(path), Webhooks.load(file), client=no_wait())
    assert report.posted == [2, 3, 4, 5] and report.messages == 5 and fake.refused == []
    forum = [p for p in fake.posted if p.webhook == "7/forum"]
    assert [p.body.get("thread_name") for p in forum] == ["Turn 3 news", None, None, "Turn 4 news"]
    assert forum[3].content == "**Turn 4** · world\nSpring comes.\nRice grows."  # turn 4's rows: one post
    assert len({p.channel_id for p in forum[:3]}) == 1 and forum[3].channel_id != forum[0].channel_id
    # an existing thread, by its id
    file.write_text(f'public = {{ url = "{base}/7/forum", thread_id = "{forum[0].channel_id}" }}\n', encoding="utf-8")
    _replace_tab(path, {"Notifications": [["Turn", "Audience", "Channel", "Message", "Delivered"],
                                          [5, "public", "world", "Summer.", None]]})  # fmt: skip
    assert notify(WorkbookStore(path), Webhooks.load(file), client=no_wait()).posted == [2]
    assert fake.posted[-1].thread_id == forum[0].channel_id


def test_a_forum_webhook_without_a_thread_is_refused_by_discord_and_its_rows_wait(
    campaign: Path, tmp_path: Path, discord: tuple[FakeDiscord, str]
) -> None:
    fake, base = discord
    hooks = Webhooks.load(webhooks_file(tmp_path, fake, base, ("gm",)))
    fake.forums.add("1/token1")
    report = notify(WorkbookStore(campaign), hooks, client=no_wait())
    assert report.posted == [] and "refused the message (400)" in report.failed["gm"]
    assert all(not row[4] for row in notifications(campaign))  # given back: the GM fixes the file, then it goes


@pytest.mark.parametrize(
    ("entry", "said"),
    [('gm = { url = "https://discord.com/api/webhooks/1/t", thread_id = "abc" }', "thread_id must be the thread"),
     ('gm = { url = "https://discord.com/api/webhooks/1/t", thread_id = "1", thread_name = "x" }', "both"),
     ('gm = { url = "https://discord.com/api/webhooks/1/t", channel = "x" }', "has channel: only url"),
     ('gm = { thread_name = "x" }', "must be a webhook URL")],
)  # fmt: skip
def test_a_webhooks_file_entry_with_a_bad_thread_names_the_key(tmp_path: Path, entry: str, said: str) -> None:
    from sheets_engine.notify import WebhooksFileError

    file = tmp_path / "hooks.toml"
    file.write_text(entry + "\n", encoding="utf-8")
    with pytest.raises(WebhooksFileError, match=said) as bad:
        Webhooks.load(file)
    assert "'gm'" in str(bad.value) and "discord.com" not in str(bad.value)


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


def test_notify_on_a_google_sheet_claims_and_records_row_by_row_through_the_guard(
    tmp_path: Path, discord: tuple[FakeDiscord, str]
) -> None:
    """Against the Sheets stand-in: one guarded write a batch of messages (the claim, with the last batch's
    record), and the Notifications tab read alone."""
    from sheets_engine.stores.gsheets import GoogleSheetsStore
    from sheets_engine.stores.gsheets_http import RetryPolicy
    from tests.gsheets_support import kinds
    from tests.standin.campaigns import demo_tabs
    from tests.standin.fake_sheets import FakeSheets
    from tests.standin.keys import TEST_ACCOUNT, write_key_file
    from tests.standin.server import serve

    fake, base = discord
    hooks = Webhooks.load(webhooks_file(tmp_path, fake, base, AUDIENCES))
    sheets = FakeSheets()
    key = "1NotifyCampaign0000000000000000000000000000"
    with serve(sheets) as root:
        key_file = write_key_file(tmp_path, token_uri=f"{root}/token")
        sheets.add_spreadsheet(key, "notify", editors=[TEST_ACCOUNT])

        def store() -> GoogleSheetsStore:
            return GoogleSheetsStore.open(
                f"gsheet:{key}", key_file, api_root=root, retry=RetryPolicy(sleep=lambda s: None)
            )

        store().create(demo_tabs(), overwrite=True)
        app.resolve(store(), force=True)
        sheets.served.clear()
        report = notify(store(), hooks, client=no_wait())
        made = kinds(sheets.served)
    assert len(report.posted) == 15
    # 7 messages (one a webhook) in one batch: its claim, then its record
    assert made[:3] == ["token", "metadata", "read"] and made[3:] == ["guard", "write"] * 2
    delivered = [row[4] for row in sheets.values(key, "Notifications")[1:]]
    assert len(delivered) == 15 and all(" UTC: " in cell for cell in delivered)
