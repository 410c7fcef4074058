"""The chat screen's state as data: a sealed state, its events and the pure reducer between them (no Qt, no I/O)."""
