"""Which spreadsheet and whose key: SOURCE parsed (a URL or `gsheet:KEY`) and the service account's key file read.

Errors say what is wrong and what to do next; none of them quotes a key file's contents.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from sheets_engine.stores.base import StoreError

# Spreadsheets, and the Forms a GM shares (form sync, closing the Form at the deadline): no Drive access.
SCOPES = ("https://www.googleapis.com/auth/spreadsheets", "https://www.googleapis.com/auth/forms.body")
PREFIX = "gsheet:"
CREDENTIALS_ENV = "GOOGLE_APPLICATION_CREDENTIALS"
# Named as a user finds it: a wheel install has no docs folder, the repository and its site do.
DOCS = "the Google Sheets set-up guide (docs/google-sheets.md in the sheets-engine repository)"
_URL = re.compile(r"^https?://docs\.google\.com/spreadsheets/(?:u/\d+/)?d/([A-Za-z0-9_-]+)")
_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def is_google_source(source: str) -> bool:
    """True for `gsheet:KEY` and Google Sheets URLs."""
    return source.startswith(PREFIX) or _URL.match(source) is not None


def spreadsheet_key(source: str) -> str:
    """The spreadsheet key in a `gsheet:KEY` or a spreadsheet URL."""
    match = _URL.match(source)
    key = match.group(1) if match else source.removeprefix(PREFIX).strip()
    if not _KEY.match(key):
        raise StoreError(
            f"{source}: expected gsheet:KEY or https://docs.google.com/spreadsheets/d/KEY/edit "
            "(KEY is the long id in the spreadsheet's URL)"
        )
    return key


def load_credentials(path: str | os.PathLike[str] | None = None) -> Any:
    """The service-account credentials in a key file (`path`, else $GOOGLE_APPLICATION_CREDENTIALS).

    Errors say what is wrong and what to do; they never quote the file's contents.
    """
    from google.oauth2 import service_account

    where = path or os.environ.get(CREDENTIALS_ENV)
    if not where:
        raise StoreError(
            f"No Google credentials: pass --credentials KEY.json or set {CREDENTIALS_ENV} to the service "
            f"account's key file (how to make one: {DOCS})"
        )
    file = Path(where).expanduser()
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise StoreError(
            f"The credentials file {file} does not exist. Download a JSON key for the service account "
            f"(Google Cloud console, IAM > Service accounts > Keys) and point --credentials at it; see {DOCS}"
        ) from None
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or type(error).__name__
        raise StoreError(
            f"Cannot read the credentials file {file} ({reason}). Check the path and that this user may read it."
        ) from None
    try:
        info = json.loads(text)
    except ValueError:
        info = None
    if not isinstance(info, dict) or info.get("type") != "service_account":
        raise StoreError(
            f'{file} is not a service-account key file (a JSON file with "type": "service_account", '
            f'"client_email" and "private_key"). OAuth client files do not work for cron jobs; see {DOCS}'
        )
    missing = [name for name in ("client_email", "private_key", "token_uri") if not info.get(name)]
    if missing:
        raise StoreError(f"The key file {file} has no {', '.join(missing)}: download a new key for the service account")
    try:
        return service_account.Credentials.from_service_account_info(info, scopes=list(SCOPES))
    except Exception:  # whatever the parser says may quote the key: say only where the file is
        raise StoreError(
            f"The private key in {file} cannot be read (truncated or edited?). Create a new key for "
            f"{info.get('client_email')} and download it again."
        ) from None
