#!/usr/bin/env bash
# The tests on systemd containers, in two lanes at once: the upgrade scenario (the longest, ~26 min)
# beside all the other molecule scenarios in turn and then the integration tests (tests/integration:
# site.yml through the execution environment, on the demo fleet). Each has its own containers and
# networks, and the base images are built before (make test depends on make image), so the lanes
# share nothing but the machine. Everything runs even when one fails; the exit status is non-zero if
# any failed. The upgrade lane's output is printed after the other lane's, in one piece.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

long=upgrade
long_log="$(mktemp)"
trap 'rm -f "$long_log"' EXIT
molecule test -s "$long" >"$long_log" 2>&1 &
long_pid=$!

failed=()
for config in molecule/*/molecule.yml; do
    scenario="$(basename "$(dirname "$config")")"
    [ "$scenario" = "$long" ] && continue
    molecule test -s "$scenario" || failed+=("$scenario")
done
pytest -q -p no:cacheprovider tests/integration || failed+=(tests/integration)

wait "$long_pid" || failed+=("$long")
printf '\n==> molecule scenario %s (ran beside the others)\n' "$long"
cat "$long_log"
if [ "${#failed[@]}" -gt 0 ]; then
    printf 'system tests: failed: %s\n' "${failed[*]}"
    exit 1
fi
