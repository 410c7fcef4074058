"""FakeUnitOfWork: the UnitOfWork port over the in-memory fakes, all-or-nothing by snapshot and restore."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import is_dataclass
from typing import Any


class FakeUnitOfWork:
    """`atomic()` snapshots the given fake repositories (a deep copy of each one's instance __dict__) and
    restores them in place if the block raises; a nested block joins the outer one (only the outermost block
    snapshots or restores). Links between fakes (a repository holding another one) are kept, never copied."""

    def __init__(self, *repositories: object) -> None:
        self.repositories = repositories
        self.depth = 0
        self.commits = 0
        self.rollbacks = 0
        self.snapshots = 0

    @contextmanager
    def atomic(self) -> Iterator[None]:
        if self.depth:
            self.depth += 1
            try:
                yield
            finally:
                self.depth -= 1
            return
        saved = self._snapshot()
        self.depth = 1
        try:
            yield
        except BaseException:
            self._restore(saved)
            self.rollbacks += 1
            raise
        else:
            self.commits += 1
        finally:
            self.depth = 0

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Reads of in-memory fakes are always consistent: nothing to do."""
        self.snapshots += 1
        yield

    def _snapshot(self) -> list[dict[str, Any]]:
        memo: dict[int, Any] = {id(repo): repo for repo in self.repositories}
        for repo in self.repositories:
            for value in vars(repo).values():
                if _is_link(value):
                    memo[id(value)] = value
        return [copy.deepcopy(vars(repo), memo) for repo in self.repositories]

    def _restore(self, saved: list[dict[str, Any]]) -> None:
        for repo, state in zip(self.repositories, saved, strict=True):
            vars(repo).clear()
            vars(repo).update(state)


def _is_link(value: object) -> bool:
    """Another object with state of its own (a linked fake, a clock), as opposed to data: containers, entities."""
    return hasattr(value, "__dict__") and not is_dataclass(value) and not isinstance(value, type)
