"""Continuing a conversation imported from each other source (Claude, llm, Open WebUI, LibreChat, Chatbox, LM Studio,
Jan) on each provider (its real SDK against the fake server) sends exactly what a person sees in that client: the
open branch, the source's system prompt, tool calls with their results; never reasoning, another branch or filler."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import pytest

from tests.cli.harness import Cli
from tests.fakeservers.brain import NormalizedRequest, Reply, ScriptedBrain, TextPart, ToolCallPart, ToolResultPart
from tests.fakeservers.media_rules import MediaPart
from tests.fakeservers.responses_server import FakeResponsesServer
from tests.fakeservers.trio import fake_provider_servers
from tests.importers.samples import claude_export

KEY = "sk-continue-sources-7b2c"
FIXTURES = Path(__file__).parents[1] / "importers" / "fixtures"
ASKED = "And what next?"
DEFAULT_SYSTEM = "You are a helpful assistant."  # Palimpsest's own prompt, where the source has none
Seen = list[tuple[str, str]]
HEADING = re.compile(r"^\[Attached: [^\]]*\]\n*")  # Palimpsest names an attached file just before it


@dataclass(frozen=True)
class Conversation:
    """One imported conversation, as its client shows it: system prompt, the open branch, what is never shown."""

    sid: str
    system: str | None
    visible: Seen
    hidden: tuple[str, ...] = ()
    failed: tuple[str, ...] = ()  # failed tool results: APIs without an error flag read "Error: " before them


def _call(name: str, args: dict[str, object]) -> tuple[str, str]:
    return "assistant", f"call {name} {json.dumps(args, sort_keys=True)}"


def _librechat_text(message_id: str) -> str:
    messages = json.loads((FIXTURES / "librechat" / "librechat-opts-nonr-branches.json").read_text())["messages"]
    return str(next(m["text"] for m in messages if m["messageId"] == message_id))


def _claude() -> list[Conversation]:
    # current_leaf h2 -> b1b (the regenerated reply) -> h1; b1 (thinking, tool use) is the branch not shown.
    return [Conversation("claude-conv-report", None, [
        ("user", "Summarize the report\n\n[attachment: report.txt]\nQuarterly revenue grew 12 percent.\n\n"
                 "[file: chart.png (not in the export)]"),
        ("assistant", "Revenue rose by twelve percent."),
        ("user", f"Thanks\n\n{ASKED}")],  # the last question had no reply: one user turn, no invented answer
        ("The user wants a summary", "Let me check the latest figures", "Revenue up 12%", "toolu_01"))]


def _llm() -> list[Conversation]:
    # logs-0.36.db, as llm itself wrote it: `-T llm_version` (a tool round) and `-s "You are terse."`.
    return [
        Conversation("llm-01m8ds7b6k2j9wxcp3g7rn1d8h", None, [
            ("user", "Which llm version am I running?"), _call("llm_version", {}), ("user", "result: 0.36"),
            ("assistant", "You are running llm 0.36."), ("user", ASKED)]),
        Conversation("llm-01m8ds78rrdkxeer1vv36q0fd2", "You are terse.", [
            ("user", "Name a prime number"), ("assistant", "7"), ("user", ASKED)])]


def _openwebui() -> list[Conversation]:
    return [
        Conversation("openwebui-reasoning-chat", None, [
            ("user", "What is 15 * 17?"), ("assistant", "255"), ("user", ASKED)],
            ("Let me break this down", "15 * 10", "Thought for", "<details")),
        Conversation("openwebui-tool-chat", None, [
            ("user", "What's the weather in Paris?"), _call("get_weather", {"city": "Paris"}),
            ("user", "result: Paris: 18C, rain"), ("assistant", "The weather in Paris is 18C with rain."),
            ("user", ASKED)], ("Tool Executed", "<details"))]


def _librechat() -> list[Conversation]:
    # LibreChat shows the newest sibling at each level: the second first question and its one reply.
    return [Conversation("librechat-27b593be-9500-479c-94cb-050cab8f5033", None, [
        ("user", "tell me a long long story"),
        ("assistant", _librechat_text("de9a4e7c-020d-4856-a5a6-ce6794efef99")), ("user", ASKED)],
        ("tell me a long story", "Settle in for a tale", "Sure, I can craft a long story"))]


def _chatbox() -> list[Conversation]:
    # The active fork stays in `messages`; a0 ("About four hours.") sits in messageForksHash.lists; t-old-1 is
    # an earlier thread of its own.
    return [
        Conversation("chatbox-9b1f3c2e-4d5a-4e6b-8c7d-0e1f2a3b4c5d", "You are a helpful assistant.", [
            ("user", "How long is a flight from Berlin to Lisbon? Here is my ticket.\n"
                     "[image: picture:u1:2f6c1a0e-ticket (not in the backup)]\n"
                     "[attachment: itinerary.pdf (not in the backup)]"),
            _call("web_search", {"query": "Berlin Lisbon flight duration"}),
            ("user", 'result: {"query": "Berlin Lisbon flight duration", "searchResults": [{"title": "BER to LIS", '
                     '"link": "https://example.org/ber-lis", "snippet": "3h 35m nonstop"}]}'),
            ("assistant", "A nonstop flight takes about 3 hours 35 minutes."), ("user", ASKED)],
            ("Direct flights BER-LIS", "About four hours", "What should I pack", "Light layers")),
        Conversation("chatbox-55d92e88-02af-4c3b-a378-aa0a1970abb1",
                     "I want you to act as a social media influencer. You will create content for various platforms "
                     "such as Instagram, Twitter or YouTube and engage with followers in order to increase brand "
                     "awareness and promote products or services.", [
                         ("user", "Tweet out to let everyone know: The latest version of Chatbox has been released"),
                         ("assistant", '"Exciting news! The latest version of Chatbox has just been released. Get '
                                       "ready to experience amazing features and seamless AI conversations. Upgrade "
                                       'now and unleash your productivity potential! #Chatbox #MessagingApp '
                                       '#Upgrade"'),
                         ("user", ASKED)])]


def _chatbox_own() -> list[Conversation]:
    # Written by Chatbox's own code: the open fork (a web search, then the answer) and a failed search whose stored
    # stack is not sent; the first reply ("About four hours.") sits in messageForksHash; the earlier thread is its own.
    ticket = "picture:user:d6f0c2a4-7b1e-4c3a-9f5d-2e8b6a1c0f93:a504cb71-ede0-4b37-87be-85b513ba33cd"
    found = {"query": "Berlin Lisbon flight duration", "searchResults": [
        {"title": "BER to LIS", "link": "https://example.org/ber-lis", "snippet": "3h 35m nonstop"}]}
    return [
        Conversation("chatbox-d6f0c2a4-7b1e-4c3a-9f5d-2e8b6a1c0f93", "You are a helpful assistant.", [
            ("user", f"How long is a flight from Berlin to Lisbon? Here is my ticket.\n[image: {ticket} (not in the "
                     "backup)]\n[attachment: itinerary.pdf (not in the backup)]"),
            _call("web_search", {"query": "Berlin Lisbon flight duration"}),
            ("user", f"result: {json.dumps(found)}"),
            ("assistant", "A nonstop flight takes about 3 hours 35 minutes."), ("user", "Is there a train instead?"),
            _call("web_search", {"query": "Berlin Lisbon train"}), ("user", "result: search quota exceeded"),
            ("assistant", "I could not search just now; by train it takes more than a day, with changes in Paris and "
                          "Madrid or Hendaye."), ("user", ASKED)],
            ("About four hours", "A direct BER-LIS flight", "Check a search for BER-LIS", "webSearchExecutor",
             "What should I pack"), ("search quota exceeded",)),
        Conversation("chatbox-d6f0c2a4-7b1e-4c3a-9f5d-2e8b6a1c0f93-d5f4e000-5782-48f4-8942-7af3f02b5694",
                     "You are a helpful assistant.", [
                         ("user", "What should I pack for Lisbon in May?"),
                         ("assistant", "Light layers, a rain jacket and comfortable shoes for the hills."),
                         ("user", ASKED)])]


def _lmstudio() -> list[Conversation]:
    # The reply's selected version is 1 (thinking, excluded from context, then the answer); version 0 is not shown.
    return [Conversation("lmstudio-1736789912980", "You are a patient Rust tutor.", [
        ("user", "Why does this not compile?\n[attachment: main.rs (not in the conversation file)]"),
        ("assistant", "`s` is dropped at the end of the inner block while `r` still borrows it; move `s` out of the "
                      "block."),
        ("user", "What time is it in Tokyo?"), _call("get_time", {"timezone": "Asia/Tokyo"}),
        ("user", 'result: {"time": "21:04"}'), ("assistant", "It is 21:04 in Tokyo."), ("user", ASKED)],
        ("The borrow outlives the value", "escapes the block", "Thought for"))]


def _jan() -> list[Conversation]:
    return [
        Conversation("jan-jan_1717400000", "You are a botanist.", [
            ("user", "Why is this leaf green?"), ("user", "[image image/png]"), ("assistant", "Chlorophyll."),
            ("user", ASKED)], ("<think>", "chlorophyll reflects green light")),
        Conversation("jan-jan_1717500000", None, [
            ("user", "Weather in Rome?"), _call("get_weather", {"city": "Rome"}), ("user", "result: sunny, 24C"),
            ("assistant", "It is sunny, 24°C."), ("user", ASKED)]),
        # Jan's own e2e seed: a thread whose one question had no reply, so the next question joins it
        Conversation("jan-jan_1723493088", None, [("user", f"hey\n\n{ASKED}")]),
        # Jan's own branching test case: a -> b1 -> c1 and a -> b2 -> c2 (newer), with a's activeChildId on b1
        Conversation("jan-thr", None, [("user", "q"), ("assistant", "a1"), ("user", f"follow1\n\n{ASKED}")],
                     ("follow2",))]


def _jan_own() -> list[Conversation]:
    # Jan's reply items in order (reasoning, tool_call, text); the Porto call failed and Jan kept it without output:
    # a call that never returned, which is not sent. The prompt is the thread's assistant instructions.
    thread = FIXTURES / "jan-own" / "threads" / "66502f7b-80b2-4592-8c1e-9517341bfb9f" / "thread.json"
    instructions = str(json.loads(thread.read_text(encoding="utf-8"))["assistants"][0]["instructions"])
    return [
        Conversation("jan-66502f7b-80b2-4592-8c1e-9517341bfb9f", instructions, [
            ("user", "What is the weather in Lisbon?"), _call("get_weather", {"city": "Lisbon"}),
            ("user", "result: Lisbon: 19°C, light wind"), ("assistant", "It is 19°C in Lisbon with a light wind."),
            ("user", "And in Porto?"),
            ("assistant", "I could not reach the weather service for Porto just now."), ("user", ASKED)],
            ("call the tool for Lisbon", "Any small prime")),
        Conversation("jan-056ea9dc-fc55-45b8-80d8-6e48e7ad69e1", instructions, [
            ("user", "Name a prime number"), ("assistant", "7"), ("user", ASKED)], ("Any small prime will do",))]


def _llm_0_27() -> list[Conversation]:
    """llm 0.27.1's `responses` tables (another reader than 0.36's message store) as llm itself wrote them."""
    return [
        Conversation("llm-01m8ds7wjrz3wz8817pn9s7mj1", None, [
            ("user", "Which llm version am I running?"), _call("llm_version", {}), ("user", "result: 0.27.1"),
            ("assistant", "You are running llm 0.27.1."), ("user", ASKED)]),
        Conversation("llm-01m8ds7vdchb68y07hy0dfj64y", "You are terse.", [
            ("user", "Name a prime number"), ("assistant", "7"), ("user", ASKED)])]


def _chatbox_before_1_12() -> list[Conversation]:
    return [Conversation("chatbox-6dafa15e-c72f-4036-ac89-33c09e875bdc",
                         "I want you to act as a travel guide. I will write you my location and you will suggest a "
                         "place to visit near my location. In some cases, I will also give you the type of places I "
                         "will visit. You will also suggest me places of similar type that are close to my first "
                         "location.", [
                             ("user", "Give me a 7-day travel itinerary for Japan"),
                             ("assistant", "Sure, here's a 7-day itinerary for exploring Japan:\n\nDay 1: Tokyo\n- "
                                           "Visit Sensoji Temple in Asakusa\n- Explore the trendy neighborhood of "
                                           "Shibuya\n- See the iconic Tokyo Tower"),
                             ("user", ASKED)])]


SOURCES: dict[str, tuple[str, str | None, Callable[[], list[Conversation]]]] = {  # case: (command, file, seen)
    "claude": ("claude", None, _claude), "llm": ("llm", "llm/logs-0.36.db", _llm),
    "llm-0.27": ("llm", "llm/logs-0.27.1.db", _llm_0_27),
    "openwebui": ("openwebui", "openwebui/openwebui-export.json", _openwebui),
    "librechat": ("librechat", "librechat/librechat-opts-nonr-branches.json", _librechat),
    "chatbox": ("chatbox", "chatbox/chatbox-exported-data-2025-6-1.json", _chatbox),
    "chatbox-2023": ("chatbox", "chatbox/chatbox-exported-data-2023-5-2.json", _chatbox_before_1_12),
    "chatbox-own": ("chatbox", "chatbox/chatbox-exported-data-2026-11-27.json", _chatbox_own),
    "lmstudio": ("lmstudio", "lmstudio", _lmstudio), "jan": ("jan", "jan", _jan),
    "jan-own": ("jan", "jan-own", _jan_own)}


def _visible(request: NormalizedRequest) -> Seen:
    """The request's conversation as (role, what) pairs; one turn's texts joined, as providers may send either."""
    out: Seen = []
    for message in request.messages:
        role = "user" if message.role == "tool" else message.role
        # providers put a turn's files before or after its text: files go last here, so all compare alike
        for part in sorted(message.parts, key=lambda p: isinstance(p, MediaPart)):
            text = HEADING.sub("", part.text) if isinstance(part, TextPart) else ""
            if text.strip():
                if out and out[-1][0] == role and not out[-1][1].startswith(("call ", "result: ", "[image ")):
                    out[-1] = (role, f"{out[-1][1]}\n\n{text}")
                else:
                    out.append((role, text))
            elif isinstance(part, ToolCallPart):
                out.append(_call(part.name, dict(part.input)))
            elif isinstance(part, ToolResultPart):
                out.append((role, f"result: {part.text}"))
            elif isinstance(part, MediaPart):
                out.append((role, f"[{part.kind} {part.media_type}]"))
    return out


@pytest.fixture(scope="module")
def imported_homes(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """A home with one source imported, made once per source and copied by each provider's test (it is slow)."""
    made: dict[str, Path] = {}  # case -> the folder holding its imported home

    def home_of(source: str) -> Path:
        if source not in made:
            root = tmp_path_factory.mktemp(source)
            imported = Cli(root / "home", root / "keys.json").run("import", SOURCES[source][0],
                                                                 str(_source_path(source, root)),
                                                                 subprocess_run=False)
            assert imported.code == 0, imported.err
            made[source] = root
        return made[source]
    return home_of


