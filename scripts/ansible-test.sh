#!/usr/bin/env bash
# Run ansible-test on a copy of the checkout laid out as ansible_collections/gpufleet/sglang
# (ansible-test resolves symlinks, so the .collections link does not satisfy it).
# Usage: scripts/ansible-test.sh sanity --python 3.13   (ANSIBLE_TEST: another core's ansible-test)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Outside the checkout: inside it, ansible-test would list files through the checkout's git.
# One copy per checkout and ansible-test, so that two can run at the same time.
checkout_id="$(printf '%s' "$root${ANSIBLE_TEST:-}" | sha256sum | cut -c1-12)"
work="${GPUFLEET_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpufleet-sglang}/ansible-test/$checkout_id/ansible_collections/gpufleet/sglang"

rm -rf "$work"
mkdir -p "$work"
(cd "$root" && git ls-files -z --cached --others --exclude-standard | xargs -0 -r tar -cf - 2>/dev/null) \
    | tar -xf - -C "$work"
cd "$work"
exec "${ANSIBLE_TEST:-$root/.venv/bin/ansible-test}" "$@"
