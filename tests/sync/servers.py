"""Real WebDAV and S3-compatible servers on 127.0.0.1 for sync tests: WsgiDAV on cheroot, and moto's server mode."""

from __future__ import annotations

import socket
import threading
from pathlib import Path
from types import TracebackType
from typing import Any

WEBDAV_USER, WEBDAV_PASSWORD = "alice", "webdav-pass-3141"
S3_KEY, S3_SECRET = "AKIASYNCTEST0000", "s3-secret-2718"


class WebDavServer:
    """WsgiDAV serving a folder at http://127.0.0.1:PORT/dav/ with one user (basic authentication)."""

    def __init__(self, root: Path) -> None:
        from cheroot import wsgi
        from wsgidav.wsgidav_app import WsgiDAVApp

        root.mkdir(parents=True, exist_ok=True)
        config: dict[str, Any] = {
            "host": "127.0.0.1", "port": 0,
            "provider_mapping": {"/dav": str(root)},
            "simple_dc": {"user_mapping": {"*": {WEBDAV_USER: {"password": WEBDAV_PASSWORD}}}},
            "http_authenticator": {"accept_basic": True, "accept_digest": False, "default_to_digest": False},
            "verbose": 0, "logging": {"enable": False}, "dir_browser": {"enable": False},
            "lock_storage": True,
        }
        self._server = wsgi.Server(("127.0.0.1", 0), WsgiDAVApp(config))
        self._thread: threading.Thread | None = None

    def __enter__(self) -> WebDavServer:
        self._server.prepare()
        self._thread = threading.Thread(target=self._server.serve, daemon=True)
        self._thread.start()
        return self

    @property
    def url(self) -> str:
        host, port = self._server.bind_addr[:2]
        return f"http://{host}:{port}/dav/"

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._server.stop()
        if self._thread is not None:
            self._thread.join(timeout=10)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class S3Server:
    """moto's S3-compatible server on 127.0.0.1 with one bucket."""

    def __init__(self, bucket: str = "palimpsest-sync") -> None:
        from moto.server import ThreadedMotoServer

        self.port = _free_port()
        self.bucket = bucket
        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> S3Server:
        import boto3

        self._server.start()
        import httpx2

        httpx2.post(self.endpoint + "/moto-api/reset")  # moto's state is the process's: start from nothing
        client = boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id=S3_KEY,
                              aws_secret_access_key=S3_SECRET, region_name="us-east-1")
        client.create_bucket(Bucket=self.bucket)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._server.stop()
