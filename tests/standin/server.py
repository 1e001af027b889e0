"""Serve a stand-in (the Sheets, Forms or Discord one) on 127.0.0.1 in a thread, for recording
cassettes, for tests over real HTTP and for benchmarks."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Say nothing: a test's output is its own."""


class _QuietServer(WSGIServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that gave up waiting (a test of a lost answer) closed its socket: nothing to report."""


class _ThreadedServer(ThreadingMixIn, _QuietServer):
    daemon_threads = True


@contextmanager
def serve(fake: Callable[..., Any], threaded: bool = False) -> Iterator[str]:
    """Run a stand-in (any WSGI app) on a free local port; yields its root URL (http://127.0.0.1:PORT).

    One request at a time, in order: a request the stand-in answers late holds up the next, as a
    request Google is still processing comes before a read that follows it. `threaded` answers each in
    its own thread (Discord's webhooks are each their own: one answering late holds up no other)."""
    kind = _ThreadedServer if threaded else _QuietServer
    server: WSGIServer = make_server("127.0.0.1", 0, fake, server_class=kind, handler_class=_Quiet)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
