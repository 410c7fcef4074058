"""A local server's real window reaches the turn (recorded, warned about when short of the trained length); a
reported prompt far below a comparable estimate is a sign of a silent cut: one sign changes nothing, a second at
the same size sets a window guessed from usage (warned once, never calibrated)."""

from __future__ import annotations

from domain.chat.provider_numbers import confirmed, cut_sign
from domain.chat.request import PlannedRequest
from domain.context.builder import BuiltRequest
from domain.context.estimator import RequestSize, calibration_key
from domain.events import Notice
from domain.models import ServerWindow, WindowSource
from domain.provider_rules import CutSign
from tests.fakes_turn import make_world, reply


def _planned(estimate: int, ruled: int = 0) -> PlannedRequest:
    return PlannedRequest(BuiltRequest(None, []), estimate, RequestSize(estimate, 0, ruled), 1024)


def test_a_cut_sign_needs_a_large_comparable_request_and_a_report_below_60_percent():
    assert cut_sign(4_000, _planned(30_000)) == CutSign(4_000, 30_000)
    assert cut_sign(20_000, _planned(30_000)) is None  # 67%: a plain estimation error
    assert cut_sign(1_000, _planned(7_000)) is None  # too small to tell
    assert cut_sign(0, _planned(30_000)) is None  # no report at all
    # a PDF priced by a published rule can be off by half: such a request is never compared
    assert cut_sign(55_283, _planned(108_994, ruled=100_000)) is None


def test_a_second_sign_confirms_the_first_only_when_the_server_read_about_the_same_amount():
    assert confirmed(CutSign(4_000, 30_000), CutSign(4_090, 41_000))
    assert not confirmed(CutSign(4_000, 30_000), CutSign(9_000, 41_000))
    assert not confirmed(None, CutSign(4_000, 30_000))


async def test_a_short_server_window_is_recorded_and_warned_about_before_the_request():
    world = make_world()
    world.adapter().server_windows["claude-big"] = ServerWindow("Ollama", 4_096, 131_072)
    world.adapter().scripts.extend([reply("ok", input_tokens=40), reply("")])  # the reply, then a memory flush
    events = await world.turn("Hello")
    [warning] = [e for e in events if isinstance(e, Notice)]
    assert warning.warning and "4,096-token context" in warning.message and "num_ctx" in warning.message
    model = world.models.get("anthropic", "claude-big")
    assert (model.context_window_size, model.window_source, model.trained_window) == (4_096, WindowSource.SERVER,
                                                                                     131_072)
    status = world.status("s1")
    assert any("4,096-token context" in w for w in status.warnings)
    assert status.window == 4_096 and status.threshold == int(4_096 * 0.85)


async def test_a_server_window_as_large_as_the_trained_one_is_recorded_without_a_warning():
    world = make_world()
    world.adapter().server_windows["claude-big"] = ServerWindow("vLLM", 32_768, None)
    world.adapter().scripts.append(reply("ok", input_tokens=40))
    events = await world.turn("Hello")
    assert not [e for e in events if isinstance(e, Notice)]
    assert world.models.get("anthropic", "claude-big").context_window_size == 32_768


async def test_one_short_report_changes_nothing_and_a_second_at_the_same_size_sets_a_guessed_window():
    world = make_world(summaries=("Summary: tide tables.",))
    big = "The tide table for berth seven, noted carefully. " * 1_200  # about 15K tokens estimated
    world.adapter().scripts.append(reply("ok", input_tokens=3_900))
    events = await world.turn(big)
    assert not [e for e in events if isinstance(e, Notice) and e.warning]  # one request is no evidence
    model = world.models.get("anthropic", "claude-big")
    assert model.window_source is WindowSource.REGISTRY and model.context_window_size == 200_000
    key = calibration_key("anthropic", "claude-big")
    assert world.calibration.get(key) is None  # a request that may have been cut teaches no ratio
    assert world.evidence.last(key) == CutSign(3_900, world.evidence.last(key).estimate)
    world.adapter().scripts.extend([reply("ok", input_tokens=3_950), reply("")])  # the reply, then a memory flush
    events = await world.turn("And the next high tide?")
    warnings = [e for e in events if isinstance(e, Notice) and e.warning]
    assert len(warnings) == 1 and "twice in a row" in warnings[0].message
    assert "guessed from the server's reported usage" in warnings[0].message
    assert warnings[0].guessed_window_of == "claude-big" and "palimpsest" not in warnings[0].message
    model = world.models.get("anthropic", "claude-big")
    assert model.context_window_size == 3_950 and model.window_source is WindowSource.GUESSED
    assert world.calibration.get(key) is None and world.evidence.last(key) is None


async def test_a_request_read_whole_forgets_an_earlier_sign():
    world = make_world()
    big = "The tide table for berth seven, noted carefully. " * 1_200
    world.adapter().scripts.append(reply("ok", input_tokens=3_900))
    await world.turn(big)
    key = calibration_key("anthropic", "claude-big")
    assert world.evidence.last(key) is not None
    world.adapter().scripts.append(reply("ok", input_tokens=16_000))  # the whole conversation was read
    await world.turn("Thanks.")
    assert world.evidence.last(key) is None
    assert world.models.get("anthropic", "claude-big").window_source is WindowSource.REGISTRY


async def test_a_listed_window_is_recorded_as_the_providers_with_its_input_limit():
    world = make_world()
    world.adapter().server_windows["claude-big"] = ServerWindow("LiteLLM", 96_000, None, WindowSource.PROVIDER_API,
                                                                input_limit=96_000)
    world.adapter().scripts.append(reply("ok", input_tokens=40))
    events = await world.turn("Hello")
    assert not [e for e in events if isinstance(e, Notice)]
    model = world.models.get("anthropic", "claude-big")
    assert (model.context_window_size, model.window_source, model.input_limit) == (96_000,
                                                                                   WindowSource.PROVIDER_API, 96_000)


async def test_a_listed_window_never_replaces_the_users():
    world = make_world()
    world.models.set_user_window("anthropic", "claude-big", 50_000)
    world.adapter().server_windows["claude-big"] = ServerWindow("Groq", 131_072, None, WindowSource.PROVIDER_API)
    world.adapter().scripts.append(reply("ok", input_tokens=40))
    await world.turn("Hello")
    model = world.models.get("anthropic", "claude-big")
    assert (model.context_window_size, model.window_source) == (50_000, WindowSource.USER)
