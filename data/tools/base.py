"""What every built-in tool shares: its definition, its run method, and argument checks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from domain.models import ToolDefinition
from domain.provider_ports import ToolContext, ToolOutcome


class ToolArgumentError(ValueError):
    """The model passed arguments a tool cannot accept; the message says which and why."""


class BuiltinTool(Protocol):
    """One tool: a provider-neutral definition and an async run."""

    definition: ToolDefinition

    async def run(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutcome: ...


def require_str(arguments: Mapping[str, Any], name: str, *, allow_empty: bool = False) -> str:
    """The string argument `name`, or a ToolArgumentError naming what is wrong."""
    value = arguments.get(name)
    if value is None:
        raise ToolArgumentError(f"Missing required argument {name!r}.")
    if not isinstance(value, str):
        raise ToolArgumentError(f"Argument {name!r} must be a string, got {type(value).__name__}.")
    if not allow_empty and not value.strip():
        raise ToolArgumentError(f"Argument {name!r} must not be empty.")
    return value


def optional_int(arguments: Mapping[str, Any], name: str, default: int, *, minimum: int, maximum: int) -> int:
    """The integer argument `name` (digit strings accepted), `default` when absent, checked against bounds."""
    value = arguments.get(name)
    if value is None:
        return default
    if isinstance(value, bool):
        raise ToolArgumentError(f"Argument {name!r} must be an integer, got a boolean.")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value.strip())
    if not isinstance(value, int):
        raise ToolArgumentError(f"Argument {name!r} must be an integer, got {type(value).__name__}.")
    if value < minimum or value > maximum:
        raise ToolArgumentError(f"Argument {name!r} must be between {minimum} and {maximum}, got {value}.")
    return value
