#!/usr/bin/env bash
# Set up everything oware-companion needs on a fresh Debian/Ubuntu machine:
# system packages (AVR toolchain + simulator for the firmware tests, Chromium
# for the browser tests) and a virtual environment in .venv with the project
# installed in editable mode with all extras.
#
# Idempotent: a second run only checks what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(gcc-avr avr-libc simavr libsimavr-dev libelf-dev pkg-config chromium fonts-dejavu-core)

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

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    echo "setup: creating .venv"
    "$PYTHON" -m venv .venv
fi
stamp=.venv/.installed-$(sha1sum pyproject.toml | cut -c1-12)
if [ ! -f "$stamp" ]; then
    echo "setup: installing the project and its dependencies into .venv"
    .venv/bin/pip install -q --upgrade pip
    # PyTorch's CPU build (the learn extra trains the deep seed counter); asked
    # for first and by exact version so pip does not fetch a CUDA build.
    .venv/bin/pip install -q "torch==${TORCH_VERSION:-2.13.0}" \
        || .venv/bin/pip install -q "torch==${TORCH_VERSION:-2.13.0}" --index-url https://download.pytorch.org/whl/cpu
    .venv/bin/pip install -q -e ".[all,dev]"
    rm -f .venv/.installed-*
    touch "$stamp"
fi
