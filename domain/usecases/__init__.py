"""Use cases: one class per file, one public entry point each."""
