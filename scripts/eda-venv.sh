#!/usr/bin/env bash
# The Event-Driven Ansible toolchain for make test-eda: ansible-rulebook in .venv-eda (requirements-eda.txt), a Java
# runtime (Debian's default-jre-headless when no java is on PATH) and Debian's Alertmanager, which the tests run as
# the webhook's sender. Prints the JAVA_HOME to use.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv-eda"
log() { printf 'eda-venv: %s\n' "$*" >&2; }

missing=""
command -v java >/dev/null 2>&1 || missing="$missing default-jre-headless"
command -v prometheus-alertmanager >/dev/null 2>&1 || missing="$missing prometheus-alertmanager"
if [ -n "$missing" ]; then
    log "installing Debian's$missing (ansible-rulebook's rule engine runs on Java; the tests' webhook sender)"
    apt-get update -qq
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

stamp="$venv/.requirements.sha256"
want="$(sha256sum "$root/requirements-eda.txt" | cut -d' ' -f1)"
if [ ! -x "$venv/bin/ansible-rulebook" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    log "creating .venv-eda"
    rm -rf "$venv"
    "$("$root/.venv/bin/python" -c 'import sys; print(sys._base_executable)')" -m venv "$venv"
    "$venv/bin/python" -m pip install -q --upgrade pip 2> >(grep -v "is ignored: it is neither" >&2)
    "$venv/bin/python" -m pip install -q -r "$root/requirements-eda.txt" 2> >(grep -v "is ignored: it is neither" >&2)
    printf '%s\n' "$want" >"$stamp"
fi
dirname "$(dirname "$(readlink -f "$(command -v java)")")"
