"""Pages of other sites in the operator's own browser, and the token's way through it:
issue 26, defects 2 and 6, in real headless Chromium against the real service.

* A page served from another port (another origin, as any site would be) fires
  commands at the service with ``fetch(…, {mode: "no-cors"})``, as text, as JSON, and
  opens a referee WebSocket; the service runs on loopback with no token (the default,
  where anyone on this machine may command), and the position does not change.
* DNS rebinding: a browser resolving a foreign name to 127.0.0.1
  (``--host-resolver-rules``) gets neither the page nor a command through.
* The referee's link ``?token=…``: the page takes the token out of the address bar,
  sends it in the WebSocket's first message and the commands' header, and the
  service's log (uvicorn's access lines included) never prints it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from core import Position
from core.referee.session import session_header
from tests.dashboard.conftest import CHROMIUM, LAUNCH_ARGS
from tests.service.conftest import Server, read_jsonl, start_server

TOKEN = "foreign-pages-token-9"
MOVED = {"pits": [5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 3], "stores": [0, 0]}

ATTACK = """<!doctype html><html><body><p>A page of another site.</p><script>
const target = "__TARGET__";
const body = JSON.stringify({command: "set_position", position: __MOVED__});
window.attack = (async () => {
  const tried = [];
  const tries = [
    {mode: "no-cors", method: "POST", body},
    {mode: "no-cors", method: "POST", headers: {"Content-Type": "text/plain"}, body},
    {mode: "no-cors", method: "POST", headers: {"Content-Type": "application/json"}, body},
    {method: "POST", headers: {"Content-Type": "application/json"}, body},
  ];
  for (const init of tries) {
    try {
      const r = await fetch(target + "/api/board/1/command", init);
      tried.push(`${r.type} ${r.status}`);
    } catch (e) {
      tried.push("refused by the browser");
    }
  }
  const opened = await new Promise((resolve) => {
    const ws = new WebSocket(target.replace("http", "ws") + "/ws/board/1?role=referee");
    ws.onopen = () => { ws.send(body); setTimeout(() => resolve(true), 500); };
    ws.onerror = () => resolve(false);
  });
  tried.push(opened ? "websocket opened" : "websocket refused");
  return tried;
})();
</script></body></html>"""


def _quiet_log(folder: Path) -> Path:
    path = folder / "quiet.jsonl"
    path.write_text(json.dumps(session_header(Position.initial())) + "\n")
    return path


@pytest.fixture(scope="module")
def open_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Loopback, no token: the service as ``serve`` starts it by default."""
    folder = tmp_path_factory.mktemp("foreign")
    log = _quiet_log(folder)
    server = start_server(folder / "data", "--source", f"replay://{log}?speed=0", "--no-engine")
    yield server
    server.stop()


@pytest.fixture
def other_site(tmp_path: Path, open_server: Server) -> Iterator[str]:
    """The attacking page, served on another port of the same machine."""
    page = ATTACK.replace("__TARGET__", open_server.url).replace("__MOVED__", json.dumps(MOVED))
    (tmp_path / "attack.html").write_text(page)
    handler = partial(SimpleHTTPRequestHandler, directory=str(tmp_path))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/attack.html"
    httpd.shutdown()
    httpd.server_close()


def _pits(server: Server) -> list[int]:
    return list(server.get("/api/board/1/state").json()["position"]["pits"])


def _logged_commands(server: Server) -> list[dict[str, Any]]:
    (path,) = sorted((server.data_dir / "sessions").glob("board1-*.jsonl"))
    return [line for line in read_jsonl(path) if "command" in line]  # the service may be writing


def test_a_page_of_another_origin_cannot_command(
    open_server: Server, other_site: str, new_page: Any
) -> None:
    before = _pits(open_server)
    page = new_page()
    page.goto(other_site)
    tried = page.evaluate("window.attack")
    assert len(tried) == 5, tried
    assert tried[-1] == "websocket refused", tried
    assert _pits(open_server) == before
    assert _logged_commands(open_server) == []
    # the same command from the service's own page goes through (the refusal is the origin's)
    own = new_page()
    own.goto(open_server.url + "/board/1?view=referee")
    own.wait_for_selector("body[data-ready=true]", timeout=10_000)
    status = own.evaluate(
        """async (moved) => (await fetch("/api/board/1/command", {method: "POST",
        headers: {"Content-Type": "application/json"},
        body: JSON.stringify({command: "set_position", position: moved})})).status""",
        MOVED,
    )
    assert status == 200 and _pits(open_server) == MOVED["pits"]


