"""Widgets: render the state they are given and call view-model verbs; no storage, no network."""
