"""The project's vcrpy cassettes: where they live, how requests match, what is scrubbed.

One configuration serves recording (`tests.standin.record`) and replay (the tests):
- replay is `record_mode="none"`: a request with no recorded match fails the test, and `replay`
  fails it too if a recorded request was never made;
- requests match on method and URL, and a read of cells (getByDataFilter) also on the ranges in its
  body (for the guard's re-read, the cells the engine is about to overwrite, and each written tab's
  header row and column A); the write's body is not matched, since it carries the run's id and clock;
- the access token, the signed JWT assertion and the token in Google's reply are replaced by
  placeholders, and very large write bodies by their size and hash (the body is never replayed);
- cassettes of large campaigns are gzipped (`.json.gz`).
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CASSETTES = Path(__file__).resolve().parents[2] / "cassettes"
TOKEN_URL = "https://oauth2.googleapis.com/token"
SHEETS_ROOT = "https://sheets.googleapis.com"
READ_ENDPOINT = ":getByDataFilter"
ACCESS_TOKEN = "<ACCESS_TOKEN>"
UNRECORDED = "X-Sheets-Engine-Unrecorded"  # requests carrying this header are made but never recorded
MAX_KEPT_BODY = 32_000  # bodies above this many bytes are kept as size and hash only (never a read's: it is matched)
RERECORD = "python -m tests.standin.record"


def cassette_path(name: str, gzipped: bool = False) -> Path:
    """The file of a cassette."""
    return CASSETTES / (f"{name}.json.gz" if gzipped else f"{name}.json")


class GzipAwarePersister:
    """vcrpy's filesystem persister, reading and writing `.gz` cassettes compressed."""

    @classmethod
    def load_cassette(cls, cassette_path: str | Path, serializer: Any) -> Any:
        """The cassette's interactions (vcrpy's persister interface)."""
        from vcr.persisters.filesystem import CassetteNotFoundError
        from vcr.serialize import deserialize

        path = Path(cassette_path)
        if not path.is_file():
            raise CassetteNotFoundError()
        data = gzip.decompress(path.read_bytes()).decode() if path.suffix == ".gz" else path.read_text()
        return deserialize(data, serializer)

    @staticmethod
    def save_cassette(cassette_path: str | Path, cassette_dict: Any, serializer: Any) -> None:
        """Write the cassette (vcrpy's persister interface)."""
        from vcr.serialize import serialize

        path = Path(cassette_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        data = serialize(cassette_dict, serializer)
        if path.suffix == ".gz":
            path.write_bytes(gzip.compress(data.encode(), mtime=0))
        else:
            path.write_text(data)


def read_body(r1: Any, r2: Any) -> None:
    """vcrpy matcher: reads of cells match only if they ask for the same ranges."""
    if READ_ENDPOINT in r1.uri and READ_ENDPOINT in r2.uri:
        first, second = json.loads(r1.body or b"{}"), json.loads(r2.body or b"{}")
        assert first == second, "a read asked for other cells (the engine now writes other cells)"


def scrub_request(rewrite: Callable[[str], str] = lambda uri: uri) -> Callable[[Any], Any]:
    """The before_record_request hook: canonical URLs, no secrets, no huge bodies, no setup traffic."""

    def scrub(request: Any) -> Any:
        if UNRECORDED in request.headers:
            return None
        request.uri = rewrite(request.uri)
        if request.uri == TOKEN_URL:
            request.body = b"grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=%3CJWT%3E"
        elif request.body and len(request.body) > MAX_KEPT_BODY and READ_ENDPOINT not in request.uri:
            digest = hashlib.sha256(request.body).hexdigest()
            request.body = f"<{len(request.body)} bytes, sha256 {digest}: not kept, not matched>".encode()
        return request

    return scrub


def scrub_response(rewrite: Callable[[str], str] = lambda text: text) -> Callable[[dict[str, Any]], Any]:
    """The before_record_response hook: no access token, no real spreadsheet keys."""

    def scrub(response: dict[str, Any]) -> dict[str, Any]:
        body = response["body"]["string"]
        text = body.decode() if isinstance(body, bytes) else body
        if '"access_token"' in text:
            reply = json.loads(text)
            reply["access_token"] = ACCESS_TOKEN
            text = json.dumps(reply)
        response["body"]["string"] = rewrite(text).encode()
        for name in ("Content-Length", "content-length"):
            response["headers"].pop(name, None)
        return response

    return scrub


def make_vcr(record_mode: str = "none", rewrite_uri: Callable[[str], str] | None = None, rewrite_text: Any = None):
    """The VCR every cassette is recorded and replayed with."""
    import vcr

    recorder = vcr.VCR(
        serializer="json",
        record_mode=record_mode,
        match_on=["method", "uri", "read_body"],
        filter_headers=[("authorization", ACCESS_TOKEN)],
        before_record_request=scrub_request(rewrite_uri or (lambda uri: uri)),
        before_record_response=scrub_response(rewrite_text or (lambda text: text)),
        decode_compressed_response=True,
    )
    recorder.register_matcher("read_body", read_body)
    recorder.register_persister(GzipAwarePersister)
    return recorder


@contextmanager
def replay(name: str, gzipped: bool = False) -> Iterator[Any]:
    """Replay a cassette: every request must be recorded, and every recorded request made."""
    path = cassette_path(name, gzipped)
    if not path.is_file():
        raise AssertionError(f"no cassette {path}: record it with {RERECORD} --only {name}")
    from vcr.errors import CannotOverwriteExistingCassetteException

    try:
        with make_vcr().use_cassette(str(path), allow_playback_repeats=False) as cassette:
            yield cassette
    except CannotOverwriteExistingCassetteException as error:
        raise AssertionError(
            f"a request not recorded in {path.name} (if the engine changed on purpose, re-record with "
            f"{RERECORD} --only {name}): {error}"
        ) from error
    if not cassette.all_played:
        unplayed = len(cassette) - len(cassette.play_counts)
        raise AssertionError(
            f"{unplayed} request(s) recorded in {path.name} were never made; if the engine changed on "
            f"purpose, re-record with {RERECORD} --only {name}"
        )
