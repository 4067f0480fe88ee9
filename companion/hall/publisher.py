"""``serve --publish``: each board's session log, published to the hall's broker.

The log is the source of truth, so the publisher reads it and nothing else: a
thread tails each board's log (its whole lines, as the service's recorder wrote
them; only the header and the events are parsed), numbers its events by their
place in the log (``seq`` 0, 1, 2, ...), and publishes them in order with QoS 1
on a persistent session. The board itself is not touched.

The publisher's place is the last event the broker acknowledged (PUBACK) with
every earlier one acknowledged too. When the connection drops, it goes back to
that place and, once the broker is back, sends everything after it in order:
the broker may get an event twice (the client's own resend of what was in
flight, then ours), never miss one; the hall drops duplicates by ``seq``. The
place is also kept next to the log (``LOG.hall``) so a restarted service does
not send the whole session again.

After the events it has sent, the publisher sends the board's summary (retained:
a hall that starts late sees every board at once), and again every
:data:`STATE_EVERY` seconds, so the hall can tell a quiet board from a lost one.
The summary also carries the one line that says why the service does not hear its
board (``problem``: an unplugged sensor board, a camera counting too unsurely), the
only thing published that is not in the log: a quiet board and an unheard one look
the same in the log. It is sent again as soon as it changes.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.referee.session import line_kind

from .broker import BrokerAddress, make_client
from .summary import BoardSummary

log = logging.getLogger(__name__)

#: Seconds between two looks at the logs.
POLL = 0.05
#: Events sent and not yet acknowledged, at most.
WINDOW = 200
#: Seconds between two summaries of a board with nothing new.
STATE_EVERY = 5.0
#: Seconds a game's record sent with the summary may be behind it (made again at most
#: this often: it is made from the whole game, and only the round's OGN uses it).
RECORD_EVERY = 1.0


class BoardPublisher:
    """One board's log to the broker, on a client of its own (``HALL-board-N``)."""

    def __init__(
        self,
        address: BrokerAddress,
        board: str,
        url: str,
        *,
        connect: bool = True,
        **client_options: Any,
    ) -> None:
        self.address = address
        self.board = board
        self.url = url
        self.path: Path | None = None
        self.offset = 0
        self.events: list[dict[str, Any]] = []
        self.read_at: list[float] = []
        self.summary: BoardSummary | None = None
        self.acked = -1
        """Every event up to this one was acknowledged by the broker."""
        self.next = 0
        """The next event to send."""
        self._done: set[int] = set()
        self._inflight: dict[int, int] = {}  # message id -> seq
        self._early: set[int] = set()
        self._generation = 0
        """Changes with every connection and loss: a send begun before it is forgotten."""
        self._lock = threading.Lock()
        self.connected = False
        self._state_sent = -2
        self._state_at = 0.0
        self.problem: str | None = None
        """Why the service does not hear the board, one line (None: it is heard)."""
        self._problem_sent: str | None = None
        self._record: tuple[int, dict[str, Any]] | None = None
        """The last record made: (the event it was made after, the record)."""
        self._record_at = 0.0
        self._size = -1
        """The log's size at the last look (an unchanged log is not read again)."""
        self.sent = 0
        self.client = make_client(address, f"{address.hall}-board-{board}", **client_options)
        self.client.will_set(self._topic("online"), "0", qos=1, retain=True)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_publish = self._on_publish
        if connect:
            self.client.connect_async(address.host, address.port, keepalive=10)
            self.client.loop_start()

    def _topic(self, leaf: str) -> str:
        return self.address.board_topic(self.board, leaf)

    # -- the broker's side (paho's thread) ---------------------------------------------------
    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if getattr(reason, "is_failure", False):
            log.warning("hall: board %s: broker refused: %s", self.board, reason)
            return
        with self._lock:
            self.connected = True
            self._generation += 1
            self._inflight.clear()
            self._early.clear()
            self.next = self.acked + 1  # from our place, in order
            self._state_sent = -2
        client.publish(self._topic("online"), "1", qos=1, retain=True)
        log.info("hall: board %s connected to %s", self.board, self.address.shown)

    def _on_disconnect(
        self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any
    ) -> None:
        with self._lock:
            if self.connected:
                log.warning("hall: board %s lost the broker (%s)", self.board, reason)
            self.connected = False
            self._generation += 1
            self._inflight.clear()
            self._early.clear()
            self.next = self.acked + 1

    def _on_publish(self, client: Any, userdata: Any, mid: int, reason: Any, props: Any) -> None:
        with self._lock:
            seq = self._inflight.pop(mid, None)
            if seq is None:  # acknowledged before send() noted it
                self._early.add(mid)
                return
            self._acked_one(seq)

    def _acked_one(self, seq: int) -> None:
        self._done.add(seq)
        while self.acked + 1 in self._done:
            self._done.discard(self.acked + 1)
            self.acked += 1

    # -- the log's side (the publisher's thread) -------------------------------------------------
    def follow(self, path: Path) -> None:
        """Publish the log at ``path`` (the board's session)."""
        if self.path == path:
            return
        self.path = path
        self.offset = 0
        self.events, self.read_at, self.summary = [], [], None
        self._record, self._size = None, -1
        with self._lock:
            self.acked, self.next, self._done = self._saved_place(), 0, set()
            self.next = self.acked + 1

    def _place_file(self) -> Path:
        assert self.path is not None
        return self.path.with_name(self.path.name + ".hall")

    def _saved_place(self) -> int:
        try:
            saved = json.loads(self._place_file().read_text())
            return int(saved["acked"]) if saved.get("hall") == self.address.hall else -1
        except (OSError, ValueError, KeyError, TypeError):
            return -1

    def save_place(self) -> None:
        if self.path is not None:
            with contextlib.suppress(OSError):
                self._place_file().write_text(
                    json.dumps({"hall": self.address.hall, "acked": self.acked})
                )

    def read(self) -> None:
        """The lines the board wrote since the last look (whole lines only: a line
        being written is read at the next look)."""
        if self.path is None:
            return
        try:
            size = self.path.stat().st_size
            if size == self._size:
                return  # most looks, between two readings: nothing to parse
            self._size = size
            with self.path.open("rb") as fh:
                fh.seek(self.offset)
                data = fh.read()
        except OSError:
            return
        end = data.rfind(b"\n") + 1
        now = time.time()
        raws = data[:end].split(b"\n")[:-1]
        for raw in raws:
            # only the header and the events are published: the readings between them
            # (most of the log, and most of its bytes) are not parsed at all
            if b'"type"' not in raw and b'"format"' not in raw:
                continue
            try:
                line = json.loads(raw)
            except (ValueError, RecursionError):
                continue  # a damaged line (the service's own replay reports it)
            if not isinstance(line, dict):
                continue
            if self.summary is None and "format" in line:
                self.summary = BoardSummary(line["start"])
                continue
            if line_kind(line) == "event" and self.summary is not None:
                self.events.append(line)
                self.read_at.append(now)
                self.summary.add(line, now)
        self.offset += end

    def send(self) -> None:
        """Events after our place, in order, while the window has room; then the summary."""
        if self.path is None or self.summary is None:
            return
        session = self.path.name
        with self._lock:
            # acknowledgements of what send() never numbered (summaries, paho's own resends)
            self._early.clear()
        while True:
            with self._lock:
                if not self.connected or self.next >= len(self.events):
                    break
                if len(self._inflight) >= WINDOW:
                    break
                seq, generation = self.next, self._generation
            payload = json.dumps(
                {
                    "board": self.board,
                    "session": session,
                    "seq": seq,
                    "at": self.read_at[seq],
                    "event": self.events[seq],
                },
                separators=(",", ":"),
            )
            # not under our lock: paho calls on_publish holding its own
            info = self.client.publish(self._topic("events"), payload, qos=1)
            with self._lock:
                if info.rc != 0 or generation != self._generation:
                    break  # the connection changed meanwhile: on_connect set our place
                if info.mid in self._early:
                    self._early.discard(info.mid)
                    self._acked_one(seq)
                else:
                    self._inflight[info.mid] = seq
                self.next = seq + 1
                self.sent += 1
        with self._lock:
            sent_to = self.next - 1
            due = (
                sent_to != self._state_sent
                or self.problem != self._problem_sent
                or time.monotonic() - self._state_at > STATE_EVERY
            )
            if not self.connected or not due:
                return
            self._state_sent = sent_to
            self._problem_sent = self.problem
            self._state_at = time.monotonic()
        self.client.publish(self._topic("state"), json.dumps(self.state(sent_to)), 1, True)

    def state(self, upto: int) -> dict[str, Any]:
        """The summary after event ``upto`` (the last one sent): never ahead of the events."""
        assert self.path is not None and self.summary is not None
        summary = self.summary
        if upto != summary.seq:  # rebuild it as it stood then
            summary = BoardSummary(summary.session_start.to_json())
            for event, at in zip(self.events[: upto + 1], self.read_at, strict=False):
                summary.add(event, at)
        return {
            "board": self.board,
            "session": self.path.name,
            "url": self.url,
            "sent_at": time.time(),
            "summary": summary.to_json(),
            "record": self._record_upto(upto, summary),
            "problem": self.problem,
        }

    def _record_upto(self, upto: int, summary: BoardSummary) -> dict[str, Any]:
        """The game's record after event ``upto``, or the one made less than
        :data:`RECORD_EVERY` seconds ago (never ahead of ``upto``)."""
        made = self._record
        fresh = time.monotonic() - self._record_at < RECORD_EVERY
        if made is None or made[0] > upto or (made[0] < upto and not fresh):
            made = self._record = (upto, summary.record())
            self._record_at = time.monotonic()
        return made[1]

    def close(self) -> None:
        self.save_place()
        if self.connected:  # a clean stop says so (the will only speaks for a lost client)
            self.client.publish(self._topic("online"), "0", qos=1, retain=True).wait_for_publish(1)
        self.client.disconnect()
        self.client.loop_stop()


