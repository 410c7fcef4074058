"""Web search in the chat screen: a searched reply shows numbered superscript links and its sources under it; the
globe beside the model picker turns the conversation's search on (stored through the backend) and says plainly when
the provider has none. Screenshot saved under ui/screenshots/web_search_sources.png."""

from __future__ import annotations

from dataclasses import replace

from domain.events import SourcesCited, TextDelta
from domain.models import AiModel
from domain.web import Citation, Source, WebSearchRecord
from tests.ui.chat_helpers import row_of
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.test_screenshots_chat_items import _keep
from tests.ui.window_helpers import open_session, themed_window
from ui.backend import Selection
from ui.models.chat_rows import RowKind

RECORD = WebSearchRecord(
    queries=("tides brest",),
    sources=(Source("https://tides.example/brest", "Brest tide table"), Source("https://port.example/news",
                                                                                "Port of Brest news")),
    citations=(Citation("https://tides.example/brest", "Brest tide table", "High tide 06:12", 0, 31),
               Citation("https://port.example/news", "Port of Brest news", "quay works", 33, 78)),
)
REPLY = "High tide in Brest is at 06:12. The quay works end on Friday, so berth 4 reopens."


def test_a_searched_reply_shows_superscripts_and_its_sources_and_the_globe_turns_search_on(
        qtbot, worker, artifacts) -> None:
    backend = FakeChatBackend(keys={"anthropic": "sk-test"})
    session = backend.add_session("Tides in Brest", ["When is high tide in Brest?", REPLY], minutes_ago=1)
    messages = backend.messages[session.id]
    messages[-1] = replace(messages[-1], web=RECORD)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, session.id)
    _position, row = row_of(window.chat_view, RowKind.ASSISTANT)
    assert row.text == (
        "High tide in Brest is at 06:12.[¹](#source-1) The quay works end on Friday, so berth 4 "
        "reopens.[²](#source-2)\n\n**Sources**\n\n1. [Brest tide table](https://tides.example/brest)"
        "\n2. [Port of Brest news](https://port.example/news)")
    globe = window.header.web
    assert globe.isVisible() and globe.isEnabled() and not globe.isChecked()
    globe.click()
    qtbot.waitUntil(lambda: ("set_web_search", session.id, True) in backend.calls)
    qtbot.waitUntil(lambda: window.chat_vm.state.session is not None and window.chat_vm.state.session.web_search)
    qtbot.waitUntil(lambda: "on: the model may search the web" in globe.toolTip())
    assert globe.isChecked()
    qtbot.waitUntil(lambda: not window.chat_view.delegate.sizer.pending_count())
    _keep(window, artifacts, "web_search_sources.png")


def test_the_globe_says_plainly_when_the_provider_has_no_search(qtbot, worker) -> None:
    backend = FakeChatBackend(keys={"anthropic": "sk-test", "local": "none"})
    from domain.models import Provider, ProviderType

    backend.providers["local"] = Provider("local", "Local", ProviderType.OPENAI_COMPATIBLE, "http://127.0.0.1:8080/v1")
    backend.models.append(AiModel("llama", "Llama", "local", context_window_size=8192))
    session = backend.add_session("Local chat", ["hi", "hello"], minutes_ago=1)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, session.id)
    window.chat_vm.select_model(Selection("local", "llama"))
    qtbot.waitUntil(lambda: window.chat_vm.state.selection == Selection("local", "llama"))
    globe = window.header.web
    assert not globe.isEnabled() and not globe.isChecked()
    assert globe.toolTip() == ("Web search: Local has no web search of its own, and no MCP search server is "
                               "configured (add one with Add server in Settings › Tools, or `palimpsest mcp add`).")


