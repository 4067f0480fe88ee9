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
pytest --cov --cov-report=term:skip-covered "$@"
