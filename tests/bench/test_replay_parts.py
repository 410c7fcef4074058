"""The replay benchmark's pure parts: script, ideal summarizer, recall, prefix-cache billing, report maths."""

from __future__ import annotations

from collections.abc import Iterator

from bench.replay_brain import answered_correctly, classify, facts_in, ideal_summary, recall_answer
from bench.replay_report import percentile
from bench.replay_script import FACTS, build_script, page_body, turn_index
from bench.replay_servers import BenchAccounting, PartTokens, ServerClock
from domain.context.flush import FLUSH_PROMPT
from domain.context.prompts import SUMMARIZER_SYSTEM, checkpoint_prompt
from domain.usecases.generate_title import TITLE_SYSTEM
from tests.fakeservers.brain import NormalizedMessage, NormalizedRequest, TextPart


def _request(system: str, *texts: str) -> NormalizedRequest:
    messages = tuple(NormalizedMessage("user", (TextPart(t),)) for t in texts)
    return NormalizedRequest("anthropic", "m", system, messages, (), 100, True, {})


def test_the_script_is_the_same_for_the_same_seed_and_differs_for_another() -> None:
    assert build_script(60, seed=3) == build_script(60, seed=3)
    assert build_script(60, seed=3) != build_script(60, seed=4)


def test_the_script_states_facts_early_mixes_the_middle_and_asks_every_fact_back_at_the_end() -> None:
    script = build_script(200)
    kinds = [t.kind for t in script.turns]
    assert len(script.turns) == 200
    assert {"chat", "cjk", "json", "code", "tool"} <= set(kinds)
    stated = [t for t in script.turns if t.kind == "fact"]
    asked = [t for t in script.turns if t.kind == "recall"]
    assert [t.fact_key for t in stated] == [t.fact_key for t in asked] == [k for k, _ in FACTS]
    assert max(t.index for t in stated) < 50 and min(t.index for t in asked) > 180
    assert [turn_index(t.user_text) for t in script.turns] == list(range(1, 201))


def test_pages_have_the_requested_size_and_are_deterministic() -> None:
    for kind in ("log", "json", "doc", "csv"):
        body, content_type = page_body(f"/page/5/{kind}/20000")
        assert 19_000 <= len(body) <= 20_010
        assert page_body(f"/page/5/{kind}/20000") == (body, content_type)


def test_tool_pages_range_from_20_to_200_kilobytes() -> None:
    sizes = [int(t.page_path.rsplit("/", 1)[1]) for t in build_script(200).turns if t.page_path]
    assert sizes and min(sizes) >= 20_000 and max(sizes) <= 200_000


def test_ideal_summary_keeps_every_fact_line_of_the_prompt_including_the_previous_summary() -> None:
    previous = ideal_summary("FACT: release codename = ORCHID-42")
    prompt = f"<existing_summary>\n{previous}\n</existing_summary>\n[User]\n[t009] x\nFACT: deploy region = eu-north-1"
    summary = ideal_summary(prompt)
    assert facts_in(summary) == {"release codename": "ORCHID-42", "deploy region": "eu-north-1"}
    assert "## Critical Context" in summary and "## Goal" in summary


def test_requests_are_classified_by_their_system_prompt_or_the_flush_notice() -> None:
    assert classify(_request(SUMMARIZER_SYSTEM, checkpoint_prompt("x"))) == "summary"
    assert classify(_request(TITLE_SYSTEM, "title please")) == "title"
    assert classify(_request("You are helpful.", "[t001] hi", FLUSH_PROMPT)) == "flush"
    assert classify(_request("You are helpful.", "[t001] hi")) == "chat"


def test_recall_answers_from_what_the_request_shows_or_admits_not_knowing() -> None:
    turn = next(t for t in build_script(40).turns if t.kind == "recall")
    shown = recall_answer(turn, f"summary...\nFACT: {turn.fact_key} = {turn.fact_value}\n")
    assert answered_correctly(turn, shown)
    assert not answered_correctly(turn, recall_answer(turn, "nothing about it"))


def test_cache_reads_are_the_prefix_shared_with_the_previous_request_to_the_same_model() -> None:
    billing = BenchAccounting()
    billing.setup_bench(PartTokens(), ServerClock())
    parts = ["system:" + "be brief. " * 50, "tools:", "user:hello there", "assistant:hi"]
    counts = [billing.tokens.count(p) for p in parts]
    assert billing._cached(parts, counts, None) == 0
    grown = [*parts, "user:and more"]
    whole = sum(counts) + len(parts) - 1
    assert billing._cached(grown, [billing.tokens.count(p) for p in grown], (parts, counts)) == whole
    changed = ["system:" + "be brief. " * 25 + "and kind", *parts[1:]]
    assert 0 < billing._cached(changed, [billing.tokens.count(p) for p in changed], (parts, counts)) < counts[0] * 0.6


def test_percentile_interpolates_between_ranks() -> None:
    assert percentile([], 95) == 0.0
    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0], 50) == 3.0
    assert percentile([0.0, 10.0], 95) == 9.5


def test_the_server_clock_counts_a_requests_whole_handling_in_cpu_time_including_the_streamed_writes() -> None:
    import time
    import urllib.request

    from tests.fakeservers.server import FakeProviderServer, HttpResponse, RawRequest

    def busy_chunks() -> Iterator[bytes]:
        for _ in range(4):  # 4 x 10 ms of CPU while the reply streams
            until = time.thread_time() + 0.01
            while time.thread_time() < until:
                pass
            yield b"data: {}\n\n"

    handled_seconds: list[float] = []

    class Streaming(FakeProviderServer):
        def route(self, raw: RawRequest) -> HttpResponse:
            time.sleep(0.05)  # waiting is not server CPU
            return HttpResponse(headers={"content-type": "text/event-stream"}, chunks=busy_chunks())

        def handled(self, cpu_seconds: float) -> None:
            handled_seconds.append(cpu_seconds)

    with Streaming() as server:
        with urllib.request.urlopen(urllib.request.Request(server.base_url + "/x", data=b"{}")) as response:
            assert response.read().count(b"data:") == 4
        deadline = time.monotonic() + 5
        while not handled_seconds and time.monotonic() < deadline:
            time.sleep(0.01)
    assert len(handled_seconds) == 1
    assert 0.04 <= handled_seconds[0] < 0.05 + 0.04  # the streamed chunks' CPU, not the 50 ms sleep
