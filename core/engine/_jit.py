"""Optional compiled fast path: ``njit`` is numba's when numba is importable.

The engine's inner loops (sowing, move generation, search, retrograde
analysis) are written in the small subset of Python that numba compiles.
When numba is missing, or the environment variable ``OWARE_NO_NUMBA`` is set
to a non-empty value, the very same functions run as plain Python: slower,
but correct, so the rest of the product never depends on a compiler.

numba is imported here and only here, and only when a module of
``core.engine`` that needs it is imported (``import core`` never pulls it in).

Compiled code is cached on disk, in a folder named by a digest of this
package's sources (:func:`cache_folder`). numba's own cache checks only the
file a function is written in: the search, cached with the evaluation it calls
compiled in, went on running the old evaluation after ``evaluation.py``
changed and ``search.py`` did not. Reading the package's own files for the
digest is the one thing here that touches the disk, as the cache itself does.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

F = TypeVar("F", bound=Callable[..., Any])


def cache_folder(package: Path = Path(__file__).parent) -> Path:
    """Where compiled code of ``package``'s sources as they are now is cached: a folder
    that changes whenever any of its modules does."""
    digest = hashlib.sha256()
    for source in sorted(package.glob("*.py")):
        digest.update(source.name.encode())
        digest.update(source.read_bytes())
    return package / "__pycache__" / f"numba-{digest.hexdigest()[:16]}"


HAVE_NUMBA = False
_numba: Any = None
if not os.environ.get("OWARE_NO_NUMBA"):
    try:
        import numba as _numba

        HAVE_NUMBA = True
    except ImportError:  # pragma: no cover - depends on the installation
        HAVE_NUMBA = False
if HAVE_NUMBA and not _numba.config.CACHE_DIR:
    # (a folder the user set is theirs to keep fresh; where this one cannot be made,
    # numba falls back to its own places)
    _numba.config.CACHE_DIR = str(cache_folder())


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


def _same(array: Any) -> Any:
    return array


#: ``borrowed(array)`` inside compiled code: a view of ``array`` that owns nothing, so
#: passing it on costs no reference counting (numba counts a reference to every array a
#: compiled function is given, on entry and again on return: two atomic operations per
#: array per call, which in a recursive search was half its time). The caller must keep
#: ``array`` alive while the view is in use. Without numba: ``array`` itself.
borrowed: Callable[[Any], Any] = _same
if HAVE_NUMBA:
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    @intrinsic
    def _borrowed(typingctx: Any, array: Any) -> Any:
        if not isinstance(array, types.Array):
            return None

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            source = context.make_array(array)(context, builder, args[0])
            view = context.make_array(array)(context, builder)
            for name in ("nitems", "itemsize", "data", "shape", "strides"):
                setattr(view, name, getattr(source, name))
            view.meminfo = cgutils.get_null_value(view.meminfo.type)  # type: ignore[no-untyped-call]
            view.parent = cgutils.get_null_value(view.parent.type)  # type: ignore[no-untyped-call]
            return view._getvalue()

        return array(array), codegen

    borrowed = cast("Callable[[Any], Any]", _borrowed)
