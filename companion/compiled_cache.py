"""Removing the engine's compiled code cached for sources that are gone.

The engine caches its compiled code in a folder named by a digest of its sources
(:func:`core.engine._jit.cache_folder`), so each change to the engine leaves the
folder of the sources before it behind (a few MB each). ``scripts/setup.sh``, which
both README commands run, removes them (``python -m companion.compiled_cache``; it runs
with ``OWARE_NO_NUMBA`` set, as the digest needs no compiler).

A process still running older sources loses nothing it needs: numba makes the
folder again when it next saves compiled code into it.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as d:
...     package = Path(d)
...     _ = (package / "kernel.py").write_text("x = 1\\n")
...     current = cache_folder(package)
...     for old in ("numba-0123456789abcdef", "numba-fedcba9876543210"):
...         (package / "__pycache__" / old).mkdir(parents=True)
...     current.mkdir()
...     [p.name for p in prune_compiled_caches(package)]
...     sorted(p.name for p in (package / "__pycache__").iterdir()) == [current.name]
['numba-0123456789abcdef', 'numba-fedcba9876543210']
True
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from core.engine import _jit

cache_folder = _jit.cache_folder
ENGINE = Path(_jit.__file__).parent
"""The engine package whose compiled code is cached."""


def stale_compiled_caches(package: Path = ENGINE) -> list[Path]:
    """The cache folders of ``package`` made for sources other than its sources now."""
    current = cache_folder(package)
    return sorted(p for p in current.parent.glob("numba-*") if p.is_dir() and p != current)


def prune_compiled_caches(package: Path = ENGINE) -> list[Path]:
    """Remove :func:`stale_compiled_caches`; return the folders removed."""
    removed = []
    for path in stale_compiled_caches(package):
        shutil.rmtree(path, ignore_errors=True)
        if not path.exists():
            removed.append(path)
    return removed


def main() -> int:
    removed = prune_compiled_caches()
    if removed:
        print(
            f"setup: removed {len(removed)} folder(s) of compiled engine code for older sources",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
