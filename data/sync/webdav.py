"""A WebDAV remote (Nextcloud, ownCloud, any WebDAV server): PROPFIND to list, GET, and PUT aside then MOVE with
Overwrite: F, so a file appears whole and never replaces another."""

from __future__ import annotations

import uuid
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from urllib.parse import quote, unquote, urlsplit

import httpx2 as httpx

from domain.sync.errors import RemoteError, RemoteMissing

TIMEOUT_S = 60.0
_DAV = "{DAV:}"
_PROPFIND = (b'<?xml version="1.0" encoding="utf-8"?><d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/>'
             b"</d:prop></d:propfind>")
TMP_SUFFIX = ".part"


class WebDavRemote:
    """Files under a WebDAV collection URL (basic authentication when a user is given)."""

    def __init__(self, url: str, user: str | None, password: str | None, timeout: float = TIMEOUT_S) -> None:
        self.url = url if url.endswith("/") else url + "/"
        self._base_path = unquote(urlsplit(self.url).path)
        auth = httpx.BasicAuth(user, password or "") if user else None
        self._http = httpx.Client(auth=auth, timeout=timeout, follow_redirects=False)
        self._made: set[str] = set()

    def describe(self) -> str:
        return f"WebDAV {self.url}"

    def _href(self, name: str) -> str:
        return self.url + quote(name)

    def _send(self, method: str, name: str, **kwargs: object) -> httpx.Response:
        try:
            response = self._http.request(method, self._href(name), **kwargs)  # type: ignore[arg-type]
        except httpx.HTTPError as exc:
            raise RemoteError(f"The WebDAV server {self.url} cannot be reached ({exc}).") from exc
        if response.status_code in (401, 403):
            raise RemoteError(f"The WebDAV server {self.url} refused the user or password "
                              f"({response.status_code}). Set sync up again with the right ones.")
        return response

    def list(self, prefix: str) -> Sequence[str]:
        names: list[str] = []
        todo = [prefix]
        while todo:
            folder = todo.pop()
            response = self._send("PROPFIND", folder, content=_PROPFIND, headers={"Depth": "1"})
            if response.status_code == 404:
                continue
            if response.status_code != 207:
                raise RemoteError(f"The WebDAV server answered {response.status_code} to listing {folder}.")
            for href, is_folder in _entries(response.content):
                path = unquote(urlsplit(href).path)
                if not path.startswith(self._base_path):
                    continue
                name = path[len(self._base_path):]
                if is_folder:
                    name = name.rstrip("/") + "/"
                    if name != folder and name.startswith(folder) and name != "/":
                        todo.append(name)
                elif not name.endswith(TMP_SUFFIX) and name.startswith(prefix):
                    names.append(name)
        return sorted(names)

    def get(self, name: str) -> bytes:
        response = self._send("GET", name)
        if response.status_code == 404:
            raise RemoteMissing(f"The WebDAV server has no {name}.")
        if response.status_code != 200:
            raise RemoteError(f"The WebDAV server answered {response.status_code} to reading {name}.")
        return response.content

    def delete(self, name: str) -> None:
        response = self._send("DELETE", name)
        if response.status_code not in (200, 204, 404):
            raise RemoteError(f"The WebDAV server answered {response.status_code} to deleting {name}.")

    def sweep(self, folder: str) -> int:
        response = self._send("PROPFIND", folder, content=_PROPFIND, headers={"Depth": "1"})
        if response.status_code == 404:
            return 0
        if response.status_code != 207:
            raise RemoteError(f"The WebDAV server answered {response.status_code} to listing {folder}.")
        names = [unquote(urlsplit(href).path)[len(self._base_path):] for href, is_folder in _entries(response.content)
                 if not is_folder and href.endswith(TMP_SUFFIX)]
        mine = [name for name in names if name.startswith(folder)]
        for name in mine:
            self.delete(name)
        return len(mine)

    def put(self, name: str, data: bytes, scratch: str | None = None) -> bool:
        folder = name.rsplit("/", 1)[0] + "/" if "/" in name else ""
        self._make_folders(folder)
        if scratch is not None and scratch != folder:
            self._make_folders(scratch)
        tmp = f"{folder if scratch is None else scratch}.{uuid.uuid4().hex}{TMP_SUFFIX}"
        response = self._send("PUT", tmp, content=data)
        if response.status_code not in (200, 201, 204):
            raise RemoteError(f"The WebDAV server answered {response.status_code} to writing {name}.")
        moved = self._send("MOVE", tmp, headers={"Destination": self._href(name), "Overwrite": "F"})
        if moved.status_code in (201, 204):
            return True
        self._send("DELETE", tmp)
        if moved.status_code == 412:  # the name is taken: never replaced
            return False
        raise RemoteError(f"The WebDAV server answered {moved.status_code} to placing {name}.")

    def _make_folders(self, folder: str) -> None:
        parts = [p for p in folder.split("/") if p]
        for i in range(0, len(parts) + 1):
            path = "/".join(parts[:i]) + "/" if i else ""
            if path in self._made:
                continue
            response = self._send("MKCOL", path)
            if response.status_code == 409 and not path:  # the base's parents are missing too
                response = self._make_base()
            if response.status_code not in (201, 405):  # 405: it exists already
                raise RemoteError(f"The WebDAV server answered {response.status_code} to making {path}.")
            self._made.add(path)


    def _make_base(self) -> httpx.Response:
        parts = urlsplit(self.url)
        segments = [p for p in parts.path.split("/") if p]
        response = None
        for i in range(1, len(segments) + 1):
            url = f"{parts.scheme}://{parts.netloc}/{'/'.join(segments[:i])}/"
            try:
                response = self._http.request("MKCOL", url)
            except httpx.HTTPError as exc:
                raise RemoteError(f"The WebDAV server {self.url} cannot be reached ({exc}).") from exc
        assert response is not None
        return response


def _entries(body: bytes) -> list[tuple[str, bool]]:
    try:
        root = ET.fromstring(body)
    except ET.ParseError as exc:
        raise RemoteError(f"The WebDAV server's listing is not XML ({exc}).") from exc
    found = []
    for response in root.iter(f"{_DAV}response"):
        href = response.findtext(f"{_DAV}href")
        if href:
            found.append((href, response.find(f".//{_DAV}collection") is not None))
    return found
