"""`endgame build`'s progress bar ends at 100 % (it stopped at 45.5 %: the layer being
built, and so the last one, was never counted as done)."""

from __future__ import annotations

import io
import re
from pathlib import Path

from companion import endgame_store


def test_the_progress_bar_ends_at_one_hundred_percent(tmp_path: Path) -> None:
    stream = io.StringIO()
    endgame_store.build(6, root=tmp_path, stream=stream)
    shown = [float(p) for p in re.findall(r"\] +([\d.]+)%", stream.getvalue())]
    assert shown[-1] == 100.0
    assert shown == sorted(shown)  # it never goes back
    assert stream.getvalue().endswith("\n")
    # resumed with one more layer: the bar counts only what is left, and ends at 100 % too
    again = io.StringIO()
    endgame_store.build(7, root=tmp_path, stream=again)
    assert re.findall(r"\] +([\d.]+)%", again.getvalue())[-1] == "100.0"
