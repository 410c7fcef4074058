"""Requests that ask a server what it is and what context it runs a model with, each asked once: the answer (or
that there was none: a 404, an error, a web page) is kept in a ProbeStore (data.providers.probe_store), the
database's for a day, so a new process (every CLI turn) does not ask again. A server that cannot be reached is asked
again next time."""

from __future__ import annotations

from typing import Any

import openai

from data.providers.errors import web_page_error
from data.providers.probe_store import ProbeStore, pruned, server_key


class Prober:
    """Asks one server (the client's base URL) through a ProbeStore: a request remembered is not sent again."""

    def __init__(self, client: openai.AsyncOpenAI, store: ProbeStore) -> None:
        self._client = client.with_options(max_retries=0)
        self._store = store
        self.server = server_key(str(client.base_url))

    async def get(self, path: str) -> Any:
        """The answer to GET path (pruned), or None when the server has none."""
        return await self._ask("GET " + path, path, None)

    async def post(self, path: str, body: dict[str, Any], name: str) -> Any:
        """The answer to POST path with body (remembered under `name`), or None."""
        return await self._ask(f"POST {path} {name}", path, body)

    def keep(self, path: str, answer: Any) -> None:
        """Remembers an answer to GET path that was fetched elsewhere (a refreshed model list)."""
        self._store.remember(self.server, "GET " + path, pruned(answer))

    async def _ask(self, request: str, path: str, body: dict[str, Any] | None) -> Any:
        recalled = self._store.recall(self.server, request)
        if recalled is not None:
            return recalled.answer
        try:
            if body is None:
                answer = await self._client.get(path, cast_to=object)
            else:
                answer = await self._client.post(path, body=body, cast_to=object)
        except openai.APIConnectionError as exc:  # down or unreachable (asked again next time) unless a web page
            if web_page_error(exc) is None:
                return None
            answer = None
        except (openai.APIError, ValueError):  # a 404 or other refusal: not that kind of server
            answer = None
        answer = pruned(answer)
        self._store.remember(self.server, request, answer)
        return answer
