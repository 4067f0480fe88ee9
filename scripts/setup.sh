#!/usr/bin/env bash
# Set up oware-companion on a fresh Debian/Ubuntu machine. Idempotent: a second run only
# checks what is already there.
#
#   scripts/setup.sh --product   what running the product needs: .venv with the project
#                                and its camera and engine extras (scripts/run.sh)
#   scripts/setup.sh             everything, the test tools too (scripts/test.sh): the AVR
#                                toolchain and simulator for the firmware tests and Chromium
#                                for the browser tests, Mosquitto for the hall's tests
#                                (system packages, sudo when not
#                                root), PyTorch (the learn extra), the dev extra
set -euo pipefail
cd "$(dirname "$0")/.."

MODE=all
case "${1:-}" in
    --product) MODE=product ;;
    "") ;;
    *) echo "usage: scripts/setup.sh [--product]" >&2; exit 2 ;;
esac

if [ "$MODE" = all ]; then
    APT_PACKAGES=(gcc-avr avr-libc simavr libsimavr-dev libelf-dev pkg-config chromium fonts-dejavu-core mosquitto)
    need_apt=()
    for pkg in "${APT_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need_apt+=("$pkg")
    done
    if ((${#need_apt[@]})); then
        echo "setup: installing system packages: ${need_apt[*]}"
        SUDO=""
        [ "$(id -u)" -eq 0 ] || SUDO="sudo"
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
    fi
fi

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    echo "setup: creating .venv"
    "$PYTHON" -m venv .venv
fi
hash=$(sha1sum pyproject.toml | cut -c1-12)
full=.venv/.installed-$hash
product=.venv/.installed-product-$hash
if [ "$MODE" = product ]; then
    # a full install holds the product's packages too
    if [ ! -f "$full" ] && [ ! -f "$product" ]; then
        echo "setup: installing the product into .venv (camera and engine extras)"
        .venv/bin/pip install -q --upgrade pip
        .venv/bin/pip install -q -e ".[vision,fast]"
        touch "$product"
    fi
elif [ ! -f "$full" ]; then
    echo "setup: installing the project, its test tools and all extras into .venv"
    .venv/bin/pip install -q --upgrade pip
    # PyTorch's CPU build (the learn extra trains the deep seed counter); asked
    # for first and by exact version so pip does not fetch a CUDA build.
    .venv/bin/pip install -q "torch==${TORCH_VERSION:-2.13.0}" \
        || .venv/bin/pip install -q "torch==${TORCH_VERSION:-2.13.0}" --index-url https://download.pytorch.org/whl/cpu
    .venv/bin/pip install -q -e ".[all,dev]"
    rm -f .venv/.installed-*
    touch "$full"
fi
# The engine's compiled code cached for sources that have changed since (a few MB each).
OWARE_NO_NUMBA=1 .venv/bin/python -m companion.compiled_cache
