#!/usr/bin/env bash
# The documentation that is generated stays what its generator makes: role READMEs from their
# argument specs, CHANGELOG.md from changelogs/changelog.yaml; changelog fragments and the
# changelog data lint clean (antsibull-changelog).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

bash scripts/docs.sh --check

antsibull-changelog lint
antsibull-changelog lint-changelog-yaml changelogs/changelog.yaml
echo "changelog: fragments and changelogs/changelog.yaml lint clean"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r galaxy.yml changelogs CHANGELOG.md "$work/"
rm -f "$work/changelogs/.plugin-cache.yaml"
# ansible-doc finds the collection's plugins and roles through .collections (make setup).
(cd "$work" && antsibull-changelog generate 2> >(grep -v "does not have a MANIFEST.json" >&2))
if ! diff -u CHANGELOG.md "$work/CHANGELOG.md"; then
    echo "changelog: CHANGELOG.md is not what antsibull-changelog generate makes of changelogs/changelog.yaml" >&2
    exit 1
fi
echo "changelog: CHANGELOG.md is generated from changelogs/changelog.yaml"

python3 scripts/check-release.py
