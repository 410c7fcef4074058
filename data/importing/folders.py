"""Clients that keep each conversation in files of its own: LM Studio (`*.conversation.json` under its
conversations folder, subfolders too) and Jan (`threads/<id>/thread.json` with `messages.jsonl`), read from the
folder the user names (the data folder, its conversations or threads folder, one thread's folder, or one file)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from domain.errors import InvalidInput
from domain.importers import jan, lmstudio
from domain.importers.model import ImportedConversation, MalformedExport

MAX_FILE_BYTES = 200_000_000  # one conversation file or thread read whole: far beyond any real one


def _text(path: Path) -> str:
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise InvalidInput(f"Cannot import {path}: it is larger than a conversation file can be.")
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidInput(f"Cannot import {path}: it is not UTF-8 text. Nothing was imported.") from None
    except OSError as err:
        raise InvalidInput(f"Cannot read {path}: {err.strerror or err}.") from err


def _json(path: Path) -> object:
    try:
        return json.loads(_text(path))
    except json.JSONDecodeError as err:
        raise MalformedExport(f"{path.name} line {err.lineno}, column {err.colno}", f"invalid JSON ({err.msg})"
                              ) from None


def lmstudio_files(path: Path) -> list[Path]:
    """The conversation files at `path` (a file, or every `*.conversation.json` below a folder), in name order."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise InvalidInput(f"Cannot import {path}: no such file or folder.")
    root = path / "conversations" if (path / "conversations").is_dir() else path
    return sorted(root.rglob("*.conversation.json"))


def read_lmstudio(path: Path) -> list[ImportedConversation]:
    """Every LM Studio conversation at `path`; its id is the file's name (LM Studio's own: creation time in ms)."""
    files = lmstudio_files(path)
    if not files:
        raise InvalidInput(f"Cannot import {path}: it holds no LM Studio *.conversation.json files.")
    return [lmstudio.conversation(_json(f), f.name.removesuffix(".json").removesuffix(".conversation"), f.name)
            for f in files]


def jan_threads(path: Path) -> list[Path]:
    """The thread folders at `path`: one thread's folder (or its thread.json), a `threads` folder, or Jan's data
    folder."""
    if path.is_file() and path.name == "thread.json":
        return [path.parent]
    if (path / "thread.json").is_file():
        return [path]
    root = path / "threads" if (path / "threads").is_dir() else path
    if not root.is_dir():
        raise InvalidInput(f"Cannot import {path}: no such folder (choose Jan's data folder or its threads folder).")
    return sorted(p for p in root.iterdir() if (p / "thread.json").is_file())


def _lines(path: Path) -> Iterator[object]:
    if not path.is_file():
        return
    for n, line in enumerate(_text(path).splitlines(), start=1):
        if line.strip():
            try:
                yield json.loads(line)
            except json.JSONDecodeError as err:
                raise MalformedExport(f"{path.parent.name}/messages.jsonl line {n}", f"invalid JSON ({err.msg})"
                                      ) from None


def read_jan(path: Path) -> list[ImportedConversation]:
    """Every Jan thread at `path`, with its messages."""
    threads = jan_threads(path)
    if not threads:
        raise InvalidInput(f"Cannot import {path}: it holds no Jan threads (folders with a thread.json).")
    return [jan.conversation(_json(t / "thread.json"), list(_lines(t / "messages.jsonl")), t.name) for t in threads]
