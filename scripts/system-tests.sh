#!/usr/bin/env bash
# The tests on systemd containers, in three lanes at once, balanced by what each step took in CI (seconds, with
# the three lanes sharing two cores, 2026-12-07 at b1cf35a): upgrade (1219), weights (594) then groups (680); the
# integration tests (tests/integration, 2469: site.yml through the execution environment and from the built tarball,
# the example inventory, Prometheus and Alertmanager, planned absences, adding a server, on the demo fleet);
# cuda_driver, default, patch, site (460, 56, 90, 870: cuda_driver and site both name their stand-in repository's
# container gpufleet-cuda-repo, so they share a lane) then the real SGLang (1018). Three lanes keep both cores busy
# (98%, docs/development.md): a fourth would not be
# faster. A scenario that no lane names runs in the last one. Across lanes the
# scenarios have their own containers and networks, and the base images are built before (make test
# makes them first), so the lanes share nothing but the machine. Everything runs even when one fails; the
# exit status is non-zero if any failed. Each lane's output is printed in one piece, with each step's time.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

lanes=("upgrade weights groups" "tests/integration" "cuda_driver default patch site real")
# Not in make test: its own target (make test-rollout).
named=" ${lanes[*]} real_rollout "
for config in molecule/*/molecule.yml; do
    scenario="$(basename "$(dirname "$config")")"
    [[ "$named" == *" $scenario "* ]] || lanes[2]+=" $scenario"
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
pids=()
for index in "${!lanes[@]}"; do
    (
        for step in ${lanes[$index]}; do
            start=$SECONDS
            if [ "$step" = tests/integration ]; then
                pytest -q -p no:cacheprovider --durations=10 tests/integration || echo "$step" >>"$work/failed"
            else
                molecule test -s "$step" || echo "$step" >>"$work/failed"
            fi
            echo "==> $step: $((SECONDS - start)) s"
        done
    ) >"$work/lane-$index.log" 2>&1 &
    pids+=($!)
done
for pid in "${pids[@]}"; do
    wait "$pid"
done
for index in "${!lanes[@]}"; do
    printf '\n==> lane %d: %s\n' "$((index + 1))" "${lanes[$index]}"
    cat "$work/lane-$index.log"
done
if [ -s "$work/failed" ]; then
    printf 'system tests: failed: %s\n' "$(tr '\n' ' ' <"$work/failed")"
    exit 1
fi
