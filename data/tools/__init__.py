"""Built-in tools offered to the model: http_request, save_memory, search_memory, read_tool_result."""

from data.tools.executor import BuiltinTools

__all__ = ["BuiltinTools"]
