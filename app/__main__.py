"""`python -m app` runs the `palimpsest` command."""

from app.main import cli

cli()
