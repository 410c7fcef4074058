"""Tests of the MCP client, tools in the turn loop and the `palimpsest mcp` commands."""
