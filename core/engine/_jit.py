"""Optional compiled fast path: ``njit`` is numba's when numba is importable.

The engine's inner loops (sowing, move generation, search, retrograde
analysis) are written in the small subset of Python that numba compiles.
When numba is missing, or the environment variable ``OWARE_NO_NUMBA`` is set
to a non-empty value, the very same functions run as plain Python: slower,
but correct, so the rest of the product never depends on a compiler.

numba is imported here and only here, and only when a module of
``core.engine`` that needs it is imported (``import core`` never pulls it in).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

HAVE_NUMBA = False
_numba: Any = None
if not os.environ.get("OWARE_NO_NUMBA"):
    try:
        import numba as _numba

        HAVE_NUMBA = True
    except ImportError:  # pragma: no cover - depends on the installation
        HAVE_NUMBA = False


def njit(fn: F) -> F:
    """Compile ``fn`` in nopython mode (cached on disk) or return it unchanged.

    Compiled code releases the GIL, so another thread can raise a search's
    stop flag while it runs.
    """
    if HAVE_NUMBA:
        compiled: F = _numba.njit(cache=True, nogil=True)(fn)
        return compiled
    return fn


def njit_typed(signature: str) -> Callable[[F], F]:
    """Like :func:`njit`, compiled eagerly for one explicit ``signature``.

    For recursive functions: with the types given up front numba's on-disk
    cache reloads them correctly (inferring a recursive function's types and
    then caching it crashes the second run).
    """

    def decorate(fn: F) -> F:
        if HAVE_NUMBA:
            compiled: F = _numba.njit(signature, cache=True, nogil=True)(fn)
            return compiled
        return fn

    return decorate


def njit_parallel(fn: F) -> F:
    """Like :func:`njit` but lets ``prange`` loops run on several threads."""
    if HAVE_NUMBA:
        compiled: F = _numba.njit(cache=True, nogil=True, parallel=True)(fn)
        return compiled
    return fn


#: numba's parallel range inside compiled code (numba recognises the object
#: itself, whatever name it is bound to); plain ``range`` without numba.
prange: Callable[..., range] = _numba.prange if HAVE_NUMBA else range
