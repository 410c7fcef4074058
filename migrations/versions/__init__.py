"""Revisions of the Palimpsest schema, oldest first (v0001 ... ); hand-written."""
