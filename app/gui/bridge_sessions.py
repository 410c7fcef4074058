"""The sessions list's backend over the Container's use cases."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

from app.cli.import_cmd import open_conversations
from app.container import Container
from data.importing.sources import detect
from domain.errors import InvalidInput
from domain.importers.detect import NAMES
from domain.models import Session, SessionId
from domain.ports import SessionSearchHit
from ui.backend import ImportProgress


class SessionsBridge:
    """List, search, rename, delete and restore sessions."""

    _c: Container

    async def list_sessions(self, archived: bool = False) -> Sequence[Session]:
        return self._c.list_sessions(archived=archived)

    async def archive_session(self, session_id: SessionId, archived: bool) -> Session:
        return (self._c.archive_session if archived else self._c.archive_session.undo)(session_id)

    async def search_sessions(self, query: str) -> Sequence[SessionSearchHit]:
        return self._c.search_sessions(query)

    async def rename_session(self, session_id: SessionId, title: str) -> Session:
        return self._c.rename_session(session_id, title)

    async def delete_session(self, session_id: SessionId) -> None:
        self._c.delete_session(session_id)

    async def restore_session(self, session_id: SessionId) -> None:
        self._c.delete_session.undo(session_id)

    async def export_session(self, session_id: SessionId, fmt: str, path: str) -> None:
        text = self._c.export_session(session_id, fmt)
        try:
            Path(path).write_text(text + "\n", encoding="utf-8")
        except OSError as err:
            raise InvalidInput(f"Cannot write {path}: {err.strerror or err}. Choose another file.") from err

    async def import_file(self, kind: str, path: str) -> AsyncIterator[ImportProgress]:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[ImportProgress] = asyncio.Queue()

        def report(done: int, total: int | None) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, ImportProgress(done, total or 0))

        def work() -> ImportProgress:  # in a thread: the worker's loop keeps answering while a big file imports
            found = detect(Path(path)) if kind == "auto" else kind
            with open_conversations(found, Path(path), self._c.attachments) as conversations:
                result = self._c.import_conversations(conversations, report)
            total = len(result.imported) + len(result.skipped) + len(result.updated)
            return ImportProgress(total, total, True, len(result.imported), len(result.skipped), result.messages,
                                  len(result.updated), NAMES[found] if kind == "auto" else "")

        task = loop.run_in_executor(None, work)
        while True:
            step = asyncio.ensure_future(queue.get())
            done, _ = await asyncio.wait({step, task}, return_when=asyncio.FIRST_COMPLETED)
            if step in done:
                yield step.result()
                continue
            step.cancel()
            while not queue.empty():
                yield queue.get_nowait()
            yield task.result()
            return
