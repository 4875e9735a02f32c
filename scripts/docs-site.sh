#!/usr/bin/env bash
# The collection's documentation site, built offline: antsibull-docs writes the RST of every plugin, role
# (docs/site/design.rst adds docs/design.md through MyST) from the collection as installed in
# .collections, and Sphinx makes HTML of it (docs/site/conf.py) into build/docs-site/html (open index.html).
# Fails on any Sphinx warning but those about docs.ansible.com and docs.python.org, which cannot be reached
# here (their inventories, and the labels that live there).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/build/docs-site"
rm -rf "$out"
mkdir -p "$out"
mkdir -m 0755 "$out/rst"  # antsibull-docs wants its destination writable by its owner only
cp "$root/docs/site/conf.py" "$out/"
antsibull-docs --config-file "$root/docs/site/antsibull-docs.cfg" collection --cleanup everything --use-current \
    --dest-dir "$out/rst" gpufleet.sglang >/dev/null
# The root page, and the pages that include docs/design.md, development.md, benchmarks.md and runbooks.md (not
# pages of their own: conf.py excludes them).
cp "$root/docs/site/index.rst" "$root/docs/site/"{design,development,benchmarks,runbooks}.rst \
    "$root/docs/"{design,development,benchmarks,runbooks}.md \
    "$out/rst/"
sphinx-build -M html "$out/rst" "$out" -c "$out" -q --keep-going 2>"$out/warnings.log" || true
unexpected="$(grep -i "warning\|error" "$out/warnings.log" \
    | grep -v "failed to reach any of the inventories\|undefined label: '\(common_return_values\|ansible_configuration_settings\)'\|intersphinx inventory\|docs.ansible.com\|docs.python.org" || true)"
if [ -n "$unexpected" ] || [ ! -f "$out/html/index.html" ]; then
    echo "docs-site: Sphinx warned about the collection:" >&2
    echo "$unexpected" >&2
    exit 1
fi
echo "docs-site: $out/html/index.html ($(find "$out/html" -name '*.html' | wc -l) pages; only the unreachable docs.ansible.com and docs.python.org warned)"
