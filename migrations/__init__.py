"""migrations package."""
