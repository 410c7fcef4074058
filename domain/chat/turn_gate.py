"""TurnGate: one turn at a time per conversation, across processes, through a lease renewed while the turn runs."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator
from contextlib import aclosing, asynccontextmanager, contextmanager
from datetime import datetime, timedelta

from domain.chat.records import IdFactory, new_uuid
from domain.chat.turn import chat_error
from domain.errors import ConversationBusy, PalimpsestError
from domain.events import ChatEvent, Notice
from domain.models import SessionId
from domain.ports import Clock, TurnLease, TurnLeases

log = logging.getLogger(__name__)

LEASE_SECONDS = 30.0  # a turn's lease lasts this long unless renewed: how long a dead owner on another machine blocks
RENEW_SECONDS = 5.0  # renewed this often while the turn runs (streaming, tools, upkeep)
POLL_SECONDS = 0.2  # a waiting sender looks again this often


def busy_message(lease: TurnLease, *, action: str = "") -> str:
    """Words for the turn in the way: what to do (`action`), else send again or queue (chat --wait)."""
    then = f"{action} when it is done." if action else "Send again when it is done, or queue behind it (chat --wait)."
    since = f"{lease.acquired_at:%H:%M:%S} UTC"
    doing = "waiting to run" if lease.waiting else "running"
    return f"Another turn is {doing} in this conversation ({lease.holder}, since {since}). {then}"


def waiting_message(lease: TurnLease, *, then: str = "yours is sent right after it") -> str:
    """The notice of a sender (or of another change, `then` saying when it runs) that queues behind a turn."""
    return (f"Waiting for another turn in this conversation to finish ({lease.holder}, since "
            f"{lease.acquired_at:%H:%M:%S} UTC); {then}.")


class HeldTurn:
    """A lease this process holds: renewed in the background until released."""

    def __init__(self, gate: TurnGate, session_id: SessionId, owner: str) -> None:
        self._gate, self.session_id, self.owner = gate, session_id, owner
        self._renewing: asyncio.Task[None] | None = None
        self.lost = False  # the lease expired and another process took it (this loop was blocked too long)

    def keep_renewed(self) -> None:
        """Renews the lease every RENEW_SECONDS on the running loop until release()."""
        self._renewing = asyncio.get_running_loop().create_task(self._renew())

    async def _renew(self) -> None:
        while True:
            await asyncio.sleep(self._gate.renew_seconds)
            try:
                renewed = self._gate.leases.renew(self.session_id, self.owner, self._gate.expiry())
            except Exception:  # a busy store: tried again at the next beat (the lease has 30 s of slack)
                log.warning("could not renew the turn lease on session %s", self.session_id, exc_info=True)
                continue
            if not renewed:
                self.lost = True
                log.warning("the turn lease on session %s was taken over", self.session_id)
                return

    def release(self) -> None:
        """Stops renewing and frees the conversation for the next turn."""
        if self._renewing is not None:
            self._renewing.cancel()
        self._gate.leases.release(self.session_id, self.owner)


class TurnGate:
    """Takes a conversation's turn lease, or says who holds it; a waiting sender polls until it is free."""

    def __init__(
        self, leases: TurnLeases, clock: Clock, holder: str, *, host: str = "", pid: int = 0,
        lease_seconds: float = LEASE_SECONDS, renew_seconds: float = RENEW_SECONDS, poll_seconds: float = POLL_SECONDS,
        new_owner: IdFactory = new_uuid,
    ) -> None:
        """`holder`: words for people naming this process ("palimpsest chat, pid 4242"); `host` and `pid` let a
        process on the same machine see that the holder is gone."""
        self.leases, self._clock, self._holder, self._host, self._pid = leases, clock, holder, host, pid
        self.lease_seconds, self.renew_seconds, self.poll_seconds = lease_seconds, renew_seconds, poll_seconds
        self._new_owner = new_owner

    def expiry(self) -> datetime:
        """When a lease taken or renewed now expires."""
        return self._clock.now() + timedelta(seconds=self.lease_seconds)

    def new_owner(self) -> str:
        """A token naming one turn (its lease, its place in the line)."""
        return self._new_owner()

    def take(self, session_id: SessionId, *, owner: str | None = None, queue: bool = False) -> HeldTurn | TurnLease:
        """The turn (held: release it when done), or the lease or earlier waiter in the way; with `queue`, `owner`
        keeps its place in the line (first come first served). NotFound for an unknown session."""
        now = self._clock.now()
        owner = owner or self._new_owner()
        lease = TurnLease(session_id, owner, self._holder, now, now + timedelta(seconds=self.lease_seconds),
                          self._host, self._pid)
        blocker = self.leases.take(lease, now, queue=queue)
        return HeldTurn(self, session_id, owner) if blocker is None else blocker

    async def wait(self, session_id: SessionId, owner: str) -> HeldTurn:
        """Polls, keeping `owner`'s place in the line, until its turn comes (the turns before it finished, or died
        and their leases lapsed), then holds it; leaves the line when cancelled."""
        try:
            while True:
                got = self.take(session_id, owner=owner, queue=True)
                if isinstance(got, HeldTurn):
                    return got
                await asyncio.sleep(self.poll_seconds)
        except BaseException:
            self.leases.release(session_id, owner)
            raise

    @contextmanager
    def exclusive(self, session_id: SessionId, action: str) -> Iterator[None]:
        """Holds the conversation for a short change of its path (a checkout): ConversationBusy while a turn runs
        in it, and no turn starts until the block ends. Synchronous: nothing is renewed."""
        got = self.take(session_id)
        if not isinstance(got, HeldTurn):
            raise ConversationBusy(busy_message(got, action=action))
        try:
            yield
        finally:
            self.leases.release(session_id, got.owner)

    @asynccontextmanager
    async def held(self, session_id: SessionId, action: str, *, wait: bool = False,
                   on_wait: Callable[[str], None] | None = None) -> AsyncIterator[None]:
        """Holds the conversation, the lease renewed, for a longer change made outside a turn (a compaction): while
        a turn runs in it, ConversationBusy naming `action`, or with `wait` in line behind it (`on_wait` is told
        why first)."""
        owner = self.new_owner()
        got = self.take(session_id, owner=owner, queue=wait)
        if not isinstance(got, HeldTurn):
            if not wait:
                raise ConversationBusy(busy_message(got, action=action))
            try:
                if on_wait is not None:
                    on_wait(waiting_message(got, then="yours starts right after it"))
            except BaseException:
                self.leases.release(session_id, owner)
                raise
            got = await self.wait(session_id, owner)
        got.keep_renewed()
        try:
            yield
        finally:
            got.release()


