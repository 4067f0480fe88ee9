"""The broadcast hub: one board's messages, fanned out to every connected page.

Each WebSocket client gets a :class:`Subscriber` with its own bounded queue;
:meth:`Hub.publish` serialises a message once and puts the same text in every
queue, so 200 spectators cost 200 queue appends, not 200 ``json.dumps``. A
client too slow to keep up (its queue full) is dropped rather than letting
the server's memory grow without bound; the page reconnects and gets the
whole state again.

Each board of the service publishes to its own hub; the WebSocket router
(:mod:`dashboard.routers.ws`) subscribes the pages. Everything here runs on the
event-loop thread.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

Role = Literal["referee", "spectator", "player", "overlay", "teaching"]
"""Who a page is for (``/ws/board/{b}?role=…``): only a referee's page may send commands."""
ROLES: tuple[Role, ...] = ("referee", "spectator", "player", "overlay", "teaching")


def role_named(text: str) -> Role | None:
    """The role called ``text``; None when there is none of that name."""
    for role in ROLES:
        if role == text:
            return role
    return None


#: Messages a client may lag behind before it is dropped.
QUEUE_LIMIT = 5000


@dataclass(eq=False)
class Subscriber:
    """One connected page."""

    role: Role
    queue: asyncio.Queue[str] = field(default_factory=lambda: asyncio.Queue(QUEUE_LIMIT))
    dropped: bool = False


class Hub:
    """Subscribers of one board."""

    def __init__(self) -> None:
        self._subs: set[Subscriber] = set()
        self.published = 0

    def subscribe(self, role: Role) -> Subscriber:
        sub = Subscriber(role)
        self._subs.add(sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        self._subs.discard(sub)

    @property
    def count(self) -> int:
        return len(self._subs)

    def backlog(self) -> int:
        """Messages queued but not yet sent, over all subscribers."""
        return sum(sub.queue.qsize() for sub in self._subs)

    async def drained(self, timeout: float) -> None:
        """Wait (at most ``timeout`` s) until every subscriber's queue is empty.

        The board calls this after publishing, so that sending to pages goes
        before reading the next observation: latency to spectators stays low
        while observations, which lose nothing by waiting, queue up.
        """
        deadline = time.monotonic() + timeout
        while self.backlog() and time.monotonic() < deadline:
            await asyncio.sleep(0.001)

    @staticmethod
    def encode(message: dict[str, Any]) -> str:
        """The text sent for ``message``, stamped with the broadcast time."""
        return json.dumps({**message, "server_time": time.time()}, separators=(",", ":"))

    def publish(
        self, message: dict[str, Any], accept: Callable[[Subscriber], bool] | None = None
    ) -> None:
        """Send ``message`` to every subscriber (those ``accept`` allows, if given)."""
        text = self.encode(message)
        self.published += 1
        for sub in list(self._subs):
            if accept is not None and not accept(sub):
                continue
            try:
                sub.queue.put_nowait(text)
            except asyncio.QueueFull:
                sub.dropped = True
                self._subs.discard(sub)
                # wake the sender so it notices and closes the connection
                _clear_and_mark(sub.queue)


def _clear_and_mark(queue: asyncio.Queue[str]) -> None:
    while not queue.empty():
        queue.get_nowait()
    queue.put_nowait("")  # an empty text means: you were dropped
