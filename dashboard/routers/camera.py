"""A board's camera: what it sees, and the manual four-corner fallback.

When neither the markers nor the pit grid find the board (an unusual board,
poor light), the referee places its four corners by hand on the camera's
last frame in the page (``js/camera.js``). Everything here needs the command
token, like the referee's commands: the camera shows the table.

* ``GET /api/board/{b}/camera`` – the calibration in use (corners NW NE SE SW
  in frame pixels, frame size, how it was found, its file);
* ``GET /api/board/{b}/camera/frame`` – the last frame, as JPEG;
* ``POST /api/board/{b}/camera/corners`` – ``{"corners": [[x, y] × 4]}``: the
  live reading follows them at once and the calibration file is rewritten
  (the previous one kept as ``.previous``).

A board whose source is not a camera answers 404.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, HTTPException, Request, Response

from core.referee.command_check import CommandInvalid, parse_json
from dashboard.contracts import CameraControl, CornersRefused, LiveBoard, NoFrameYet

from .deps import BoardDep, require_json, require_token

router = APIRouter(prefix="/api", tags=["camera"], dependencies=[Depends(require_token)])


def _camera(board: LiveBoard) -> CameraControl:
    camera = board.camera()
    if camera is None:
        raise HTTPException(404, f"board {board.board} is not watched by a camera")
    return camera


@router.get("/board/{b}/camera", summary="the calibration the board's camera uses")
def camera(board: BoardDep) -> dict[str, Any]:
    return _camera(board).describe()


@router.get(
    "/board/{b}/camera/frame",
    summary="the camera's last frame (JPEG)",
    response_class=Response,
    responses={200: {"content": {"image/jpeg": {}}}, 404: {"description": "no frame yet"}},
)
def frame(board: BoardDep) -> Response:
    try:
        data = _camera(board).frame_jpeg()
    except ValueError as exc:
        raise HTTPException(500, str(exc)) from None
    if data is None:
        raise HTTPException(404, "no frame from the camera yet")
    return Response(data, media_type="image/jpeg", headers={"Cache-Control": "no-store"})


@router.post(
    "/board/{b}/camera/corners",
    summary="place the board's four corners by hand",
    dependencies=[Depends(require_json)],
    responses={
        400: {"description": "malformed body"},
        409: {"description": "no frame yet"},
        422: {"description": "corners that cannot be a board"},
    },
)
async def corners(board: BoardDep, request: Request) -> dict[str, Any]:
    camera = _camera(board)
    try:
        body = parse_json(await request.body())
        points = [(float(x), float(y)) for x, y in body["corners"]]
    except (CommandInvalid, KeyError, TypeError, ValueError):
        raise HTTPException(
            400, 'the body must be {"corners": [[x, y], [x, y], [x, y], [x, y]]} (NW NE SE SW)'
        ) from None
    try:
        return camera.set_corners(points)
    except CornersRefused as exc:
        raise HTTPException(422, str(exc)) from None
    except NoFrameYet as exc:
        raise HTTPException(409, str(exc)) from None
    except OSError as exc:  # the live reading follows the corners; the file could not be written
        raise HTTPException(500, f"the calibration file could not be written: {exc}") from None
