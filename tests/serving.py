"""Serves a stdlib HTTP server from a daemon thread for the length of a block (the test servers' shared loop)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from socketserver import BaseServer


@contextmanager
def serving(httpd: BaseServer, poll_interval: float = 0.02) -> Iterator[None]:
    """Runs `httpd.serve_forever` on a daemon thread; on leaving, shuts it down and closes its socket."""
    thread = threading.Thread(target=httpd.serve_forever, args=(poll_interval,), daemon=True)
    thread.start()
    try:
        yield
    finally:
        httpd.shutdown()
        httpd.server_close()
