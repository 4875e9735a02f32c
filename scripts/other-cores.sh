#!/usr/bin/env bash
# The unit tests and ansible-test sanity on the older ansible-core minors the collection claims
# (meta/runtime.yml: >=2.19.0), beside the pinned 2.21 of .venv: one venv per minor in the cache, made
# once, with the Ansible community package of that core (it carries the collections the tests use,
# ansible.posix's json callback among them) and the test runners. Both minors run at once.
#   scripts/other-cores.sh            every minor below
#   scripts/other-cores.sh 2.19       one
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${GPUFLEET_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpufleet-sglang}"
declare -A PINS=([2.19]="ansible-core==2.19.14 ansible==12.3.0" [2.20]="ansible-core==2.20.10 ansible==13.8.0")
TOOLS="pytest==9.2.0 hypothesis==6.170.27 PyYAML==6.0.4 Jinja2==3.1.6 packaging==26.4"
minors=("$@")
[ "${#minors[@]}" -gt 0 ] || minors=(2.19 2.20)

python312() {
    local candidate
    for candidate in python3.12 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12.*/bin/python3.12; do
        if "$candidate" -c 'import sys; assert sys.version_info[:2] == (3, 12)' 2>/dev/null; then
            echo "$candidate"; return
        fi
    done
    echo "no Python 3.12 here (ansible-core 2.20 needs it)" >&2; return 1
}

venv_for() {  # venv_for MINOR: the venv's path, made or refreshed when its pins changed
    local venv="$cache/core-$1" want="${PINS[$1]} $TOOLS"
    if [ "$(cat "$venv/.pins" 2>/dev/null)" != "$want" ]; then
        rm -rf "$venv"
        "$(python312)" -m venv "$venv" >&2
        # shellcheck disable=SC2086  # one word per requirement
        "$venv/bin/python" -m pip install -q --disable-pip-version-check $want 2> >(grep -v "is ignored: it is neither" >&2) >&2
        printf '%s' "$want" >"$venv/.pins"
    fi
    bash "$root/scripts/pip-bootstrap.sh" "$venv" >&2
    echo "$venv"
}

run_minor() {
    local minor="$1" venv log="$cache/test-logs/core-$1.log" failed=0
    venv="$(venv_for "$minor")" || return 1
    {
        echo "==> ansible-core $minor: $("$venv/bin/ansible" --version | head -n1)"
        # The core's own tools first; the project's (aar-doc, antsibull) after them.
        PATH="$venv/bin:$root/.venv/bin:$PATH" ANSIBLE_COLLECTIONS_PATH="$root/.collections" \
            "$venv/bin/python" -m pytest -q -p no:cacheprovider tests/unit || failed=1
        ANSIBLE_TEST="$venv/bin/ansible-test" PATH="$venv/bin:$PATH" \
            bash "$root/scripts/ansible-test.sh" sanity --python 3.12 --color no || failed=1
    } >"$log" 2>&1
    if [ "$failed" -eq 0 ]; then
        echo "ansible-core $minor: ok ($(grep -E '^[0-9]+ passed' "$log" | tail -n1))"
    else
        echo "ansible-core $minor: FAILED, log: $log"; tail -n 30 "$log"
    fi
    return "$failed"
}

mkdir -p "$cache/test-logs"
cd "$root" || exit 1
pids=()
for minor in "${minors[@]}"; do
    run_minor "$minor" &
    pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
    wait "$pid" || status=1
done
exit "$status"
