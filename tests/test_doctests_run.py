"""Every package's docstring examples run in the test command (a doc that never runs drifts)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_with_doctests_is_collected() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert "--doctest-modules" in config["addopts"]
    collected = set(config["testpaths"])
    packages = {p.parent.name for p in ROOT.glob("*/__init__.py")} - {"tests"}
    with_prompts = {
        pkg
        for pkg in packages
        if any(">>> " in f.read_text(errors="replace") for f in (ROOT / pkg).rglob("*.py"))
    }
    assert with_prompts, "no package has a docstring example: the check looks in the wrong place"
    assert with_prompts <= collected, f"doctests never run in: {sorted(with_prompts - collected)}"
