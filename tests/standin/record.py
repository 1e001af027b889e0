"""Re-record the project's cassettes (offline against the stand-in, or against real Google Sheets).

    python -m tests.standin.record                    # every cassette, against the stand-in
    python -m tests.standin.record --only conflict    # one of them
    python -m tests.standin.record --google --credentials key.json \\
        --spreadsheet KEY --private-spreadsheet OTHER_KEY      # against Google (see docs/google-sheets.md)

Recording against Google overwrites every tab of --spreadsheet: use a scratch spreadsheet shared
with the service account as Editor, never a game's. --private-spreadsheet must exist and NOT be
shared with it. Real keys, tokens and the signed assertion are replaced by the placeholders the
tests use before anything is written to disk.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sheets_engine.stores.gsheets import GoogleSheetsStore
from sheets_engine.stores.gsheets_http import RetryPolicy
from tests.standin.cassettes import SHEETS_ROOT, TOKEN_URL, UNRECORDED, cassette_path, make_vcr
from tests.standin.fake_sheets import FakeSheets
from tests.standin.keys import TEST_ACCOUNT, write_key_file
from tests.standin.scenarios import KEY, MISSING_KEY, PRIVATE_KEY, SCENARIOS, Scenario
from tests.standin.server import serve

NO_WAIT = RetryPolicy(sleep=lambda seconds: None)  # retries still counted and bounded, never slept


class StandInEnv:
    """Scenarios against the stand-in served on 127.0.0.1."""

    def __init__(self, fake: FakeSheets, root: str, tmp: Path) -> None:
        self.fake, self.root, self.tmp = fake, root, tmp
        self.key_file = write_key_file(tmp, token_uri=f"{root}/token")

    def store(self, key: str = KEY) -> GoogleSheetsStore:
        """A store talking to the stand-in."""
        return GoogleSheetsStore.open(f"gsheet:{key}", self.key_file, api_root=self.root, retry=NO_WAIT)

    def gm_edit(self, key: str, a1: str, value: Any) -> None:
        """Change the cell in the stand-in directly."""
        self.fake.put_values(key, a1, [[value]])

    def fail(self, status: int, endpoint: str, times: int = 1) -> None:
        """Inject the failure."""
        self.fake.fail(status, times, endpoint)


class GoogleEnv:
    """Scenarios against real Google Sheets."""

    def __init__(self, credentials: Path, keys: dict[str, str], tmp: Path) -> None:
        self.credentials, self.keys, self.tmp = credentials, keys, tmp
        # The GM's side channel gets its token now, so that none of its traffic is recorded.
        self.side = GoogleSheetsStore.open(f"gsheet:{keys[KEY]}", credentials)
        self.side.client.session.headers[UNRECORDED] = "1"
        self.side.exists()

    def store(self, key: str = KEY) -> GoogleSheetsStore:
        """A store talking to Google."""
        return GoogleSheetsStore.open(f"gsheet:{self.keys.get(key, key)}", self.credentials, retry=NO_WAIT)

    def gm_edit(self, key: str, a1: str, value: Any) -> None:
        """Edit the cell through a separate, unrecorded client, as a GM's browser would."""
        self.side.client.values_update(
            self.keys.get(key, key), a1, params={"valueInputOption": "RAW"}, body={"values": [[value]]}
        )

    def fail(self, status: int, endpoint: str, times: int = 1) -> None:
        """Google cannot be asked to fail."""
        raise RuntimeError("this scenario needs the stand-in")


