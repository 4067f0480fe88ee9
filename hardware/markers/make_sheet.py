"""Write the printable ArUco marker sheet: ``markers.svg`` (A4, exact millimetres).

    python hardware/markers/make_sheet.py [--size-mm 40] [--out hardware/markers/markers.svg]

Four markers of OpenCV's 4×4 dictionary (``DICT_4X4_50``), ids 0 to 3. Cut
them out and lay them at the corners of the *playing area* (the rectangle
just around the twelve pits), each with its inner corner touching that
corner: 0 at North-West (far left from South's seat), 1 North-East, 2
South-East, 3 South-West. Any rotation of a marker is fine; the ids tell the
companion which corner is which, so the camera may sit on any side.

The SVG is drawn from OpenCV's own marker bits (no bitmap scaling), with a
white quiet zone of one cell around each marker, and a scale bar to check
that the printer did not resize it ("actual size" / 100 %).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2

NAMES = ["0 — North-West", "1 — North-East", "2 — South-East", "3 — South-West"]


def marker_cells(marker_id: int) -> list[list[int]]:
    """The marker as a 6 × 6 grid of cells (1 = black), border included."""
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    img = cv2.aruco.generateImageMarker(dictionary, marker_id, 6)
    return [[1 if img[r, c] < 128 else 0 for c in range(6)] for r in range(6)]


def sheet_svg(size_mm: float = 40.0) -> str:
    """The whole A4 sheet as SVG text."""
    cell = size_mm / 6
    out = [
        (
            '<svg xmlns="http://www.w3.org/2000/svg" width="210mm" height="297mm" '
            'viewBox="0 0 210 297">'
        ),
        '<rect width="210" height="297" fill="white"/>',
        '<text x="105" y="14" font-family="sans-serif" font-size="5" text-anchor="middle">'
        "oware-companion board markers (ArUco 4x4_50) - print at 100 %</text>",
    ]
    for k in range(4):
        x0 = 25 + (k % 2) * (size_mm + 60)
        y0 = 35 + (k // 2) * (size_mm + 60)
        out.append(
            f'<rect x="{x0 - cell:.3f}" y="{y0 - cell:.3f}" width="{size_mm + 2 * cell:.3f}" '
            f'height="{size_mm + 2 * cell:.3f}" fill="none" stroke="#bbb" stroke-width="0.2" '
            'stroke-dasharray="1,1"/>'
        )
        for r, row in enumerate(marker_cells(k)):
            for c, black in enumerate(row):
                if black:
                    out.append(
                        f'<rect x="{x0 + c * cell:.3f}" y="{y0 + r * cell:.3f}" '
                        f'width="{cell + 0.01:.3f}" height="{cell + 0.01:.3f}" fill="black"/>'
                    )
        out.append(
            f'<text x="{x0 + size_mm / 2:.3f}" y="{y0 + size_mm + cell + 6:.3f}" '
            f'font-family="sans-serif" font-size="4" text-anchor="middle">{NAMES[k]}</text>'
        )
    out.append('<rect x="25" y="270" width="100" height="2" fill="black"/>')
    out.append('<text x="25" y="280" font-family="sans-serif" font-size="4">100 mm</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mm", type=float, default=40.0)
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("markers.svg"))
    args = parser.parse_args()
    args.out.write_text(sheet_svg(args.size_mm), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
