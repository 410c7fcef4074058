"""BuiltinTools: provider-neutral JSON-schema definitions, filtering by enabled names, unknown tools."""

from __future__ import annotations

import json

from data.tools import BuiltinTools
from data.tools.executor import TOOL_NAMES
from domain.provider_ports import ToolContext
from tests.tools.fakes import FakeMemories, FakeMessages, FixedClock


def make_tools() -> BuiltinTools:
    return BuiltinTools(FakeMemories(), FakeMessages(), FixedClock())


def test_every_tool_has_a_json_schema_object_definition_with_its_required_fields() -> None:
    definitions = make_tools().definitions()
    assert [d.name for d in definitions] == list(TOOL_NAMES)
    for d in definitions:
        assert d.description
        schema = dict(d.parameters)
        assert schema["type"] == "object"
        assert set(schema["required"]) <= set(schema["properties"])
        json.dumps(schema)  # plain JSON, no provider types


def test_definitions_can_be_limited_to_the_enabled_tools() -> None:
    names = [d.name for d in make_tools().definitions(["read_tool_result", "save_memory", "no_such_tool"])]
    assert names == ["save_memory", "read_tool_result"]
    assert make_tools().definitions([]) == []


async def test_an_unknown_tool_is_an_error_outcome_listing_the_available_tools() -> None:
    outcome = await make_tools().execute("rm_rf", {}, ToolContext("s", None))
    assert outcome.is_error
    assert "rm_rf" in outcome.output and "http_request" in outcome.output


async def test_arguments_that_are_not_an_object_are_an_error_outcome() -> None:
    outcome = await make_tools().execute("save_memory", ["x"], ToolContext("s", None))  # type: ignore[arg-type]
    assert outcome.is_error and "JSON object" in outcome.output