def test_the_globe_before_the_first_message_is_stored_with_the_new_conversation(qtbot, worker) -> None:
    backend = FakeChatBackend(keys={"anthropic": "sk-test"})
    window = themed_window(qtbot, backend, worker)
    qtbot.waitUntil(lambda: window.chat_vm.state.selected_choice is not None)
    globe = window.header.web
    assert globe.isEnabled() and window.chat_vm.state.session is None
    globe.click()
    qtbot.waitUntil(lambda: window.chat_vm.state.header.web_search is True)
    assert globe.isChecked()
    window.chat_vm.send("What's the tide?")
    qtbot.waitUntil(lambda: any(call[0] == "set_web_search" for call in backend.calls))
    created = next(call for call in backend.calls if call[0] == "set_web_search")
    assert created[2] is True and backend.sessions[created[1]].web_search is True


def test_a_superscript_leads_to_its_line_in_the_sources_list_not_out_to_the_page(qtbot, worker) -> None:
    backend = FakeChatBackend(keys={"anthropic": "sk-test"})
    session = backend.add_session("Tides in Brest", ["When is high tide in Brest?", REPLY], minutes_ago=1)
    messages = backend.messages[session.id]
    messages[-1] = replace(messages[-1], web=RECORD)
    window = themed_window(qtbot, backend, worker)
    opened: list[object] = []
    window.chat_view.open_url = opened.append  # type: ignore[method-assign]
    open_session(qtbot, window, session.id)
    qtbot.waitUntil(lambda: not window.chat_view.delegate.sizer.pending_count())
    _position, row = row_of(window.chat_view, RowKind.ASSISTANT)
    assert window.chat_view.selector.open_link("#source-2", row.key)
    assert opened == []  # the superscript does not leave the app
    assert window.chat_view.selector.text() == "Port of Brest news"  # its line in the list is picked out


def test_the_sources_show_under_the_streamed_reply_when_it_ends_before_any_read_back(qtbot, worker) -> None:
    backend = FakeChatBackend(keys={"anthropic": "sk-test"})
    session = backend.add_session("Tides in Brest", ["hi", "hello"], minutes_ago=1)
    backend.scripts.append([TextDelta(REPLY), SourcesCited("pending", RECORD), 30.0])  # the turn stays open
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, session.id)
    window.chat_vm.send("When is high tide in Brest?")
    qtbot.waitUntil(lambda: "**Sources**" in row_of(window.chat_view, RowKind.ASSISTANT)[1].text, timeout=5000)
    _position, row = row_of(window.chat_view, RowKind.ASSISTANT)
    assert row.text.startswith("High tide in Brest is at 06:12.[¹](#source-1)")
    assert row.text.endswith("2. [Port of Brest news](https://port.example/news)")
    assert window.chat_vm.state.current_turn is not None  # still streaming: no read-back has happened
    window.chat_vm.stop()
    qtbot.waitUntil(lambda: backend.cancelled.is_set())


def test_a_passage_cited_from_a_fetched_page_gets_its_superscript_and_its_line(qtbot, worker) -> None:
    """The record as the Anthropic adapter makes it from a reply citing a fetched page (char_location)."""
    import asyncio

    from domain.events import WebSearched
    from domain.models import ProviderType
    from domain.web import WebSearchSettings
    from tests.fakeservers import FakeAnthropicServer, Reply, ScriptedBrain
    from tests.fakeservers.web_fetch import Fetch
    from tests.providers.helpers import History, adapter_for, collect

    page = Fetch("https://tides.example/brest", "Brest tides", "High tide at 06:12. Low tide at 12:30.")
    with FakeAnthropicServer(ScriptedBrain([replace(Reply.of_text("High tide is at 06:12."), fetches=(page,))])
                             ) as fake:
        events = asyncio.run(collect(adapter_for(ProviderType.ANTHROPIC, fake.base_url).send_message_stream(
            model_id="claude-test-1", system_prompt="", messages=History().user(f"Read {page.url}").messages,
            tools=(), max_output_tokens=256, web_search=WebSearchSettings(enabled=True))))
    record = next(e.record for e in events if isinstance(e, WebSearched))
    backend = FakeChatBackend(keys={"anthropic": "sk-test"})
    session = backend.add_session("Tides", [f"Read {page.url}", "High tide is at 06:12."], minutes_ago=1)
    messages = backend.messages[session.id]
    messages[-1] = replace(messages[-1], web=record)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, session.id)
    _position, row = row_of(window.chat_view, RowKind.ASSISTANT)
    assert row.text == ("High tide is at 06:12.[¹](#source-1)\n\n**Sources**\n\n"
                        "1. [Brest tides](https://tides.example/brest)")


