"""Palimpsest's domain: entities, ports, errors and use cases, free of any framework."""
