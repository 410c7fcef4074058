"""`palimpsest chat`: send one message to a session (new or given) and stream the reply."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TextIO

from app.cli.chat_printer import JsonlChatPrinter, TextChatPrinter
from app.cli.knowledge_cmd import refresh_before_chat
from app.cli.mcp_catalog_cmd import prompt_message, read_resources, trailing_message
from app.cli.model_check import check_model, turn_provider
from app.cli.text_input import read_stdin_text, require_text
from app.mcp_resource_watch import with_notices
from domain.attached_resources import AttachedResource
from domain.attachment import Attachment
from domain.errors import InvalidInput
from domain.events import ChatError, ChatEvent, Notice, ToolRoundLimitReached
from domain.lookup import require_agent, require_provider, require_session
from domain.usecases.refresh_attached_resources import Refreshed

if TYPE_CHECKING:
    from app.container import Container

MAX_MESSAGE_CHARS = 1_000_000
log = logging.getLogger(__name__)


class ChatPrinter(Protocol):
    """Renders a chat turn."""

    def session(self, session_id: str) -> None: ...
    def event(self, event: ChatEvent) -> None: ...
    def interrupted(self) -> None: ...


def read_message(message: str, stdin: TextIO) -> str:
    """The message text; `-` reads all of standard input. InvalidInput when it is empty, huge or not UTF-8."""
    text = read_stdin_text(stdin) if message == "-" else require_text(message, "The message")
    if not text.strip():
        raise InvalidInput("The message is empty; type a message (or pipe one in with MESSAGE set to -).")
    if len(text) > MAX_MESSAGE_CHARS:
        raise InvalidInput(f"The message is too long ({len(text)} characters; at most {MAX_MESSAGE_CHARS}).")
    return text


async def run_chat(c: Container, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Runs one turn; 0 when the reply completed, 1 when the turn failed or stopped early."""
    edit = getattr(args, "edit", None)
    if getattr(args, "mcp_prompt", None) and args.message is None:  # `--mcp-prompt S/P a=1 MESSAGE`: the last word
        args.mcp_prompt, args.message = trailing_message(args.mcp_prompt)
    if args.retry:
        if not args.session_id or args.message is not None or edit:
            raise InvalidInput("--regenerate answers a session's last message again: give the session with -s ID "
                               "and no message.")
        text = ""
    elif edit and (not args.session_id or args.message is None):
        raise InvalidInput("--edit MSG_ID sends a new version of one of your messages: give the session with -s ID "
                           "and the new text.")
    elif args.message is None and not getattr(args, "mcp_prompt", None):
        raise InvalidInput("Give a message to send (or - to read it from standard input).")
    else:
        text = read_message(args.message, sys.stdin) if args.message is not None else ""
    provider = require_provider(c.providers, args.provider) if args.provider else None
    provider_id = provider.id if provider else None
    agent = require_agent(c.agents, args.agent) if args.agent else None  # unknown: the error lists the agents
    agent_id = agent.id if agent else None
    existing = require_session(c.sessions, args.session_id) if args.session_id else None
    if getattr(args, "mcp_prompt", None):  # the server's prompt, then the message given with it
        text = "\n\n".join(t for t in (await prompt_message(c, args.mcp_prompt), text) if t.strip())
    files = _attachments(c, args)
    refreshed, read = Refreshed(), []
    try:
        read = await read_resources(c, getattr(args, "mcp_resource", None) or [])
        files += tuple(a for r in read for a in r.attachments)
        if existing is not None and not args.retry and not edit:  # its resources attached before, read again
            refreshed = await c.attached_resources.refresh(existing.id, {(r.record.server, r.record.uri) for r in read})
            files += refreshed.attachments
            text = with_notices(text, list(refreshed.changed))
    except BaseException:
        c.storage.release_unreferenced({f.sha256 for f in files})
        raise
    if args.model:
        target = turn_provider(c, provider, existing, agent)
        if target is not None:
            await check_model(c, target, args.model, err)
    session = existing or c.create_session(agent=agent_id, provider_id=provider_id, model_id=args.model)
    before = c.messages.count(session.id) if existing is not None else 0
    try:
        refresh_before_chat(c, session.current_agent_id, err)  # the agent's changed knowledge files, read again
        sampling_provider = provider_id or session.current_provider_id
        sampling_model = args.model or session.current_model_id
        if sampling_provider and sampling_model:  # an MCP server's approved sampling request runs on this model
            c.mcp_sampler.use(sampling_provider, sampling_model)
        return await _send(c, args, session.id, text, provider_id, agent_id, out, err, files, refreshed.notices)
    finally:
        _remember_resources(c, session.id, before, [*(r.record for r in read), *refreshed.updated])
        if not args.session_id:
            _discard_if_empty(c, session.id)
        if files:  # files taken in for a message that was refused before it was stored are not kept
            c.storage.release_unreferenced({f.sha256 for f in files})


