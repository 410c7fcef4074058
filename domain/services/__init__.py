"""Domain services: port implementations built only from other ports (no I/O of their own)."""
