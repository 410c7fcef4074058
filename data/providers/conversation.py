"""Turns stored messages into provider-neutral turns with paired tool calls, before each SDK's own shape."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from domain.attachment import Attachment, placeholder
from domain.errors import InvalidResponse
from domain.models import Message, MessageType, ReasoningBlock, ToolStatus
from domain.web import WebSearchRecord, with_sources

INTERRUPTED_RESULT = "Error: tool call was interrupted before it returned a result."
CONTINUE_PLACEHOLDER = "(continuing the conversation)"


@dataclass(frozen=True)
class TextBlock:
    """Plain text of a turn."""

    text: str


@dataclass(frozen=True)
class CallBlock:
    """A tool call the assistant made; input is the parsed JSON object."""

    id: str
    name: str
    input: Mapping[str, Any]


@dataclass(frozen=True)
class ResultBlock:
    """A tool's result, paired with its call by id."""

    id: str
    name: str
    output: str
    is_error: bool
    attachments: tuple[Attachment, ...] = ()  # images the tool returned, as this request sends them

    @property
    def marked_output(self) -> str:
        """The output as sent to APIs without an error flag: a failure reads as one ("Error: ...")."""
        if self.is_error and not self.output.lower().startswith("error"):
            return "Error: " + self.output
        return self.output


@dataclass(frozen=True)
class AttachmentBlock:
    """A file of a user turn as this request sends it (natively, as text, or as its placeholder line)."""

    attachment: Attachment


@dataclass(frozen=True)
class SearchedBlock:
    """A searched reply whose provider's own blocks go back unchanged (the shaper that asked for them sends them)."""

    record: WebSearchRecord


Block = TextBlock | CallBlock | ResultBlock | AttachmentBlock | SearchedBlock
Role = Literal["user", "assistant"]


@dataclass(frozen=True)
class Turn:
    """One provider-neutral turn: user turns hold text and tool results, assistant turns text and calls (and the
    reasoning blocks of the replies they came from, in order, for the shapers that send some back)."""

    role: Role
    blocks: tuple[Block, ...]
    reasoning: tuple[ReasoningBlock, ...] = ()


def parse_tool_input(raw: str | None) -> dict[str, Any]:
    """The stored JSON input of a tool call as a dict; anything else is wrapped so nothing is lost."""
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        return {"input": raw}
    return value if isinstance(value, dict) else {"input": value}


def to_turns(messages: Sequence[Message], *, user_first: bool = True, tool_blocks: bool = True,
             web_provider: str | None = None) -> list[Turn]:
    """Stored messages as alternating turns: every call answered right after its turn, orphans dropped.

    error messages are never sent; a call without a stored result gets a synthesized error result; results
    whose call is not in the list are dropped; empty texts are dropped; consecutive same-role turns merge.
    With user_first, a placeholder user turn is put first when the list would start with the assistant
    (or be empty). A searched reply goes as its text with its sources listed, or, to `web_provider` when its search
    blocks are that provider's and not pruned, as a SearchedBlock (its blocks unchanged). Without tool_blocks (no
    tools offered in this request; some endpoints, e.g. Bedrock-backed ones, refuse tool blocks without tool
    definitions), calls and results are kept as plain text instead.
    """
    walk = TurnWalk(collect_results(messages), web_provider)
    for message in messages:
        walk.feed(message)
    walk.close_assistant()
    return finish_turns(merge_same_roles(walk.turns if tool_blocks else [as_text(turn) for turn in walk.turns]),
                        user_first)


def collect_results(messages: Sequence[Message], results: dict[str, Message] | None = None) -> dict[str, Message]:
    """Each tool call's result by call id, the first one stored winning (added to `results` when given)."""
    found: dict[str, Message] = {} if results is None else results
    for message in messages:
        if message.type is MessageType.TOOL_RESULT and message.tool_call_id and message.tool_call_id not in found:
            found[message.tool_call_id] = message
    return found


def finish_turns(merged: list[Turn], user_first: bool) -> list[Turn]:
    """With user_first, a placeholder user turn first when the turns would start with the assistant (or be none)."""
    if user_first and (not merged or merged[0].role != "user"):
        merged.insert(0, Turn("user", (TextBlock(CONTINUE_PLACEHOLDER),)))
    return merged


