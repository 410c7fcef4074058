"""The MCP client: the official `mcp` SDK behind domain ports (no SDK type leaves this package)."""
