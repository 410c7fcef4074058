"""`palimpsest sessions context ID`: what the next request of a session would send, as the gauge shows it."""

from __future__ import annotations

from typing import Any

from domain.events import ContextStatus


def status_to_dict(status: ContextStatus) -> dict[str, Any]:
    """The CLI contract's JSON for `sessions context --json`."""
    b = status.breakdown
    return {
        "provider": status.provider_id, "model": status.model_id, "window": status.window,
        "input_limit": status.input_limit, "window_source": status.window_source, "used": status.used,
        "percent": status.percent, "threshold": status.threshold,
        "breakdown": {"system": b.system, "summary": b.summary, "messages": b.messages,
                      "tool_results": b.tool_results, "tool_definitions": b.tools,
                      "reasoning": b.reasoning, "attachments": b.attachments, "web_search": b.web_search},
        "warnings": list(status.warnings),
    }


def render_status(status: ContextStatus) -> str:
    """The same as plain text."""
    b = status.breakdown
    window = f"{status.window:,}" if status.window else "unknown"
    lines = [
        f"model: {status.provider_id or '-'}/{status.model_id or '-'}",
        f"window: {window} tokens ({status.window_source or 'unknown source'})"
        + (f", input limit {status.input_limit:,}" if status.input_limit else ""),
        f"next request: {status.used:,} tokens" + (f" ({status.percent:g}%)" if status.percent is not None else ""),
        f"compacts at: {status.threshold:,} tokens" if status.threshold else "compacts at: unknown",
        f"  system {b.system:,} · summary {b.summary:,} · messages {b.messages:,} · tool results "
        f"{b.tool_results:,} · tool definitions {b.tools:,} · reasoning sent back {b.reasoning:,} · attachments "
        f"{b.attachments:,}" + (f" · web search results {b.web_search:,}" if b.web_search else ""),
    ]
    lines += [f"warning: {w}" for w in status.warnings]
    lines += fixes(status)
    return "\n".join(lines)


def fixes(status: ContextStatus) -> list[str]:
    """The commands that act on the warnings, from the status's fields (the warnings name no command)."""
    out = []
    if status.model_id and status.provider_id and (status.window is None or status.window_is_guess):
        out.append(f"set the window with: palimpsest models add {status.provider_id} {status.model_id} "
                   "--context-window N")
    if status.breakdown.tools and status.warnings:
        out.append("turn an MCP server off for this conversation with: palimpsest mcp disable NAME --session ID")
    return out
