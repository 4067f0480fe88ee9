"""The engine's compiled code is cached on disk, and the cache follows every module of
the engine: a search compiled with the evaluation it calls must not outlive a change to
that evaluation (numba's own check looks only at the caller's file)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

from core.engine import _jit

CORE = Path(__file__).resolve().parents[2] / "core"

PROBE = """
from core.engine.kernel import to_relative
from core.engine.search import Searcher
board = to_relative([4, 4, 4, 4, 0, 2, 1, 0, 4, 4, 12, 3], 0)
result = Searcher().search(board, 4, 2, max_depth=1, exact_all=False)
print(result.scores[result.best])
"""


def test_the_cache_folder_changes_with_any_module_of_the_package(tmp_path: Path) -> None:
    (tmp_path / "caller.py").write_text("def f():\n    return g()\n")
    (tmp_path / "callee.py").write_text("def g():\n    return 1\n")
    first = _jit.cache_folder(tmp_path)
    assert _jit.cache_folder(tmp_path) == first  # (the same sources, the same folder)
    (tmp_path / "callee.py").write_text("def g():\n    return 2\n")
    assert _jit.cache_folder(tmp_path) != first
    assert first.parent == tmp_path / "__pycache__"


def test_the_engine_caches_its_code_in_the_folder_of_its_sources() -> None:
    assert _jit.HAVE_NUMBA  # (numba is among the engine's requirements)
    assert str(_jit.cache_folder()) == _jit._numba.config.CACHE_DIR


def test_a_search_cached_before_the_evaluation_changed_runs_the_new_evaluation(
    tmp_path: Path,
) -> None:
    shutil.copytree(CORE, tmp_path / "core", ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["PYTHONPATH"] = str(tmp_path)

    def score() -> int:
        out = subprocess.run(
            [sys.executable, "-c", PROBE],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
        return int(out.stdout.split()[-1])

    before = score()
    assert score() == before  # (the second run reads the cache)
    evaluation = tmp_path / "core" / "engine" / "evaluation.py"
    text = evaluation.read_text()
    assert text.count("    return int(total)\n") == 1
    # every leaf one centi-seed better for its mover: the root, a ply above, one worse
    evaluation.write_text(text.replace("    return int(total)\n", "    return int(total) + 1\n"))
    assert score() == before - 1


def test_a_borrowed_view_is_the_same_memory_in_compiled_code() -> None:
    @_jit.njit
    def fill(target: np.ndarray, value: int) -> int:
        view = _jit.borrowed(target)
        for i in range(view.shape[0]):
            view[i] = value + i
        return int(view.sum())

    target = np.zeros(5, dtype=np.int64)
    assert fill(target, 10) == 60
    assert list(target) == [10, 11, 12, 13, 14]  # (written through the view)
