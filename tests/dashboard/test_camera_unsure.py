"""A camera whose counts are too vague to follow the game says so on the page.

One real service watches a rendered game video at its own pace, through a
calibration whose counter is the built-in network with its temperature
floored as after the calibration's two views (``vision.counting.ensemble
.FEW_COUNTS_TEMPERATURE``): every pit's belief spreads over a dozen counts.
After three settled boards the camera reports the state ``unsure``
(:mod:`vision.capture.count_health`), and the referee page shows a card saying what
to do.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.dashboard.conftest import open_view, screenshot
from tests.service.conftest import Server, start_server
from vision.counting.deep import DeepCounter
from vision.counting.ensemble import FEW_COUNTS_TEMPERATURE
from vision.geometry.calibration import Calibration


@pytest.fixture(scope="module")
def vague_camera(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    from vision.render.synth_game import render_session

    folder = tmp_path_factory.mktemp("vague")
    render_session(folder / "game", n_moves=10, seed=2)
    truth = json.loads((folder / "game" / "game.json").read_text())
    counter = DeepCounter.builtin()
    for network in counter.networks:
        network.temperature = FEW_COUNTS_TEMPERATURE
    corners = tuple((float(x), float(y)) for x, y in truth["corners"])
    cal = folder / "cal.json"
    Calibration(corners, (1280, 720), method="aruco", counter=counter.to_json()).save(cal)
    server = start_server(
        folder / "data",
        "--source",
        f"video://{folder / 'game' / 'game.avi'}",  # at its own pace: the card has time
        "--calibration",
        str(cal),
        "--no-engine",
    )
    try:
        yield server
    finally:
        server.stop()


def test_the_page_says_the_camera_cannot_follow(
    vague_camera: Server, new_page: Any, page_errors: list[str]
) -> None:
    # the page is open from the start: the card must come as the state does, and a page
    # opened only once the state is there may, on a loaded machine, find the video over
    # and the camera silent already
    page = open_view(new_page(1400, 900), vague_camera.url, "referee")
    deadline = time.monotonic() + 60
    while (link := vague_camera.get("/health").json()["boards"]["1"]["link"])["state"] != "unsure":
        assert link["state"] in ("opening", "connected"), link  # not at the video's end yet
        assert time.monotonic() < deadline, vague_camera.log_text()[-2000:]
        time.sleep(0.2)
    assert link["counts_unsure"] is True and link["median_near_share"] < 0.7
    # the board's own view follows the source's through its queue: wait for it, then
    # a camera that cannot count is a problem for the venue's monitoring, not "ok"
    while (health := vague_camera.get("/health").json())["boards"]["1"]["link_state"] != "unsure":
        assert time.monotonic() < deadline, health
        time.sleep(0.05)
    assert health["status"] == "degraded"
    assert health["problems"][0].startswith("board 1: camera unsure: the camera cannot count")
    # (the card for that state, not one the page showed before it)
    title = "Camera counting too unsure to follow"
    page.wait_for_selector(f"article.alert-camera h3:text-is('{title}')", timeout=10_000)
    card = page.query_selector("article.alert-camera")
    assert card is not None
    assert card.query_selector("h3").text_content() == title
    detail = card.text_content()
    assert "could not tell most of the pits it saw within one seed" in detail
    assert "oware-companion train-counter" in detail
    screenshot(page, "alert-camera-unsure")
    assert page_errors == []
