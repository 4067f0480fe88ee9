"""Broker addresses and topics of a hall.

A hall is one topic prefix on one broker, given as ``mqtt://HOST[:PORT]/HALL``
(``mqtts://`` for TLS, default ports 1883 and 8883). Board ``N`` publishes under
``HALL/board/N/``:

* ``HALL/board/N/events``: every event of its session log, QoS 1, one message each:
  ``{"board", "session", "seq", "at", "event"}``; ``seq`` is the event's index among
  the log's events (0, 1, 2, ...), ``session`` the log's file name.
* ``HALL/board/N/state``: retained, QoS 1: the board's summary after event ``seq``
  (:class:`companion.hall.summary.BoardSummary`), its service URL and the game's record.
* ``HALL/board/N/online``: retained ``"1"`` while connected, ``"0"`` (the client's will)
  once the broker lost it.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

DEFAULT_PORTS = {"mqtt": 1883, "mqtts": 8883}


@dataclass(frozen=True)
class BrokerAddress:
    """Where a hall's messages go."""

    host: str
    port: int
    hall: str
    tls: bool = False
    username: str | None = None
    password: str | None = None

    def board_topic(self, board: str, leaf: str) -> str:
        return f"{self.hall}/board/{board}/{leaf}"

    @property
    def shown(self) -> str:
        scheme = "mqtts" if self.tls else "mqtt"
        return f"{scheme}://{self.host}:{self.port}/{self.hall}"


def parse_broker_url(url: str) -> BrokerAddress:
    """``mqtt://HOST[:PORT]/HALL`` (or ``mqtts://``, ``user:password@`` allowed).

    >>> parse_broker_url("mqtt://127.0.0.1:1884/club")
    BrokerAddress(host='127.0.0.1', port=1884, hall='club', tls=False, username=None, password=None)
    >>> parse_broker_url("mqtt://broker.local").port
    Traceback (most recent call last):
    ...
    ValueError: mqtt://broker.local: name the hall after the host (mqtt://HOST[:PORT]/HALL)
    """
    parts = urlsplit(url)
    if parts.scheme not in DEFAULT_PORTS:
        raise ValueError(f"{url}: a broker address starts with mqtt:// or mqtts://")
    hall = parts.path.strip("/")
    if not hall:
        raise ValueError(f"{url}: name the hall after the host (mqtt://HOST[:PORT]/HALL)")
    if any(c in hall for c in "+#/") or not parts.hostname:
        raise ValueError(f"{url}: the hall is one topic level without + or # after a host")
    try:
        port = parts.port or DEFAULT_PORTS[parts.scheme]
    except ValueError as exc:
        raise ValueError(f"{url}: {exc}") from None
    return BrokerAddress(
        host=parts.hostname,
        port=port,
        hall=hall,
        tls=parts.scheme == "mqtts",
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
    )


def make_client(
    address: BrokerAddress,
    client_id: str,
    *,
    ca_file: str | None = None,
    username: str | None = None,
    password: str | None = None,
) -> Any:
    """A paho client with a persistent session (``clean_session`` off, fixed id)."""
    try:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion
    except ImportError:
        raise OSError("the hall needs paho-mqtt: pip install 'oware-companion[hall]'") from None
    client = mqtt.Client(
        CallbackAPIVersion.VERSION2,
        client_id=client_id,
        clean_session=False,
        protocol=mqtt.MQTTv311,
    )
    user = username or address.username
    if user:
        client.username_pw_set(user, password or address.password)
    if address.tls:
        client.tls_set(ca_certs=ca_file, cert_reqs=ssl.CERT_REQUIRED)
    client.reconnect_delay_set(min_delay=1, max_delay=2)
    client.max_inflight_messages_set(100)
    return client
