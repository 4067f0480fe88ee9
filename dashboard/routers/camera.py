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

from companion.service.board import BoardRuntime
from core.referee.command_check import CommandInvalid, parse_json

from .deps import BoardDep, require_json, require_token

router = APIRouter(prefix="/api", tags=["camera"], dependencies=[Depends(require_token)])


def _camera(board: BoardRuntime) -> Any:
    source = board.source
    if not hasattr(source, "set_corners"):
        raise HTTPException(404, f"board {board.board} is not watched by a camera")
    return source


def _describe(source: Any) -> dict[str, Any]:
    cal = source.calibration
    frame = source.snapshot()
    return {
        "url": source.url,
        "frame_size": None if frame is None else [int(frame.shape[1]), int(frame.shape[0])],
        "corners": None if cal is None else [list(c) for c in cal.corners],
        "image_size": None if cal is None else list(cal.image_size),
        "method": None if cal is None else cal.method,
        "file": None if source.calibration_path is None else str(source.calibration_path),
    }


@router.get("/board/{b}/camera", summary="the calibration the board's camera uses")
def camera(board: BoardDep) -> dict[str, Any]:
    return _describe(_camera(board))


@router.get(
    "/board/{b}/camera/frame",
    summary="the camera's last frame (JPEG)",
    response_class=Response,
    responses={200: {"content": {"image/jpeg": {}}}, 404: {"description": "no frame yet"}},
)
def frame(board: BoardDep) -> Response:
    import cv2  # the vision extra: only boards with a camera get here

    image = _camera(board).snapshot()
    if image is None:
        raise HTTPException(404, "no frame from the camera yet")
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    if not ok:
        raise HTTPException(500, "the frame could not be encoded")
    return Response(data.tobytes(), media_type="image/jpeg", headers={"Cache-Control": "no-store"})


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
    from vision.calibration import CalibrationError

    source = _camera(board)
    try:
        body = parse_json(await request.body())
        points = [(float(x), float(y)) for x, y in body["corners"]]
    except (CommandInvalid, KeyError, TypeError, ValueError):
        raise HTTPException(
            400, 'the body must be {"corners": [[x, y], [x, y], [x, y], [x, y]]} (NW NE SE SW)'
        ) from None
    try:
        _, previous = source.set_corners(points)
    except CalibrationError as exc:
        raise HTTPException(422, str(exc)) from None
    except ValueError as exc:
        raise HTTPException(409, str(exc)) from None
    except OSError as exc:  # the live reading follows the corners; the file could not be written
        raise HTTPException(500, f"the calibration file could not be written: {exc}") from None
    out = _describe(source)
    out["previous"] = None if previous is None else str(previous)
    return out
