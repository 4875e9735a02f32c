#!/usr/bin/env bash
# Create the pinned development environment in .venv and make the checkout
# importable as the collection gpufleet.sglang.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
log() { printf 'setup: %s\n' "$*" >&2; }

# The newest Python that the pinned ansible-core runs on (3.12+), found on PATH or in pyenv.
find_python() {
    local v candidate
    for v in 3.14 3.13 3.12; do
        for candidate in "python$v" "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$v".*/bin/"python$v"; do
            if "$candidate" -c 'import ssl, venv' >/dev/null 2>&1; then
                command -v "$candidate" 2>/dev/null || printf '%s\n' "$candidate"
                return 0
            fi
        done
    done
    return 1
}

# Never the interpreter of the venv this may delete and rebuild (make puts .venv/bin first on PATH).
PATH="$(printf '%s' "$PATH" | tr ':' '\n' | grep -vxF "$venv/bin" | paste -sd: -)"

stamp="$venv/.requirements.sha256"
want="$(sha256sum "$root/requirements-dev.txt" | cut -d' ' -f1)"
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    python="$(find_python)" || { log "no Python 3.12 or newer found (ansible-core 2.21 needs one)"; exit 1; }
    log "creating .venv with $python"
    rm -rf "$venv"
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install -q --upgrade pip 2> >(grep -v "is ignored: it is neither" >&2)
    "$venv/bin/python" -m pip install -q -r "$root/requirements-dev.txt" 2> >(grep -v "is ignored: it is neither" >&2)
    printf '%s\n' "$want" >"$stamp"
else
    log ".venv is current"
fi

# Galaxy's importer in its own venv, so that its pins never meet the project's.
galaxy_venv="$root/.venv-galaxy"
galaxy_stamp="$galaxy_venv/.requirements.sha256"
galaxy_want="$(sha256sum "$root/requirements-galaxy.txt" | cut -d' ' -f1)"
if [ ! -x "$galaxy_venv/bin/python" ] || [ "$(cat "$galaxy_stamp" 2>/dev/null)" != "$galaxy_want" ]; then
    log "creating .venv-galaxy"
    rm -rf "$galaxy_venv"
    "$("$venv/bin/python" -c 'import sys; print(sys._base_executable)')" -m venv "$galaxy_venv"
    "$galaxy_venv/bin/python" -m pip install -q --upgrade pip 2> >(grep -v "is ignored: it is neither" >&2)
    "$galaxy_venv/bin/python" -m pip install -q -r "$root/requirements-galaxy.txt" 2> >(grep -v "is ignored: it is neither" >&2)
    printf '%s\n' "$galaxy_want" >"$galaxy_stamp"
fi

# ansible-test sanity runs shellcheck on the scripts when it is installed; the stand-in CUDA
# repository (tests/standin/nvidia_repo) is signed with gpg; the controller reaches the test and
# demo hosts with ssh and makes their keys with ssh-keygen.
missing=""
command -v ssh-keygen >/dev/null 2>&1 || missing="$missing openssh-client"
command -v shellcheck >/dev/null 2>&1 || missing="$missing shellcheck"
command -v gpg >/dev/null 2>&1 || missing="$missing gnupg"
if [ -n "$missing" ] && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "installing$missing"
    # shellcheck disable=SC2086  # one word per package
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

# ANSIBLE_COLLECTIONS_PATH points at .collections, where the checkout is gpufleet.sglang.
link="$root/.collections/ansible_collections/gpufleet/sglang"
mkdir -p "$(dirname "$link")"
ln -sfn ../../.. "$link"

# ansible-test fetches a pip bootstrap script from a host that cannot be reached here.
bash "$root/scripts/pip-bootstrap.sh" "$venv"
log "ready: $("$venv/bin/ansible" --version | head -n1)"
