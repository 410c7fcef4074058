"""Sync between devices through storage the user already has: change records, a hybrid logical clock, merge rules."""