def record_stand_in(scenario: Scenario, folder: Path | None = None) -> int:
    """Record one scenario against a fresh stand-in; returns the number of requests recorded."""
    fake = FakeSheets()
    with tempfile.TemporaryDirectory() as tmp, serve(fake) as root:
        env = StandInEnv(fake, root, Path(tmp))
        if scenario.key != MISSING_KEY:
            shared = [] if scenario.key == PRIVATE_KEY else [TEST_ACCOUNT]
            fake.add_spreadsheet(scenario.key, "Sengoku Jidai (stand-in)", editors=shared)
        if scenario.tabs is not None:
            env.store(scenario.key).create(scenario.tabs(), overwrite=True)
        if scenario.prepare is not None:
            scenario.prepare(fake)

        def canonical(uri: str) -> str:
            return uri.replace(f"{root}/token", TOKEN_URL).replace(root, SHEETS_ROOT)

        return _record(scenario, env, canonical, lambda text: text, folder)


def record_google(scenario: Scenario, credentials: Path, keys: dict[str, str]) -> int:
    """Record one scenario against Google, on the scratch spreadsheet (reset first)."""
    with tempfile.TemporaryDirectory() as folder:
        env = GoogleEnv(credentials, keys, Path(folder))
        if scenario.key == KEY:
            _reset(env.side)
            if scenario.tabs is not None:
                GoogleSheetsStore.open(f"gsheet:{keys[KEY]}", credentials).create(scenario.tabs(), overwrite=True)

        def placeholders(text: str) -> str:
            for ours, real in keys.items():
                text = text.replace(real, ours)
            return text

        return _record(scenario, env, placeholders, placeholders)


def _record(
    scenario: Scenario,
    env: Any,
    rewrite_uri: Callable[[str], str],
    rewrite_text: Callable[[str], str],
    folder: Path | None = None,
) -> int:
    path = cassette_path(scenario.name, scenario.gzipped)
    if folder is not None:
        path = folder / path.name
    path.unlink(missing_ok=True)
    recorder = make_vcr("all", rewrite_uri=rewrite_uri, rewrite_text=rewrite_text)
    with recorder.use_cassette(str(path)) as cassette:
        scenario.run(env)
    return len(cassette)


def _reset(side: GoogleSheetsStore) -> None:
    """Leave the scratch spreadsheet with one empty `Sheet1` (setup traffic: never recorded)."""
    sheets = side._fetch_sheets()
    requests: list[dict[str, Any]] = []
    if "Sheet1" not in sheets:
        requests.append({"addSheet": {"properties": {"title": "Sheet1"}}})
    else:
        requests.append({"updateCells": {"range": {"sheetId": sheets["Sheet1"]["sheetId"]}, "fields": "*"}})
    requests += [{"deleteSheet": {"sheetId": p["sheetId"]}} for t, p in sheets.items() if t != "Sheet1"]
    side.client.batch_update(side.key, {"requests": requests})


def main(argv: list[str] | None = None) -> int:
    """Record the cassettes named (all by default)."""
    parser = argparse.ArgumentParser(prog="python -m tests.standin.record", description=__doc__.split("\n")[0])
    parser.add_argument("--only", action="append", choices=sorted(SCENARIOS), help="record only this scenario")
    parser.add_argument("--google", action="store_true", help="record against Google Sheets instead of the stand-in")
    parser.add_argument("--credentials", type=Path, help="service-account key file (with --google)")
    parser.add_argument("--spreadsheet", help="key of a scratch spreadsheet shared with the account (with --google)")
    parser.add_argument("--private-spreadsheet", help="key of a spreadsheet NOT shared with it (with --google)")
    args = parser.parse_args(argv)
    if args.google and not (args.credentials and args.spreadsheet and args.private_spreadsheet):
        parser.error("--google needs --credentials, --spreadsheet and --private-spreadsheet")
    keys = {KEY: args.spreadsheet, PRIVATE_KEY: args.private_spreadsheet}
    for name in args.only or list(SCENARIOS):
        scenario = SCENARIOS[name]
        if args.google and scenario.stand_in_only:
            print(f"{name}: kept (Google cannot be made to fail on demand; recorded against the stand-in)")
            continue
        count = record_google(scenario, args.credentials, keys) if args.google else record_stand_in(scenario)
        print(f"{name}: {count} request(s) -> {cassette_path(name, scenario.gzipped)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
