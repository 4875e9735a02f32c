#!/usr/bin/env bash
# The whole test suite: lint, generated docs, build and Galaxy import, sanity, unit tests, then
# molecule and the integration tests (system). Every step runs; the script exits non-zero if any failed and ends with a summary and pytest's line for the unit tests.
# The unit and the real-SGLang tests (one pytest process each) run beside each other and beside the other static
# steps; their output is printed when they end. The system tests come last: their lanes keep both cores busy.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root" || exit 1
export PATH="$root/.venv/bin:$PATH"
export ANSIBLE_COLLECTIONS_PATH="$root/.collections"
logs="${GPUFLEET_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpufleet-sglang}/test-logs"
mkdir -p "$logs"

python_minor="$(python -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
results="$(mktemp)"
trap 'rm -f "$results"' EXIT

step() {
    local name="$1"; shift
    local start=$SECONDS
    printf '\n==> %s: %s\n' "$name" "$*"
    if "$@" 2>&1 | tee "$logs/$name.log"; then
        echo "ok     $name ($((SECONDS - start)) s)" >>"$results"
    else
        echo "FAILED $name ($((SECONDS - start)) s), log: $logs/$name.log" >>"$results"
    fi
}

pytest_started=$SECONDS
step units pytest -q tests/unit >"$logs/units-step.out" 2>&1 &
units_step=$!
step real-sglang pytest -q tests/real_sglang >"$logs/real-sglang-step.out" 2>&1 &
real_sglang_step=$!
step yamllint yamllint --strict .
step ansible-lint ansible-lint --profile production
step docs bash scripts/check-docs.sh
step docs-site bash scripts/docs-site.sh
step build bash scripts/check-build.sh
step sanity bash scripts/ansible-test.sh sanity --python "$python_minor" --color no
wait "$units_step" "$real_sglang_step"
cat "$logs/units-step.out" "$logs/real-sglang-step.out"
echo "time   static steps, units and real-sglang beside the rest ($((SECONDS - pytest_started)) s)" >>"$results"
step system bash scripts/system-tests.sh

printf '\n==> summary\n'
sed 's/^/  /' "$results"
grep -E '^[0-9]+ (passed|failed)|^=+ .*(passed|failed)' "$logs/units.log" | tail -n 1
! grep -q '^FAILED' "$results"
