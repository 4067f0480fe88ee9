"""The hall page's live feed: ``GET /api/hall/stream``, as Server-Sent Events.

A page that connects gets the whole hall at once (``{"full": true, ...}``, the
:meth:`~companion.hall.gatherer.Gatherer.snapshot`), then, every :data:`TICK`
seconds in which something changed, only the boards that changed
(``{"full": false, "now", "connected", "boards": [...]}``, from
:meth:`~companion.hall.gatherer.Gatherer.changes`). Each message is encoded once
for every page: the hall's work grows with what happens, not with who watches.

A page that falls :data:`MAX_BEHIND` messages behind (a phone on a bad network)
is dropped rather than let its queue grow; its browser's ``EventSource``
reconnects by itself (``retry``) and gets the whole hall again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from typing import Any

from .gatherer import Gatherer

#: Seconds between two looks for changes: the most a change waits before it is sent.
TICK = 0.1
#: Seconds of silence after which a comment line keeps proxies from closing the stream.
KEEPALIVE = 15.0
#: Messages a page may have waiting before it is dropped.
MAX_BEHIND = 100
#: Milliseconds a browser waits before it reconnects.
RETRY_MS = 2000


def encode(message: dict[str, Any]) -> bytes:
    """One SSE message.

    >>> encode({"full": False, "boards": []})
    b'data: {"full":false,"boards":[]}\\n\\n'
    """
    return b"data: " + json.dumps(message, separators=(",", ":")).encode() + b"\n\n"


class HallStream:
    """Every open page of the hall, fed from one task in the server's event loop."""

    def __init__(self, gatherer: Gatherer, tick: float = TICK) -> None:
        self.gatherer = gatherer
        self.tick = tick
        self._pages: set[asyncio.Queue[bytes | None]] = set()
        self._task: asyncio.Task[None] | None = None
        self.dropped = 0
        """Pages dropped for falling behind."""

    @property
    def pages(self) -> int:
        return len(self._pages)

    def subscribe(self) -> asyncio.Queue[bytes | None]:
        """A new page: its queue, holding the whole hall as it stands now (what changes
        after this is in the next message to every page)."""
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="hall-stream")
        page: asyncio.Queue[bytes | None] = asyncio.Queue(MAX_BEHIND)
        full = {"full": True, **self.gatherer.snapshot()}
        page.put_nowait(f"retry: {RETRY_MS}\n".encode() + encode(full))
        self._pages.add(page)
        return page

    async def feed(self, page: asyncio.Queue[bytes | None]) -> AsyncIterator[bytes]:
        """What one page is sent, until it goes or is dropped."""
        try:
            while (message := await page.get()) is not None:
                yield message
        finally:
            self._pages.discard(page)

    async def close(self) -> None:
        for page in list(self._pages):
            self._drop(page)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def _drop(self, page: asyncio.Queue[bytes | None]) -> None:
        self._pages.discard(page)
        while not page.empty():
            page.get_nowait()
        page.put_nowait(None)

    def step(self, connected: bool | None) -> tuple[bytes | None, bool]:
        """The message for this tick, if any (and the hall's broker link as sent)."""
        boards = self.gatherer.changes()
        now_connected = self.gatherer.connected
        if not boards and now_connected == connected:
            return None, now_connected
        message = {"full": False, "now": time.time(), "connected": now_connected}
        return encode({**message, "boards": boards}), now_connected

    async def _run(self) -> None:
        connected: bool | None = self.gatherer.connected
        sent = time.monotonic()
        while True:
            await asyncio.sleep(self.tick)
            message, connected = self.step(connected)
            if message is None:
                if time.monotonic() - sent < KEEPALIVE:
                    continue
                message = b": keepalive\n\n"
            sent = time.monotonic()
            for page in list(self._pages):
                try:
                    page.put_nowait(message)
                except asyncio.QueueFull:
                    self._drop(page)
                    self.dropped += 1
