"""The manual four-corner fallback, from the page: a referee places the board's
corners on the camera's last frame (dashboard/routers/camera.py, js/camera.js).

One real service watches a rendered game video (board 1, played at once to
its end, so its last frame stays) and the virtual sensor board (board 2, not
a camera), with a command token. The API is checked for what it refuses and
what it writes; then Chromium places four corners by clicking on the frame.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from tests.dashboard.conftest import TOKEN, open_view, screenshot
from tests.service.conftest import Server, start_server
from vision.geometry.calibration import Calibration

AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def camera_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Path]]:
    from vision.render.synth_game import render_session

    folder = tmp_path_factory.mktemp("camera")
    render_session(folder / "game", n_moves=2, seed=5)
    truth = json.loads((folder / "game" / "game.json").read_text())
    cal = folder / "cal.json"
    corners = tuple((float(x), float(y)) for x, y in truth["corners"])
    Calibration(corners, (1280, 720), method="aruco").save(cal)
    server = start_server(
        folder / "data",
        "--source",
        f"video://{folder / 'game' / 'game.avi'}?realtime=0",
        "--source",
        "sim://?speed=0.5",
        "--calibration",
        str(cal),
        "--token",
        TOKEN,
        "--no-engine",
    )
    try:
        deadline = time.monotonic() + 30
        while server.get("/api/board/1/camera", headers=AUTH).json()["frame_size"] is None:
            assert time.monotonic() < deadline, server.log_text()[-2000:]
            time.sleep(0.2)
        yield server, cal
    finally:
        server.stop()


def test_the_camera_api_shows_the_frame_and_refuses_bad_corners(
    camera_server: tuple[Server, Path],
) -> None:
    server, cal = camera_server
    assert server.get("/api/board/1/camera").status_code == 401  # the camera shows the table
    info = server.get("/api/board/1/camera", headers=AUTH).json()
    assert info["frame_size"] == [1280, 720] and info["method"] == "aruco"
    assert info["file"] == str(cal)
    assert info["corners"] == [list(c) for c in Calibration.load(cal).corners]
    jpeg = server.get("/api/board/1/camera/frame", headers=AUTH)
    assert jpeg.headers["content-type"] == "image/jpeg"
    frame = cv2.imdecode(np.frombuffer(jpeg.content, np.uint8), cv2.IMREAD_COLOR)
    assert frame is not None and frame.shape == (720, 1280, 3)
    assert server.get("/api/board/2/camera", headers=AUTH).status_code == 404  # a sensor board

    post = "/api/board/1/camera/corners"
    json_type = {**AUTH, "Content-Type": "application/json"}
    assert server.post(post, headers=json_type, content=b"{nope").status_code == 400
    assert server.post(post, headers=AUTH, content=b"{}").status_code == 415
    assert server.post(post, headers=AUTH, json={"corners": [[1, 2, 3]]}).status_code == 400
    three = server.post(post, headers=AUTH, json={"corners": [[10, 10], [900, 10], [900, 500]]})
    assert three.status_code == 422 and "need 4 corners" in three.json()["detail"]
    outside = [[10, 10], [1900, 10], [900, 500], [10, 500]]
    too_far = server.post(post, headers=AUTH, json={"corners": outside})
    assert too_far.status_code == 422 and "1280 × 720" in too_far.json()["detail"]
    flat = server.post(post, headers=AUTH, json={"corners": [[5, 5]] * 4})
    assert flat.status_code == 422 and "no area" in flat.json()["detail"]
    assert server.post(post, json={"corners": outside}).status_code == 401
    assert Calibration.load(cal).method == "aruco"  # nothing refused was written


def test_the_referee_places_the_corners_on_the_frame(
    camera_server: tuple[Server, Path], new_page: Any, page_errors: list[str]
) -> None:
    server, cal = camera_server
    before = cal.read_text()
    page = open_view(new_page(1400, 900), server.url, "referee", token=TOKEN)
    page.wait_for_selector("#camera-panel:not([hidden])")
    assert "markers" in page.text_content("#camera-info")
    # and how much the counter has learnt of this board (every confirmed position's pits)
    assert re.search(
        r"learnt from \d+ pit photos of this board", page.text_content("#camera-learnt")
    )
    page.locator("#camera-panel").scroll_into_view_if_needed()
    screenshot(page, "camera-panel")
    page.click("#camera-edit")
    page.wait_for_selector("#camera-dialog[open]")
    page.wait_for_function("document.getElementById('camera-frame').naturalWidth === 1280")
    page.click("#camera-again")
    assert "far left (NW)" in page.text_content("#camera-help")
    box = page.locator("#camera-frame").bounding_box()
    wanted = [(300, 200), (980, 190), (1010, 520), (270, 530)]  # frame pixels
    for x, y in wanted:
        page.mouse.click(box["x"] + x * box["width"] / 1280, box["y"] + y * box["height"] / 720)
    assert "All four corners placed" in page.text_content("#camera-help")
    assert page.locator("#camera-overlay polygon").count() == 1
    screenshot(page, "camera-corners")
    page.fill("#corner-se-x", "1000")  # a typed value counts as well as a click
    page.click("#camera-save")
    page.wait_for_selector("#camera-dialog", state="hidden")
    page.wait_for_function("document.getElementById('camera-result').dataset.ok === 'true'")
    assert "corners placed by hand" in page.text_content("#camera-info")
    saved = Calibration.load(cal)
    assert saved.method == "manual"
    wanted[2] = (1000, 520)
    for (x, y), (sx, sy) in zip(wanted, saved.corners, strict=True):
        assert abs(sx - x) <= 1.5 and abs(sy - y) <= 1.5, (wanted, saved.corners)
    assert Path(f"{cal}.previous").read_text() == before  # the old one kept aside
    link = server.get("/health").json()["boards"]["1"]["link"]
    assert link["calibration_method"] == "manual"  # the live reading follows them
    assert page_errors == []
