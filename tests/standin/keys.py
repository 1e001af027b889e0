"""Throwaway service-account keys, made at run time: no real key is ever committed."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

TEST_ACCOUNT = "sheets-engine-test@sheets-engine-test.iam.gserviceaccount.com"
GOOGLE_TOKEN_URI = "https://oauth2.googleapis.com/token"


@functools.cache
def _private_key_pem() -> str:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


def service_account_info(account: str = TEST_ACCOUNT, token_uri: str = GOOGLE_TOKEN_URI) -> dict[str, Any]:
    """A service-account key file's contents, with a fresh RSA key (one per process)."""
    project = account.split("@")[1].split(".")[0]
    return {
        "type": "service_account",
        "project_id": project,
        "private_key_id": "0" * 40,
        "private_key": _private_key_pem(),
        "client_email": account,
        "client_id": "100000000000000000000",
        "auth_uri": "https://accounts.google.com/o/oauth2/auth",
        "token_uri": token_uri,
        "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
        "client_x509_cert_url": f"https://www.googleapis.com/robot/v1/metadata/x509/{account.replace('@', '%40')}",
        "universe_domain": "googleapis.com",
    }


def write_key_file(folder: Path, account: str = TEST_ACCOUNT, token_uri: str = GOOGLE_TOKEN_URI) -> Path:
    """A key file in `folder` for `account` (token requests go to `token_uri`)."""
    path = Path(folder) / "service-account.json"
    path.write_text(json.dumps(service_account_info(account, token_uri), indent=2), encoding="utf-8")
    return path