class Publisher:
    """Every board of a service, published from one thread.

    ``boards()`` gives, each time it is asked, ``(board, log path or None)`` for
    every board (a board still resuming its log has none yet); ``problems(board)``
    why the service does not hear that board, one line, or None.
    """

    def __init__(
        self,
        address: BrokerAddress,
        boards: Callable[[], list[tuple[str, Path | None]]],
        urls: Callable[[str], str],
        *,
        hall_number: Callable[[str], str] = lambda board: board,
        problems: Callable[[str], str | None] = lambda board: None,
        **client_options: Any,
    ) -> None:
        self.address = address
        self._boards = boards
        self._problems = problems
        self._urls = urls
        self._number = hall_number
        self._options = client_options
        self.publishers: dict[str, BoardPublisher] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="hall-publisher", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        saved = time.monotonic()
        while not self._stop.is_set():
            try:
                self.step()
            except Exception:  # the boards go on whatever happens here
                log.exception("hall: publisher step failed")
            if time.monotonic() - saved > 1.0:
                saved = time.monotonic()
                for pub in self.publishers.values():
                    pub.save_place()
            self._stop.wait(POLL)

    def step(self) -> None:
        for board, path in self._boards():
            if path is None:
                continue
            pub = self.publishers.get(board)
            if pub is None:
                number = self._number(board)
                pub = BoardPublisher(self.address, number, self._urls(board), **self._options)
                self.publishers[board] = pub
            pub.follow(path)
            pub.problem = self._problems(board)
            pub.read()
            pub.send()

    def stop(self, timeout: float = 2.0) -> None:
        """Send what the logs hold (for at most ``timeout`` s), then disconnect."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        self.step()  # the lines written since the thread's last look (the service's last)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and any(
            p.connected and p.acked + 1 < len(p.events) for p in self.publishers.values()
        ):
            for pub in self.publishers.values():
                pub.read()
                pub.send()
            time.sleep(POLL)
        for pub in self.publishers.values():
            pub.close()


def service_publisher(
    address: BrokerAddress, service: Any, base: str, first: int, **client_options: Any
) -> Publisher:
    """A :class:`Publisher` of every board of a running ``Service`` (its logs as they open);
    the service's board ``k`` is the hall's board ``first + k - 1``."""

    def boards() -> list[tuple[str, Path | None]]:
        found: list[tuple[str, Path | None]] = []
        for board, runtime in list(service.boards.items()):
            session = getattr(runtime, "session", None)
            found.append((board, None if session is None else Path(session.path)))
        return found

    def problem(board: str) -> str | None:
        runtime = service.boards.get(board)
        return None if runtime is None else runtime.link_problem()

    return Publisher(
        address,
        boards,
        urls=lambda board: f"{base}/board/{board}",
        hall_number=lambda board: str(first + int(board) - 1),
        problems=problem,
        **client_options,
    )
