#!/usr/bin/env bash
# Run the product on the virtual board (no hardware needed) and open
# http://127.0.0.1:8000 in a browser. Extra arguments go to `oware-companion demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/oware-companion demo "$@"
