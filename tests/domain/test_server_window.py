"""A local server's real window reaches the turn (recorded, warned about when short of the trained length); a
reported prompt far below the estimate is silent truncation: warned once, learned as the window, never calibrated."""

from __future__ import annotations

from domain.chat.server_window import silently_truncated
from domain.context.estimator import calibration_key
from domain.events import Notice
from domain.models import ServerWindow, WindowSource
from tests.fakes_turn import make_world, reply


def test_silent_truncation_needs_a_large_request_and_a_report_below_60_percent():
    assert silently_truncated(4_000, 30_000)
    assert not silently_truncated(20_000, 30_000)  # 67%: a plain estimation error
    assert not silently_truncated(1_000, 7_000)  # too small to tell
    assert not silently_truncated(0, 30_000)  # no report at all


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


async def test_silent_truncation_is_warned_once_learned_as_the_window_and_never_calibrated():
    world = make_world(summaries=("Summary: tide tables.",))
    big = "The tide table for berth seven, noted carefully. " * 1_200  # about 15K tokens estimated
    world.adapter().scripts.extend([reply("ok", input_tokens=3_900), reply("")])  # the reply, then a memory flush
    events = await world.turn(big)
    warnings = [e for e in events if isinstance(e, Notice) and e.warning]
    assert len(warnings) == 1 and "read only 3,900 tokens" in warnings[0].message
    assert world.calibration.get(calibration_key("anthropic", "claude-big")) is None
    model = world.models.get("anthropic", "claude-big")
    assert model.context_window_size == 3_900 and model.window_source is WindowSource.LEARNED


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
