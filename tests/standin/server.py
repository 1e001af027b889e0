"""Serve the Sheets stand-in on 127.0.0.1 in a thread, for recording cassettes and for benchmarks."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from tests.standin.fake_sheets import FakeSheets


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Say nothing: a test's output is its own."""


@contextmanager
def serve(fake: FakeSheets | Callable[..., Any]) -> Iterator[str]:
    """Run a stand-in (any WSGI app) on a free local port; yields its root URL (http://127.0.0.1:PORT)."""
    server: WSGIServer = make_server("127.0.0.1", 0, fake, handler_class=_Quiet)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
