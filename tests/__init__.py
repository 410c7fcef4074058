"""Palimpsest's tests; `python -m tests` runs every check and then the test suite."""
