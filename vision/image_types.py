"""The picture types every vision module shares."""

from __future__ import annotations

from typing import Any

import numpy.typing as npt

Image = npt.NDArray[Any]
"""A BGR uint8 picture (typed loosely: OpenCV's stubs return generic arrays)."""

FloatImage = npt.NDArray[Any]
"""A picture as floats (the renderer's working copy; typed loosely, as :data:`Image`)."""
