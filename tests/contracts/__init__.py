"""Contract suites: every repository port, run against the in-memory fakes and the SQLite store alike."""
