#!/usr/bin/env bash
# The whole test suite: set up (idempotent), lint and format check, type-check, then pytest.
# This is exactly what CI runs (.ci/run). Arguments go to pytest: `scripts/test.sh --cov`
# adds the coverage report (tracing makes the run about a third longer, past what CI allows).
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
pytest -n "${TEST_WORKERS:-2}" --dist loadfile --durations=25 "$@"
