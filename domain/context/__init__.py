"""Context management: estimation, truncation, pruning, request building, compaction decisions."""
