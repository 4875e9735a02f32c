#!/usr/bin/env bash
# A new machine's first CI run, measured on a used one: .ci/run on a new clone of this checkout's HEAD with
# empty caches (pip's and the collection's: the SGLang venvs, wheelhouses, Debian packages, ansible-test's, the
# demo's keys) and without the collection's Docker images (the base images and the execution environment are
# built again). The caches of the machine stay as they were: the run's own are under WORK.
#   bench/fresh_ci.sh [WORK]    (default: a new directory under /var/tmp; about 25 GB)
# What it cannot undo, and so does not measure: installing the Docker engine and the Debian packages the
# machine already has (docker.io, debootstrap, Python 3.11), about a minute on a new machine.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="${1:-$(mktemp -d /var/tmp/gpufleet-fresh.XXXXXX)}"
version="$(sed -n 's/^version: *//p' "$root/galaxy.yml")"

git clone -q "$root" "$work/clone"
mkdir -p "$work/cache"
docker image rm -f gpufleet-sglang/debian12-systemd:bookworm gpufleet-sglang/debian13-systemd:trixie \
    "gpufleet-sglang-ee:$version" >/dev/null 2>&1 || true

start=$SECONDS
status=0
(cd "$work/clone" && XDG_CACHE_HOME="$work/cache" GPUFLEET_CACHE="$work/cache/gpufleet-sglang" CI=true \
    bash .ci/run) >"$work/ci.log" 2>&1 || status=$?
echo "fresh_ci: .ci/run exited $status after $((SECONDS - start)) s with empty caches and no images; log: $work/ci.log"
grep -E '^  (ok|FAILED|time) ' "$work/ci.log" || true
exit "$status"
