#!/usr/bin/env bash
# The whole test suite: set up (idempotent), lint and format check, type-check, then pytest
# with coverage. This is exactly what CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="$PWD/.venv/bin:$PATH"
echo "== ruff =="
ruff check .
ruff format --check .
echo "== mypy =="
mypy
echo "== pytest =="
# Two workers (pytest-xdist), a test file each at a time: most tests wait on a server, a
# browser or a simulator, so one worker leaves a core idle. TEST_WORKERS=0 runs in one process.
pytest -n "${TEST_WORKERS:-2}" --dist loadfile --durations=25 --cov --cov-report=term:skip-covered "$@"