async def one_at_a_time(
    gate: TurnGate, session_id: SessionId, turn: AsyncGenerator[ChatEvent, None], *, wait: bool
) -> AsyncGenerator[ChatEvent, None]:
    """Runs `turn` holding the conversation, the lease renewed until it ends. While another turn runs in it (or
    waits in line before this one) the turn is refused (ConversationBusy, nothing of it stored) or, with `wait`,
    queued with a Notice, and another Notice with the seconds waited when it goes."""
    owner = gate.new_owner()
    try:
        got = gate.take(session_id, owner=owner, queue=wait)
    except PalimpsestError as err:
        yield chat_error(err)
        return
    waited = None
    if not isinstance(got, HeldTurn):
        if not wait:
            yield chat_error(ConversationBusy(busy_message(got)))
            return
        try:
            yield Notice(waiting_message(got))
        except BaseException:  # closed while told to wait: leave the line
            gate.leases.release(session_id, owner)
            raise
        started = asyncio.get_running_loop().time()
        got = await gate.wait(session_id, owner)
        waited = asyncio.get_running_loop().time() - started
    got.keep_renewed()
    try:
        if waited is not None:
            yield Notice(f"The other turn is done (waited {waited:.1f} s); sending yours now.")
        async with aclosing(turn) as events:
            async for event in events:
                yield event
    finally:
        got.release()
