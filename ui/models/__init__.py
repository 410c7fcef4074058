"""Qt item models for long lists (chat rows, sessions), fed from view-model state."""
