"""A hybrid logical clock: wall milliseconds, a counter and the device id, as a string that sorts in time order."""

from __future__ import annotations

from dataclasses import dataclass

COUNTER_LIMIT = 99_999


@dataclass(frozen=True, order=True)
class Stamp:
    """One point of the clock; comparing two stamps orders them (the device id breaks ties)."""

    ms: int
    counter: int
    device: str

    def text(self) -> str:
        """The stamp as a string whose sort order is the stamps' order."""
        return f"{self.ms:013d}.{self.counter:05d}.{self.device}"

    @classmethod
    def parse(cls, text: str) -> Stamp:
        """Reads `text()` back; ValueError for anything else."""
        ms, counter, device = text.split(".", 2)
        return cls(int(ms), int(counter), device)


class HybridClock:
    """Issues stamps that never go backwards on this device and always pass every stamp it has seen."""

    def __init__(self, device: str, last: Stamp | None = None) -> None:
        self.device = device
        self.last = last or Stamp(0, 0, device)

    def tick(self, now_ms: int) -> Stamp:
        """A new stamp after every stamp issued or observed."""
        if now_ms > self.last.ms:
            stamp = Stamp(now_ms, 0, self.device)
        elif self.last.counter < COUNTER_LIMIT:
            stamp = Stamp(self.last.ms, self.last.counter + 1, self.device)
        else:
            stamp = Stamp(self.last.ms + 1, 0, self.device)
        self.last = stamp
        return stamp

    def issue(self, stamp: Stamp | None, now_ms: int) -> Stamp:
        """`stamp` when given (a change's own time; the clock moves past it), else a new stamp for now."""
        if stamp is None:
            return self.tick(now_ms)
        if stamp > self.last:
            self.last = stamp
        return stamp

    def observe(self, text: str) -> None:
        """Moves the clock past a stamp read from another device."""
        seen = Stamp.parse(text)
        if (seen.ms, seen.counter) > (self.last.ms, self.last.counter):
            self.last = Stamp(seen.ms, seen.counter, self.device)


def made_at(ms: int | None, device: str, synced: str | None) -> Stamp | None:
    """The stamp of a change this device made at `ms` (a wall time already past every stamp it had seen then), so
    the later edit wins however late it is sent; None when the time is unknown or not after the field's last synced
    stamp (`synced`): the change is then stamped when it is sent."""
    if ms is None:
        return None
    stamp = Stamp(ms, 0, device)
    if synced is not None and stamp.text() <= synced:
        return None
    return stamp
