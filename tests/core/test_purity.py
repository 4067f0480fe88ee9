"""`core` imports nothing outside the standard library and numpy (numba only in the engine)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "core"
ALLOWED = {"numpy", "core"}
ENGINE_EXTRA = {"numba"}


def imported_roots(path: Path) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            roots.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def test_core_imports_only_stdlib_and_numpy() -> None:
    offenders = []
    files = sorted(CORE.rglob("*.py"))
    assert files, "core/ has no Python files?"
    for path in files:
        allowed = ALLOWED | (ENGINE_EXTRA if "engine" in path.parts else set())
        for root in imported_roots(path):
            if root not in sys.stdlib_module_names and root not in allowed:
                offenders.append(f"{path.relative_to(CORE.parent)} imports {root}")
    assert not offenders, "\n".join(offenders)


def test_core_avoids_io_modules() -> None:
    """Even stdlib I/O (sockets, files via sqlite, subprocesses) stays out of core."""
    banned = {"socket", "sqlite3", "subprocess", "asyncio", "http", "urllib", "shutil"}
    offenders = [
        f"{p.relative_to(CORE.parent)} imports {root}"
        for p in sorted(CORE.rglob("*.py"))
        for root in imported_roots(p) & banned
    ]
    assert not offenders, "\n".join(offenders)


def test_purity_check_catches_a_forbidden_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import cv2\nfrom serial import Serial\n")
    assert imported_roots(bad) == {"cv2", "serial"}
