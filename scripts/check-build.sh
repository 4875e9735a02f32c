#!/usr/bin/env bash
# Build the collection tarball, check that test and dev files stay out of it, install it
# into an empty collections path and read every plugin's and role's documentation from there,
# lint that documentation (antsibull-docs) and import the tarball as Galaxy does (galaxy-importer,
# offline, without its ansible-test step). Either tool's warning about the collection fails.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cd "$root"
ansible-galaxy collection build --force --output-path "$work" >/dev/null
tarball="$(ls "$work"/gpufleet-sglang-*.tar.gz)"
echo "built $(basename "$tarball") ($(tar -tzf "$tarball" | wc -l) entries)"

leaked="$(tar -tzf "$tarball" | grep -E '^(tests|molecule|scripts|bench|\.ci|\.config|\.venv|\.collections|inventories/demo)(/|$)|^(Makefile|requirements-dev\.txt|ansible\.cfg|pytest\.ini)$' || true)"
if [ -n "$leaked" ]; then
    echo "test or dev files in the tarball:" >&2; echo "$leaked" >&2; exit 1
fi
python3 scripts/release-manifest.py check "$tarball"

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
for filter in "$root"/plugins/filter/*.py; do
    name="gpufleet.sglang.$(basename "$filter" .py)"
    quietly ansible-doc -t filter "$name"
    echo "ansible-doc -t filter $name: ok"
done
for role in "$root"/roles/*/; do
    name="gpufleet.sglang.$(basename "$role")"
    quietly ansible-doc -t role "$name"
    echo "ansible-doc -t role $name: ok"
done

# Documentation markup and references (P(), O(), M()...) as the docsite would build them.
collection="$work/installed/ansible_collections/gpufleet/sglang"
# ansible-lint as a user runs it on the installed collection (its .ansible-lint ships in the tarball).
if ! (cd "$collection" && ansible-lint --profile production --offline -q >"$work/lint.log" 2>&1); then
    cat "$work/lint.log" >&2; echo "ansible-lint on the installed collection: failed" >&2; exit 1
fi
echo "ansible-lint --profile production on the installed collection: ok"
(cd "$collection" && antsibull-docs lint-collection-docs --plugin-docs .)
echo "antsibull-docs lint-collection-docs --plugin-docs: ok"

# Galaxy's importer, from its own venv; its ansible-test step stays off (it needs a container
# registry). It ends non-zero on an error; a WARNING line about the collection fails here too.
importer_config="$work/galaxy-importer.cfg"
printf '[galaxy-importer]\nrun_ansible_test = False\nrun_ansible_lint = True\noffline_ansible_lint = True\ncheck_changelog = True\n' \
    >"$importer_config"
importer_log="$work/importer.log"
# Its own HOME: the importer installs the collection under ~/.ansible/collections, where a stale copy
# would shadow the checkout for ansible-lint and ansible-playbook on this machine.
mkdir -p "$work/home"
if ! (cd "$work" && HOME="$work/home" GALAXY_IMPORTER_CONFIG="$importer_config" \
        "$root/.venv-galaxy/bin/python" -m galaxy_importer.main "$tarball" >"$importer_log" 2>&1); then
    cat "$importer_log" >&2; echo "galaxy-importer: the import failed" >&2; exit 1
fi
if grep -Ei '^(WARNING|ERROR)|warning:' "$importer_log" >&2; then
    echo "galaxy-importer: the import warns about the collection (above)" >&2; exit 1
fi
listed="$(python3 -c 'import json, sys; print(" ".join(sorted("%s:%s" % (c["content_type"], c["name"]) for c in json.load(open(sys.argv[1]))["contents"])))' "$work/importer_result.json")"
echo "galaxy-importer: ok ($(wc -w <<<"$listed") contents: $listed)"
