"""Web searches are counted per model from the stored replies and priced per search from the registry."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from app.gui.pricing import price_of, session_cost
from data.storage import Storage
from domain.models import Message, MessageType, Session
from domain.usecases.session_usage import ModelTokens, SessionUsage, SessionUsageQuery
from domain.web import WebSearchRecord

AT = datetime(2026, 5, 1, tzinfo=UTC)
SONNET = "claude-sonnet-4-5"


def test_the_registry_prices_a_search_per_provider() -> None:
    price = price_of(SONNET)
    assert price is not None and price.web_search == 0.01


def test_searches_add_their_price_to_the_sessions_cost() -> None:
    tokens = (ModelTokens(SONNET, 1_000_000, 0),)
    plain = session_cost(SessionUsage(1_000_000, 0, 0, tokens))
    searched = session_cost(SessionUsage(1_000_000, 0, 0, tokens, ((SONNET, 3),)))
    assert plain is not None and searched is not None
    assert round(searched - plain, 6) == 0.03


def test_the_store_counts_the_searches_that_ran_per_model(tmp_path: Path) -> None:
    storage = Storage.open(tmp_path)
    try:
        storage.sessions.create(Session("s", "t", None, AT, AT))
        ran = WebSearchRecord(queries=("a", "b", "c"), errors=("max_uses_exceeded",))
        storage.messages.add(Message(id="m1", session_id="s", type=MessageType.AI_RESPONSE, content="x",
                                     created_at=AT, model_id=SONNET, input_tokens=10, output_tokens=5, web=ran))
        storage.messages.add(Message(id="m2", session_id="s", type=MessageType.AI_RESPONSE, content="y",
                                     created_at=AT, model_id=SONNET, input_tokens=10, output_tokens=5,
                                     web=WebSearchRecord(queries=("d",))))
        usage = SessionUsageQuery(storage.sessions, storage.messages)("s")
        assert usage.searches == ((SONNET, 3),)  # an error is not billed
    finally:
        storage.close()


def test_gemini_2_grounding_is_priced_per_grounded_prompt_and_gemini_3_per_search_query() -> None:
    # Google's pricing (as discuss.ai.google.dev answers and the pricing page transcript have it): Gemini 2.x
    # grounding $35 per 1,000 grounded prompts, however many queries one ran; Gemini 3 $14 per 1,000 queries
    flash, three = price_of("gemini-2.5-flash"), price_of("gemini-3-pro-preview")
    assert flash is not None and flash.web_search == 0.035
    assert three is not None and three.web_search == 0.014
    assert WebSearchRecord(queries=("a", "b", "c"), per_prompt=True).billed_searches == 1
    assert WebSearchRecord(queries=("a", "b", "c")).billed_searches == 3
    assert WebSearchRecord(queries=(), per_prompt=True).billed_searches == 0


def test_a_per_prompt_record_keeps_its_unit_through_storage() -> None:
    from domain.web import record_from_json, record_to_json

    stored = record_from_json(record_to_json(WebSearchRecord(queries=("a", "b"), per_prompt=True)))
    assert stored is not None and stored.per_prompt and stored.billed_searches == 1
