"""The headless `palimpsest` command line: argument parsing, commands and printers (no Qt on this path)."""
