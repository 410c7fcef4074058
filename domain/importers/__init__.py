"""Readers of other clients' conversation exports (ChatGPT, Claude) and of Palimpsest's own JSON export."""
