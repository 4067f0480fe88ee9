"""Who may reach the service, and from which page: ``Host``, ``Origin`` and the pages' headers.

:class:`Guard` is ASGI middleware in front of every route and WebSocket:

* **Host** (DNS rebinding): the ``Host`` a request names must be an address
  this service serves: ``localhost``, ``127.0.0.1``, ``::1``, the ``--host``
  value, the hosts of the config's ``allowed_origins``, and, when listening on
  every address (``0.0.0.0``, ``::``), any IP address and this machine's name.
  A port given must be the service's. Anything else is answered 400 (a
  WebSocket is refused before it opens): a page whose name was re-pointed at
  this machine (DNS rebinding) cannot read it or drive it.
* **Origin**: a request that changes something (any method but GET, HEAD,
  OPTIONS) carrying an ``Origin`` header must come from the service's own
  origin (``http://`` + the ``Host`` it was sent to) or one of
  ``allowed_origins``; another site's page is answered 403. Browsers send
  ``Origin`` with every such request, ``fetch(…, {mode: "no-cors"})`` and
  forms included; programs that send none are let through (they could say
  anything anyway) and still need the token.
* **Headers**: every answer says ``X-Frame-Options: DENY``,
  ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer`` and a
  content security policy allowing only the service's own scripts, styles
  and WebSocket, and no framing (``frame-ancestors 'none'``). The OpenAPI
  pages (``/docs``, ``/redoc``) load their viewer from a CDN, so they get only
  ``frame-ancestors 'none'``.

The command endpoints further accept only ``application/json`` bodies
(:func:`dashboard.routers.deps.require_json`): a page may send a cross-site
``text/plain`` request without asking the server first, never a JSON one.

>>> hosts = ServedHosts("127.0.0.1", 8000, ())
>>> [hosts.allows(h) for h in ("127.0.0.1:8000", "localhost:8000", "[::1]:8000", "localhost")]
[True, True, True, True]
>>> [hosts.allows(h) for h in ("evil.example:8000", "127.0.0.1:9000", "", "10.0.0.2:8000")]
[False, False, False, False]
>>> ServedHosts("0.0.0.0", 8000, ()).allows("10.0.0.2:8000")
True
>>> origin_allowed("http://127.0.0.1:8000", "127.0.0.1:8000", ())
True
>>> origin_allowed("http://evil.example", "127.0.0.1:8000", ())
False
"""

from __future__ import annotations

import ipaddress
import json
import socket
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: Methods that only read; every other one must come from the service's own origin.
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

#: Paths whose page loads its viewer from elsewhere (FastAPI's OpenAPI pages).
_API_VIEWERS = ("/docs", "/redoc")

_ANY_ADDRESS = ("0.0.0.0", "::", "")


def split_host(value: str) -> tuple[str, int | None] | None:
    """``("name", port)`` of a ``Host`` header (port None when absent), None if malformed.

    >>> split_host("[::1]:8000"), split_host("Example.org"), split_host("a:b")
    (('::1', 8000), ('example.org', None), None)
    """
    value = value.strip().lower()
    if value.startswith("["):
        name, _, rest = value[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else None
        if rest and port is None:
            return None
    elif value.count(":") == 1:
        name, port = value.split(":")
    else:
        name, port = value, None
    if not name:
        return None
    if port is None:
        return name, None
    if not port.isdigit() or not 0 < int(port) < 65536:
        return None
    return name, int(port)


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class ServedHosts:
    """The names this service answers to (see the module docstring)."""

    def __init__(self, host: str, port: int, allowed_origins: tuple[str, ...]) -> None:
        self.port = port
        self.any_address = host in _ANY_ADDRESS
        names = {"localhost", "127.0.0.1", "::1"}
        if not self.any_address:
            names.add(host.strip("[]").lower())
        else:
            machine = socket.gethostname().lower()
            names |= {machine, f"{machine}.local"}
        # names in allowed_origins: served through a proxy, perhaps on another port
        self.proxied = frozenset(
            name.lower() for o in allowed_origins if (name := urlsplit(o).hostname)
        )
        self.names = frozenset(names) | self.proxied

    def allows(self, header: str | None) -> bool:
        parsed = split_host(header or "")
        if parsed is None:
            return False
        name, port = parsed
        if port is not None and self.port and port != self.port:
            return name in self.proxied
        return name in self.names or (self.any_address and _is_ip(name))


def origin_allowed(origin: str | None, host: str | None, extra: tuple[str, ...]) -> bool:
    """Whether a request with this ``Origin`` comes from the service's own page (or one of
    ``extra``); no ``Origin`` at all (a program, not a browser) is allowed."""
    if origin is None:
        return True
    if origin.rstrip("/") in {o.rstrip("/") for o in extra}:
        return True
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and bool(host) and parts.netloc == host


def content_security_policy(host: str) -> str:
    """The pages' policy: only this service's files and WebSocket, and no framing."""
    return (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
        f"connect-src 'self' ws://{host} wss://{host}; object-src 'none'; base-uri 'none'; "
        "form-action 'self'; frame-ancestors 'none'"
    )


class Guard:
    """The ``Host`` and ``Origin`` checks and the pages' headers (ASGI middleware)."""

    def __init__(self, app: ASGIApp, hosts: ServedHosts, allowed_origins: tuple[str, ...]) -> None:
        self.app = app
        self.hosts = hosts
        self.allowed_origins = allowed_origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host")
        if not self.hosts.allows(host):
            await self._refuse(scope, send, 400, "this server does not answer to that Host name")
            return
        if scope["type"] == "websocket":
            # ws.py checks the Origin (and says why) for WebSockets
            await self.app(scope, receive, send)
            return
        if scope["method"] not in SAFE_METHODS and not origin_allowed(
            headers.get("origin"), host, self.allowed_origins
        ):
            await self._refuse(
                scope, send, 403, "commands are accepted only from this server's pages"
            )
            return
        path: str = scope.get("path", "")
        policy = (
            "frame-ancestors 'none'"
            if path.startswith(_API_VIEWERS)
            else content_security_policy(host or "")
        )
        extra = [
            (b"x-frame-options", b"DENY"),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"no-referrer"),
            (b"content-security-policy", policy.encode("latin-1")),
        ]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)

    @staticmethod
    async def _refuse(scope: Scope, send: Send, status: int, detail: str) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": detail})
            return
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"x-frame-options", b"DENY"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": json.dumps({"detail": detail}).encode()})