def _source_path(source: str, root: Path) -> Path:
    if (relative := SOURCES[source][1]) is not None:
        return FIXTURES / relative
    (root / "claude.json").write_text(json.dumps(claude_export()), encoding="utf-8")
    return root / "claude.json"


def _continue_each(cli: Cli, provider: str, conversations: list[Conversation]) -> None:
    for conversation in conversations:
        done = cli.run("chat", "-s", conversation.sid, "-p", provider, ASKED, subprocess_run=False)
        assert done.code == 0, done.err


@pytest.mark.parametrize("provider", ["anthropic", "openai", "gemini", "openai-responses"])
@pytest.mark.parametrize("source", list(SOURCES))
def test_continuing_an_imported_conversation_sends_what_its_client_showed(
        tmp_path: Path, imported_homes: Callable[[str], Path], source: str, provider: str) -> None:
    conversations = SOURCES[source][2]()
    template = imported_homes(source)
    shutil.copytree(template / "home", tmp_path / "home")
    path = _source_path(source, template)
    brain = ScriptedBrain(default=Reply.of_text("Noted."))
    if provider == "openai-responses":
        with FakeResponsesServer(brain, api_key=KEY) as responses:
            cli = Cli(tmp_path / "home", tmp_path / "keys.json",
                      {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": responses.base_url})
            assert cli.run("providers", "set", "openai", "--api", "responses", subprocess_run=False).code == 0
            _continue_each(cli, "openai", conversations)
            requests = list(responses.requests)
    else:
        with fake_provider_servers(brain, api_key=KEY) as fakes:
            _continue_each(Cli(tmp_path / "home", tmp_path / "keys.json", fakes.env(KEY)), provider, conversations)
            requests = list({"anthropic": fakes.anthropic, "openai": fakes.openai, "gemini": fakes.gemini}[
                provider].requests)
    source_bytes = b"".join(f.read_bytes() for f in ([path] if path.is_file() else sorted(path.rglob("*.json*"))))
    assert all(word.encode() in source_bytes for c in conversations for word in c.hidden)  # what is never sent is there
    turns = [r for r in requests if r.stream and r.last_user_text.endswith(ASKED)]
    assert len(turns) == len(conversations)
    for conversation, turn in zip(conversations, turns, strict=True):
        system = turn.system.partition("\n[tools] ")[0]  # one flavour's normalized request appends the tools
        assert system == (conversation.system or DEFAULT_SYSTEM), conversation.sid
        flagless = provider.startswith("openai")  # data/providers/conversation.py: no is_error on OpenAI's APIs
        visible = [("user", f"result: Error: {what[8:]}") if flagless and what[8:] in conversation.failed else
                   (role, what) for role, what in conversation.visible]
        assert _visible(turn) == visible, conversation.sid
        roles = [m.role for m in turn.messages]
        assert all(a != b or a == "tool" for a, b in pairwise(roles)), (conversation.sid, roles)
        text = json.dumps(turn.raw, ensure_ascii=False)  # the whole body: thinking blocks too, if any were sent
        assert not [word for word in conversation.hidden if word in text], conversation.sid