def _local_with_search_server(backend: FakeChatBackend) -> None:
    from domain.mcp import McpServer, McpToolSpec, McpTransport
    from domain.models import Provider, ProviderType

    backend.providers["local"] = Provider("local", "Local", ProviderType.OPENAI_COMPATIBLE, "http://127.0.0.1:8080/v1")
    backend.models.append(AiModel("llama", "Llama", "local", context_window_size=8192))
    backend.mcp_servers.append(McpServer("brave", McpTransport.STDIO, command="brave-search", tools=(
        McpToolSpec("brave_web_search", "Searches the web.", {"type": "object"}),
        McpToolSpec("summarize", "Summarizes.", {"type": "object"}))))


def test_the_view_model_offers_an_mcp_search_server_where_the_provider_has_no_search(qtbot, worker) -> None:
    from ui.viewmodels.app import AppViewModel

    backend = FakeChatBackend(keys={"anthropic": "sk-test", "local": "none"})
    _local_with_search_server(backend)
    vm = AppViewModel(backend, worker)
    vm.load()
    qtbot.waitUntil(lambda: not vm.state.loading)
    choices = {c.selection: c for c in vm.state.choices}
    local = choices[Selection("local", "llama")]
    assert not local.web_search and local.web_search_mcp == ("brave__brave_web_search",)
    assert all(not c.web_search_mcp for s, c in choices.items() if s.provider_id == "anthropic")  # its own search


def test_the_globe_searches_through_the_mcp_search_server_where_the_provider_has_none(qtbot, worker) -> None:
    backend = FakeChatBackend(keys={"anthropic": "sk-test", "local": "none"})
    _local_with_search_server(backend)
    session = backend.add_session("Local chat", ["hi", "hello"], minutes_ago=1)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, session.id)
    window.chat_vm.select_model(Selection("local", "llama"))
    qtbot.waitUntil(lambda: window.chat_vm.state.selection == Selection("local", "llama"))
    globe = window.header.web
    assert globe.isEnabled() and not globe.isChecked()
    assert globe.toolTip() == ("Web search (this conversation): off. Local has no web search of its own; turned on, "
                               "the model searches through the MCP tool brave__brave_web_search.")
    globe.click()
    qtbot.waitUntil(lambda: ("set_web_search", session.id, True) in backend.calls)
    qtbot.waitUntil(lambda: window.chat_vm.state.session is not None and window.chat_vm.state.session.web_search)
    qtbot.waitUntil(lambda: globe.toolTip() == ("Web search (this conversation): on, through the MCP tool "
                                                "brave__brave_web_search (Local has no web search of its own)."))
    assert globe.isChecked() and globe.isEnabled()


def test_adding_or_removing_an_mcp_server_tells_the_header_to_reload_its_globe(qtbot, worker) -> None:
    from tests.ui.test_settings_viewmodel import idle, loaded

    backend = FakeChatBackend()
    vm = loaded(qtbot, backend, worker)
    with qtbot.waitSignal(vm.catalog_changed, timeout=3000):
        vm.add_mcp_server("brave", "brave-search")
    idle(qtbot, vm)
    with qtbot.waitSignal(vm.catalog_changed, timeout=3000):
        vm.remove_mcp_server("brave")
    idle(qtbot, vm)
