"""The engine: search, evaluation, endgame databases, teaching explanations.

Start here:

* :func:`analyze` (:mod:`core.engine.analysis`): every legal move of a
  :class:`core.Position` with its value and the best line;
* :func:`explain_move` (:mod:`core.engine.explain`): a move in words;
* :mod:`core.engine.retrograde`: building Abapa endgame databases (arrays in,
  arrays out; storing them is ``companion.endgame_store``'s job).

Inside: :mod:`~core.engine.kernel` (the Abapa rules on arrays),
:mod:`~core.engine.ranking` (board numbering), :mod:`~core.engine.search`
(alpha-beta), :mod:`~core.engine.evaluation`, :mod:`~core.engine.multiplayer`
(paranoid search for 3-4 players). The inner loops are compiled with numba
when it is installed (:mod:`~core.engine._jit`); the names below are loaded
on first use so that importing this package stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "analyze": "core.engine.analysis",
    "Analysis": "core.engine.analysis",
    "MoveValue": "core.engine.analysis",
    "explain_move": "core.engine.explain",
    "Explanation": "core.engine.explain",
    "Searcher": "core.engine.search",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'core.engine' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
