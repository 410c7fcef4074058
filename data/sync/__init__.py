"""Sync adapters: the local replica over SQLite, remotes (folder, WebDAV, S3), encryption, settings."""
