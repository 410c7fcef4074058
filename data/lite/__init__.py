"""Palimpsest's store over the standard library's sqlite3, for a one-command process that must start fast (no
SQLAlchemy): the storage ports one CLI chat turn uses, the same contract tests as data/db's repositories."""
