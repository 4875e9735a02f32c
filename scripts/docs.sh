#!/usr/bin/env bash
# Role READMEs from meta/argument_specs.yml (aar-doc), below their hand-written heads.
#   scripts/docs.sh          regenerate every roles/*/README.md
#   scripts/docs.sh --check  fail, with the difference, when a README is not what the generator makes
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
check=false
template="$root/docs/templates/role-readme.md.j2"  # aar-doc reads a missing file as the template text itself
[ -f "$template" ] || { echo "docs: $template is missing" >&2; exit 1; }
[ "${1:-}" = "--check" ] && check=true

generate() {  # generate COLLECTION_ROOT: inject the generated part into every role's README
    local role
    for role in "$1"/roles/*/; do
        aar-doc --output-mode inject --output-template "$template" "$role" markdown >/dev/null
    done
}

if ! $check; then
    generate "$root"
    readmes=("$root"/roles/*/README.md)
    echo "docs: regenerated ${#readmes[@]} role READMEs"
    exit 0
fi

# Generate into a copy (aar-doc reads galaxy.yml two levels above a role) and compare.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/roles"
cp "$root/galaxy.yml" "$work/"
cp -r "$root"/roles/* "$work/roles/"
generate "$work"
stale=0
for readme in "$root"/roles/*/README.md; do
    role="$(basename "$(dirname "$readme")")"
    if ! diff -u "$readme" "$work/roles/$role/README.md"; then
        echo "docs: roles/$role/README.md is stale: run scripts/docs.sh (make docs) and commit it" >&2
        stale=1
    fi
done
[ "$stale" -eq 0 ] && echo "docs: every role README matches its argument spec"
exit "$stale"