def _attachments(c: Container, args: argparse.Namespace) -> tuple[Attachment, ...]:
    """The files of -a (checked and stored) and --reattach (found in the session); InvalidInput for a bad one."""
    paths, refs = getattr(args, "attach", None) or [], getattr(args, "reattach", None) or []
    if (paths or refs) and args.retry:
        raise InvalidInput("--retry sends the last message again as it was; it takes no -a or --reattach.")
    if refs and not args.session_id:
        raise InvalidInput("--reattach sends an attachment of an earlier message again: give the session with -s ID.")
    found = [c.session_attachments.find(args.session_id, ref) for ref in refs]
    for attachment in found:
        if not c.media.files.exists(attachment.sha256):
            raise InvalidInput(f"The file of {attachment.name} is missing from the data folder "
                               f"({c.media.files.path(attachment.sha256)}); attach it again with -a PATH.")
    taken: list[Attachment] = []
    try:
        for path in paths:
            taken.append(c.attachments.from_path(Path(path).expanduser()))
    except BaseException:  # one bad file: none of this command's files is kept
        c.storage.release_unreferenced({f.sha256 for f in taken})
        raise
    return (*taken, *found)


async def _send(c: Container, args: argparse.Namespace, session_id: str, text: str, provider_id: str | None,
                agent_id: str | None, out: TextIO, err: TextIO, files: tuple[Attachment, ...] = (),
                notices: Sequence[str] = ()) -> int:
    announced = bool(args.session_id)  # a new session is named once it holds a message (a refused one is removed)

    def announce(event: object) -> None:
        nonlocal announced
        if announced or (isinstance(event, ChatError) and c.messages.count(session_id) == 0):
            return
        announced = True
        err.write(f"session: {session_id}\n")
        err.flush()

    printer: ChatPrinter = (JsonlChatPrinter(out) if args.jsonl
                            else TextChatPrinter(out, err, show_thinking=getattr(args, "show_thinking", False)))
    printer.session(session_id)
    for notice in notices:  # the conversation's attached MCP resources that changed or could not be read again
        printer.event(Notice(notice))
    failed = False
    try:
        async for event in c.send_message(
            session_id, text, provider_id=provider_id, model_id=args.model, agent_id=agent_id, retry=args.retry,
            edit=getattr(args, "edit", None),
            attachments=files, wait=getattr(args, "wait", False),
        ):
            announce(event)
            printer.event(event)
            if isinstance(event, ChatError | ToolRoundLimitReached):
                failed = True
    except (KeyboardInterrupt, asyncio.CancelledError):
        if not announced and c.messages.count(session_id) > 0:  # stopped before the first event: the message is kept
            announce(None)
        printer.interrupted()
        raise
    return 1 if failed else 0


def _remember_resources(c: Container, session_id: str, before: int, records: list[AttachedResource]) -> None:
    """The MCP resources the message carried, remembered with their hashes once the message is stored (a later
    `chat` of the conversation reads them again and sends them only when they changed)."""
    try:
        if records and c.messages.count(session_id) > before:
            c.attached_resources.remember(session_id, records)
    except Exception:  # remembering must not hide the turn's own failure
        log.warning("could not remember the MCP resources of %s", session_id, exc_info=True)


def _discard_if_empty(c: Container, session_id: str) -> None:
    """A session this command created but that failed before its first message was stored is removed again."""
    try:
        if c.messages.count(session_id) == 0:
            c.sessions.purge(session_id)
    except Exception:  # cleaning up after a failure must not hide that failure
        log.warning("could not remove the empty session %s", session_id, exc_info=True)
