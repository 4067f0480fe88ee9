"""The README's two commands: ``scripts/run.sh`` installs what the product needs, and only
that (it installed the AVR toolchain, the simulator, Chromium and PyTorch, the test
tools, before the demo could start); ``scripts/test.sh``'s set-up installs everything.

The scripts run for real in a copy of the repository, with the programs they call
(``dpkg-query``, ``apt-get``, ``sudo``, ``python3 -m venv``, pip, the console script)
replaced by stubs that write down how they were called.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

STUB = """#!/bin/sh
echo "{name} $*" >> "{log}"
"""
#: python3 -m venv .venv: a virtual environment whose programs are stubs too.
VENV = """#!/bin/sh
echo "python3 $*" >> "{log}"
mkdir -p .venv/bin
for tool in pip python oware-companion; do
  printf '#!/bin/sh\\necho "%s $*" >> "{log}"\\n' "$tool" > .venv/bin/$tool
  chmod +x .venv/bin/$tool
done
"""


#: What both set-ups end with: the engine's compiled code for older sources removed.
PRUNE = "python -m companion.compiled_cache"


def _executable(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A copy of the scripts and pyproject.toml, and stubs first on the PATH."""
    copy = tmp_path / "repo"
    (copy / "scripts").mkdir(parents=True)
    for name in ("setup.sh", "run.sh"):
        shutil.copy2(ROOT / "scripts" / name, copy / "scripts" / name)
    shutil.copy2(ROOT / "pyproject.toml", copy / "pyproject.toml")
    stubs = tmp_path / "bin"
    stubs.mkdir()
    log = tmp_path / "calls.log"
    log.touch()
    for name in ("dpkg-query", "apt-get"):
        _executable(stubs / name, STUB.format(name=name, log=log))
    _executable(stubs / "sudo", STUB.format(name="sudo", log=log) + '"$@"\n')
    _executable(stubs / "python3", VENV.format(log=log))
    return copy


def _run(repo: Path, *command: str) -> list[str]:
    env = {**os.environ, "PATH": f"{repo.parent / 'bin'}:/usr/bin:/bin", "PYTHON": "python3"}
    done = subprocess.run(
        list(command), cwd=repo, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return (repo.parent / "calls.log").read_text().splitlines()


def test_run_installs_only_what_the_product_needs(repo: Path) -> None:
    calls = _run(repo, "scripts/run.sh", "--port", "8123")
    assert not [c for c in calls if c.startswith(("apt-get", "dpkg-query", "sudo"))], calls
    assert not [c for c in calls if "torch" in c or "dev]" in c or "all," in c], calls
    assert "pip install -q -e .[vision,fast]" in calls
    assert calls[-1] == "oware-companion demo --port 8123"
    # a second run installs nothing again (it only clears compiled code of older sources)
    (repo.parent / "calls.log").write_text("")
    assert _run(repo, "scripts/run.sh") == [PRUNE, "oware-companion demo"]


def test_the_test_set_up_installs_the_test_tools(repo: Path) -> None:
    calls = _run(repo, "scripts/setup.sh")
    assert [c for c in calls if c.startswith("dpkg-query")], calls  # system packages checked
    assert any(c.startswith("apt-get install") and "chromium" in c for c in calls), calls
    assert any(c.startswith("pip install") and "torch==" in c for c in calls), calls
    assert "pip install -q -e .[all,dev]" in calls
    assert calls[-1] == PRUNE
    # the product is part of it: run.sh then installs nothing more
    (repo.parent / "calls.log").write_text("")
    assert _run(repo, "scripts/run.sh") == [PRUNE, "oware-companion demo"]
