"""Unit tests of the domain layer, with the hand-written fakes of tests/fakes.py."""
