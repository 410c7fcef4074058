"""SQLite storage: engine, typed rows, mappers and repositories."""