class TurnWalk:
    """to_turns' walk over the messages, one at a time: the turns so far and what the open assistant turn holds
    (a memo resumes it after a prefix it walked before: data.providers.turn_memo)."""

    def __init__(self, results: Mapping[str, Message], web_provider: str | None) -> None:
        self.results, self.web_provider = results, web_provider
        self.turns: list[Turn] = []
        self.seen_ids: set[str] = set()
        self.answered: set[str] = set()  # the calls whose turns were closed with a stored result
        self._calls: list[CallBlock] = []
        self._assistant: list[Block] = []
        self._reasoning: list[ReasoningBlock] = []

    def close_assistant(self) -> None:
        """Ends the open assistant turn, and puts its calls' results in a user turn right after it."""
        if self._assistant:
            self.turns.append(Turn("assistant", tuple(self._assistant), tuple(self._reasoning)))
        if self._calls:
            self.turns.append(Turn("user", tuple(self._result_for(call) for call in self._calls)))
        self._assistant.clear()
        self._calls.clear()
        self._reasoning.clear()

    def _result_for(self, call: CallBlock) -> ResultBlock:
        if call.id in self.results:
            self.answered.add(call.id)
        return result_block(call, self.results)

    def feed(self, message: Message) -> None:
        """Walks one message."""
        if message.type is MessageType.USER:
            self.close_assistant()
            files = tuple(AttachmentBlock(a) for a in message.attachments)
            if message.content.strip() or files:
                text = (TextBlock(message.content),) if message.content.strip() else ()
                self.turns.append(Turn("user", files + text))
        elif message.type is MessageType.AI_RESPONSE:
            if self._calls:
                self.close_assistant()
            web = message.web
            if web is not None and self.web_provider is not None and web.belongs_to(self.web_provider):
                self._assistant.append(SearchedBlock(web))
            elif message.content.strip():
                self._assistant.append(TextBlock(with_sources(message.content, web)))
            self._reasoning.extend(message.reasoning)
        elif message.type is MessageType.TOOL_CALL:
            call_id = message.tool_call_id or f"call_{message.id}"
            if call_id in self.seen_ids:
                return
            self.seen_ids.add(call_id)
            call = CallBlock(call_id, message.tool_name or "unknown_tool", parse_tool_input(message.tool_input))
            self._assistant.append(call)
            self._calls.append(call)


def result_block(call: CallBlock, results: Mapping[str, Message]) -> ResultBlock:
    """The call's result block: its stored result's output, else the interrupted-call error."""
    stored = results.get(call.id)
    if stored is None:
        return ResultBlock(call.id, call.name, INTERRUPTED_RESULT, True)
    output = stored.tool_output if stored.tool_output is not None else stored.content
    return ResultBlock(call.id, call.name, output or "(no output)", stored.tool_status is ToolStatus.ERROR,
                       stored.attachments)


def as_text(turn: Turn) -> Turn:
    """The turn with its tool calls and results written out as text."""
    blocks: list[Block] = []
    for block in turn.blocks:
        if isinstance(block, CallBlock):
            blocks.append(TextBlock(f"[called tool {block.name} with {json.dumps(dict(block.input))}]"))
        elif isinstance(block, ResultBlock):
            label = "error from" if block.is_error else "result of"
            blocks.append(TextBlock(f"[{label} tool {block.name}: {block.output}]"))
            blocks += [AttachmentBlock(a) for a in block.attachments]
        else:
            blocks.append(block)
    return Turn(turn.role, tuple(blocks), turn.reasoning)


def merge_same_roles(turns: Sequence[Turn]) -> list[Turn]:
    """Merges consecutive turns of one role; tool results stay ahead of text inside a user turn."""
    return merge_into([], turns)


def merge_into(merged: list[Turn], turns: Sequence[Turn]) -> list[Turn]:
    """`turns` merged onto `merged` (already merged), in place: merge_same_roles(a + b) is merge_into(
    merge_same_roles(a), b)."""
    for turn in turns:
        if merged and merged[-1].role == turn.role:
            blocks = merged[-1].blocks + turn.blocks
            if turn.role == "user":
                blocks = tuple(b for b in blocks if isinstance(b, ResultBlock)) + tuple(
                    b for b in blocks if not isinstance(b, ResultBlock)
                )
            merged[-1] = Turn(turn.role, blocks, merged[-1].reasoning + turn.reasoning)
        else:
            merged.append(turn)
    return merged


def attachment_heading(attachment: Attachment) -> str:
    """The line that names a file sent natively, just before it (so the model can refer to it by name)."""
    return f"[Attached: {attachment.label}]"


def attachment_text(attachment: Attachment, read_text: Callable[[Attachment], str],
                    read_pdf_text: Callable[[Attachment], str]) -> str | None:
    """The text block that carries an attachment in this request (its placeholder, a text file's contents, a PDF's
    extracted text), or None when it goes natively (an image, a PDF)."""
    if attachment.omitted:
        return placeholder(attachment)
    if attachment.kind.value == "text":
        return f"File {attachment.name}:\n```\n{read_text(attachment)}\n```"
    if attachment.as_text:
        return (f"[Text extracted from {attachment.label}; this model reads no PDFs, so only the text is sent]\n"
                f"{read_pdf_text(attachment)}")
    return None


def parse_tool_arguments(text: str) -> dict[str, Any]:
    """A streamed tool call's complete JSON arguments as a dict; InvalidResponse when they are not an object."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise InvalidResponse("The provider sent a tool call whose arguments are not valid JSON.") from exc
    if not isinstance(value, dict):
        raise InvalidResponse("The provider sent a tool call whose arguments are not a JSON object.")
    return value
