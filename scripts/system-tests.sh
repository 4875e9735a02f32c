#!/usr/bin/env bash
# The tests on systemd containers, in two lanes at once: the long lane (the upgrade scenario, ~26 min,
# then the groups scenario) beside all the other molecule scenarios in turn and then the integration
# tests (tests/integration: site.yml through the execution environment, on the demo fleet). Each has
# its own containers and networks, and the base images are built before (make test depends on make
# image), so the lanes share nothing but the machine. Everything runs even when one fails; the exit
# status is non-zero if any failed. The long lane's output is printed after the other lane's, in one piece.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

long=(upgrade groups)
long_log="$(mktemp)"
long_failed="$(mktemp)"
trap 'rm -f "$long_log" "$long_failed"' EXIT
(
    for scenario in "${long[@]}"; do
        start=$SECONDS
        molecule test -s "$scenario" || echo "$scenario" >>"$long_failed"
        echo "==> molecule $scenario: $((SECONDS - start)) s"
    done
) >"$long_log" 2>&1 &
long_pid=$!

failed=()
for config in molecule/*/molecule.yml; do
    scenario="$(basename "$(dirname "$config")")"
    [[ " ${long[*]} " == *" $scenario "* ]] && continue
    start=$SECONDS
    molecule test -s "$scenario" || failed+=("$scenario")
    echo "==> molecule $scenario: $((SECONDS - start)) s"
done
start=$SECONDS
pytest -q -p no:cacheprovider tests/integration || failed+=(tests/integration)
echo "==> tests/integration: $((SECONDS - start)) s"

wait "$long_pid"
mapfile -t -O "${#failed[@]}" failed <"$long_failed"
printf '\n==> molecule scenarios %s (ran beside the others)\n' "${long[*]}"
cat "$long_log"
if [ "${#failed[@]}" -gt 0 ]; then
    printf 'system tests: failed: %s\n' "${failed[*]}"
    exit 1
fi
