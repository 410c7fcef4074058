"""View models: QtCore-only objects holding one immutable state each, emitted whole on every change."""
