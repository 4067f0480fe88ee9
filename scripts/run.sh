#!/usr/bin/env bash
# Run the product on the virtual board (no hardware needed) and open
# http://127.0.0.1:8000 in a browser. Extra arguments go to `oware-companion demo`
# (e.g. --rules universal-3). Installs only what the product needs; the test tools
# come with scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --product
exec .venv/bin/oware-companion demo "$@"
