#!/usr/bin/env bash
# Every molecule scenario, in two lanes at once: the upgrade scenario (the longest, ~26 min) beside
# all the others in turn. Each scenario has its own containers and networks, and the base images are
# built before (make test depends on make image), so the lanes share nothing but the machine. Every
# scenario runs even when one fails; the exit status is non-zero if any failed. The upgrade lane's
# output is printed after the other lane's, in one piece.
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

wait "$long_pid" || failed+=("$long")
printf '\n==> molecule scenario %s (ran beside the others)\n' "$long"
cat "$long_log"
if [ "${#failed[@]}" -gt 0 ]; then
    printf 'molecule: failed: %s\n' "${failed[*]}"
    exit 1
fi
