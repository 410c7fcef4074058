"""Documents read on demand: extraction into passages, the FTS5 index, the attachment cards, knowledge folders."""