def test_a_rebound_name_gets_neither_the_page_nor_a_command(
    open_server: Server, browser: Any
) -> None:
    before = _pits(open_server)
    rebind = "--host-resolver-rules=MAP rebind.test 127.0.0.1"  # the attacker's DNS answer
    # a second Chromium, resolving the attacker's name to this machine
    rebound = browser.browser_type.launch(
        executable_path=str(CHROMIUM), args=[*LAUNCH_ARGS, rebind]
    )
    try:
        page = rebound.new_page()
        response = page.goto(f"http://rebind.test:{open_server.port}/board/1?view=referee")
        assert response is not None and response.status == 400
        status = page.evaluate(
            """async () => (await fetch("/api/board/1/command", {method: "POST",
            headers: {"Content-Type": "application/json"},
            body: JSON.stringify({command: "new_game"})})).status"""
        )
        assert status == 400
        opened = page.evaluate(
            """() => new Promise((resolve) => {
              const ws = new WebSocket(`ws://${location.host}/ws/board/1?role=referee`);
              ws.onopen = () => resolve(true);
              ws.onerror = () => resolve(false);
            })"""
        )
        assert opened is False
    finally:
        rebound.close()
    assert _pits(open_server) == before


def test_the_token_leaves_the_address_bar_and_never_reaches_the_log(
    tmp_path: Path, new_page: Any, page_errors: list[str]
) -> None:
    log = _quiet_log(tmp_path)
    server = start_server(
        tmp_path / "data",
        "--source",
        f"replay://{log}?speed=0",
        "--no-engine",
        "--token",
        TOKEN,
    )
    try:
        page = new_page()
        sent: list[str] = []
        got: list[dict[str, Any]] = []

        def watch(ws: Any) -> None:
            sent.append(ws.url)
            ws.on("framesent", lambda f: sent.append(str(f)))
            ws.on("framereceived", lambda f: got.append(json.loads(f)))

        page.on("websocket", watch)
        page.goto(f"{server.url}/?view=referee&board=1&token={TOKEN}")
        page.wait_for_selector("body[data-ready=true]", timeout=10_000)
        assert "token" not in page.url and page.url.endswith("/board/1?view=referee")
        assert page.evaluate("sessionStorage.getItem('oware-token')") == TOKEN
        assert TOKEN not in sent[0]  # the WebSocket's address
        assert any(TOKEN in frame and '"auth"' in frame for frame in sent[1:])
        assert [m["ok"] for m in got if m["type"] == "auth"] == [True]
        # the page commands with it (the header), and a reload keeps it without the address
        page.click("#new-game-form button[type=submit]")
        page.wait_for_selector("#command-result[data-ok=true]", timeout=10_000)
        page.reload()
        page.wait_for_selector("body[data-ready=true]", timeout=10_000)
        assert "token" not in page.url
        # a program may still put it in the address; the log writes token=… instead
        with connect(f"{server.ws}/ws/board/1?role=referee&token={TOKEN}") as ws:
            ws.recv(timeout=10)
        r = httpx.post(
            f"{server.url}/api/board/1/command",
            params={"token": TOKEN},
            json={"command": "undo"},
            timeout=10,
        )
        assert r.status_code in (200, 409), r.text
    finally:
        server.stop()
    text = server.log_text()
    assert "GET /board/1?view=referee" in text  # the access log is on
    assert "token=…" in text
    assert TOKEN not in text
    assert page_errors == []


VIEWS = ["referee", "player", "spectator", "overlay", "corner", "teaching"]


@pytest.mark.parametrize("view", VIEWS)
def test_every_view_works_under_the_content_security_policy(
    open_server: Server, new_page: Any, page_errors: list[str], view: str
) -> None:
    page = new_page(bypass_csp=False)  # the policy the service sends, enforced
    policy = page.goto(f"{open_server.url}/board/1?view={view}").headers["content-security-policy"]
    assert "frame-ancestors 'none'" in policy
    page.wait_for_selector("body[data-ready=true]", state="attached", timeout=10_000)
    page.wait_for_selector("#board svg .pit", state="attached", timeout=10_000)
    home = new_page(bypass_csp=False)
    home.goto(open_server.url + "/")
    home.wait_for_selector("a[href='/board/1']", timeout=10_000)
    assert page_errors == []  # a blocked script, style or socket is a console error
