"""Knowledge folders of an agent: their PDF, DOCX, EPUB, Markdown, text and code files indexed, again only when changed
(size and mtime, then the content's hash); files deleted from the folder leave the index."""

from __future__ import annotations

import hashlib
import os
import stat
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from data.documents.extract import Extracted, extract, readable_suffix
from data.documents.store import KnownFile, SqlDocumentStore
from domain.attachment import human_size
from domain.errors import InvalidInput
from domain.models import AgentId

MAX_FILE_BYTES = 50_000_000  # a larger file is skipped (the attachment limit)
MAX_FOLDER_FILES = 20_000  # files indexed per folder at most
MAX_FOLDER_BYTES = 2_000_000_000  # bytes of readable files per folder at most
BATCH = 200  # files stored per transaction
Progress = Callable[[str], None]


@dataclass
class IndexReport:
    """What one pass over a folder did."""

    folder: str
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    skipped: int = 0
    problems: tuple[str, ...] = ()

    @property
    def line(self) -> str:
        """One line for the user."""
        text = (f"{self.folder}: {self.added} added, {self.updated} updated, {self.unchanged} unchanged, "
                f"{self.removed} removed")
        return text + (f", {self.skipped} skipped" if self.skipped else "")


class KnowledgeIndexer:
    """Adds, lists, removes and re-indexes knowledge folders in the document store."""

    def __init__(self, store: SqlDocumentStore) -> None:
        self.store = store
        self._skipped: dict[str, tuple[int, float]] = {}  # files a pass skipped (too large, no text): size, mtime
        self._refreshing = threading.Lock()

    def changed(self, agent_id: AgentId, folder: str) -> bool:
        """Whether a file of the folder was added, changed (size or mtime) or deleted since it was indexed (a file
        skipped then, unchanged since, does not count); a missing folder has not changed."""
        root = Path(folder)
        if not root.is_dir():
            return False
        known = self.store.known_files(agent_id, folder)
        seen = 0
        for count, (path, info) in enumerate(_files(root), start=1):
            if count > MAX_FOLDER_FILES:
                return False  # past the limit nothing more is indexed: its files do not count
            key = str(path)
            before = known.get(key)
            if before is None:
                if self._skipped.get(key) != (info.st_size, info.st_mtime) and info.st_size <= MAX_FILE_BYTES:
                    return True
                continue
            seen += 1
            if before.size != info.st_size or before.mtime != info.st_mtime:
                return True
        return seen != len(known)

    def refresh(self, agent_id: AgentId | None = None, progress: Progress | None = None) -> list[IndexReport]:
        """Indexes again the folders (of one agent, or of all) whose files changed since they were indexed, in the
        background of the app (start, a conversation opened); nothing when another refresh is running."""
        if not self._refreshing.acquire(blocking=False):
            return []
        try:
            return [self.index(agent, folder, progress) for agent, folder in self.store.folders(agent_id)
                    if self.changed(agent, folder)]
        finally:
            self._refreshing.release()

    def add(self, agent_id: AgentId, path: Path, progress: Progress | None = None) -> IndexReport:
        """Adds a folder (or one file's folder is refused) to the agent's knowledge and indexes it."""
        folder = path.expanduser().resolve()
        if not folder.is_dir():
            raise InvalidInput(f"{path} is not a folder; knowledge is added a folder at a time.")
        self.store.add_folder(agent_id, str(folder))
        return self.index(agent_id, str(folder), progress)

    def remove(self, agent_id: AgentId, path: str) -> bool:
        """Forgets a folder and every file indexed from it; False when the agent had no such folder."""
        folder = str(Path(path).expanduser().resolve())
        return self.store.remove_folder(agent_id, folder) or self.store.remove_folder(agent_id, path)

    def reindex(self, agent_id: AgentId | None = None, progress: Progress | None = None) -> list[IndexReport]:
        """Indexes every folder (of one agent, or of all) again: only what changed is read."""
        return [self.index(agent, folder, progress) for agent, folder in self.store.folders(agent_id)]

    def index(self, agent_id: AgentId, folder: str, progress: Progress | None = None) -> IndexReport:
        """One pass over the folder: new and changed files extracted and stored, deleted ones forgotten."""
        report = IndexReport(folder)
        say = progress or (lambda _line: None)
        known = self.store.known_files(agent_id, folder)
        root = Path(folder)
        if not root.is_dir():
            report.problems = (f"{folder} is missing; its files stay indexed until it is removed.",)
            say(report.problems[0])
            return report
        seen: set[str] = set()
        batch: list[tuple[str, str, KnownFile, Extracted | None]] = []
        problems: list[str] = []
        total_bytes = 0
        files = _files(root)
        for count, (path, info) in enumerate(files, start=1):
            if count > MAX_FOLDER_FILES or total_bytes + info.st_size > MAX_FOLDER_BYTES:
                past = {str(path), *(str(rest) for rest, _ in files)}  # still there: not forgotten, not read again
                seen |= past
                problems.append(f"{folder} has more than {MAX_FOLDER_FILES:,} files or {human_size(MAX_FOLDER_BYTES)}"
                                f"; the rest is not indexed{_kept(sum(1 for key in past if key in known))}.")
                break
            key = str(path)
            seen.add(key)
            total_bytes += info.st_size
            if info.st_size > MAX_FILE_BYTES:
                self._skipped[key] = (info.st_size, info.st_mtime)
                report.skipped += 1
                problems.append(f"{key} is {human_size(info.st_size)}; at most {human_size(MAX_FILE_BYTES)} is read.")
                continue
            before = known.get(key)
            if before is not None and before.size == info.st_size and before.mtime == info.st_mtime:
                report.unchanged += 1
                continue
            try:
                data = path.read_bytes()
            except OSError as exc:
                self._skipped[key] = (info.st_size, info.st_mtime)
                report.skipped += 1
                problems.append(f"{key} cannot be read ({exc.strerror or exc}).")
                continue
            now = KnownFile(len(data), info.st_mtime, hashlib.sha256(data).hexdigest())
            if before is not None and before.sha256 == now.sha256:
                batch.append((key, _name(root, path), now, None))  # touched, not changed: nothing to extract
                report.unchanged += 1
            else:
                try:
                    batch.append((key, _name(root, path), now, extract(path.name, data)))
                except InvalidInput as err:
                    self._skipped[key] = (info.st_size, info.st_mtime)
                    report.skipped += 1
                    problems.append(f"{key}: {err.message}")
                    continue
                if before is None:
                    report.added += 1
                else:
                    report.updated += 1
            if len(batch) >= BATCH:
                self.store.put_files(agent_id, folder, batch)
                batch = []
                say(f"{folder}: {count} files looked at ({report.added} added, {report.updated} updated)")
        if batch:
            self.store.put_files(agent_id, folder, batch)
        gone = [path for path in known if path not in seen]
        if gone:
            self.store.forget_files(agent_id, gone)
        report.removed = len(gone)
        report.problems = tuple(problems)
        for problem in problems:
            say(problem)
        say(report.line)
        return report


def _files(root: Path) -> Iterator[tuple[Path, os.stat_result]]:
    """The readable regular files under root, hidden files and folders left out, in a stable order."""
    for current, folders, names in os.walk(root):
        folders[:] = sorted(f for f in folders if not f.startswith("."))
        for name in sorted(names):
            if name.startswith(".") or not readable_suffix(name):
                continue
            path = Path(current) / name
            try:
                info = path.stat()
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode):
                yield path, info


def _kept(count: int) -> str:
    """What the limit line says of the files past it that were indexed before (they stay as they were)."""
    if not count:
        return ""
    return " (1 file indexed before is kept as it was)" if count == 1 else \
        f" ({count:,} files indexed before are kept as they were)"


def _name(root: Path, path: Path) -> str:
    """A knowledge file's name for the model: its path inside the folder."""
    return path.relative_to(root).as_posix()
