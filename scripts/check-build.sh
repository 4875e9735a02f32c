#!/usr/bin/env bash
# Build the collection tarball, check that test and dev files stay out of it, install it
# into an empty collections path and read every module's documentation from there.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cd "$root"
ansible-galaxy collection build --force --output-path "$work" >/dev/null
tarball="$(ls "$work"/gpufleet-sglang-*.tar.gz)"
echo "built $(basename "$tarball") ($(tar -tzf "$tarball" | wc -l) entries)"

leaked="$(tar -tzf "$tarball" | grep -E '^(tests|molecule|scripts|bench|\.ci|\.config|\.venv|\.collections|inventories/demo)(/|$)|^(Makefile|requirements-dev\.txt|ansible\.cfg)$' || true)"
if [ -n "$leaked" ]; then
    echo "test or dev files in the tarball:" >&2; echo "$leaked" >&2; exit 1
fi

# Quiet unless it fails: ansible-doc warns about unrelated collections in the venv.
quietly() { local out; out="$("$@" 2>&1)" || { printf '%s\n' "$out" >&2; return 1; }; }

cd "$work"
export ANSIBLE_COLLECTIONS_PATH="$work/installed"
quietly ansible-galaxy collection install --force -p "$work/installed" "$tarball"
for module in "$root"/plugins/modules/*.py; do
    name="gpufleet.sglang.$(basename "$module" .py)"
    quietly ansible-doc "$name"
    echo "ansible-doc $name: ok"
done
for role in "$root"/roles/*/; do
    name="gpufleet.sglang.$(basename "$role")"
    quietly ansible-doc -t role "$name"
    echo "ansible-doc -t role $name: ok"
done
