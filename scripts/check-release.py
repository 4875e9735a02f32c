"""The release is true to history: no module, filter or role entry point says it was added in a version
newer than galaxy.yml's, and each module, filter and role is listed as new in exactly the released
section of changelogs/changelog.yaml of the version its version_added names (so a release never ships
an item that its changelog does not announce, nor announces it under the wrong version). An item new in
galaxy.yml's version while that version is not released yet is what its release will announce.

    python3 scripts/check-release.py    (exits 1 naming every disagreement)
"""

import ast
import glob
import os
import sys

import yaml
from packaging.version import Version

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def doc_version_added(path):
    """version_added of a plugin's DOCUMENTATION."""
    tree = ast.parse(open(path).read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "DOCUMENTATION":
            return str(yaml.safe_load(node.value.value).get("version_added"))
    raise SystemExit("%s has no DOCUMENTATION" % path)


def items():
    """(kind, name, version_added, where) for every module, filter and role entry point."""
    for kind, pattern in (("module", "plugins/modules/*.py"), ("filter", "plugins/filter/*.py")):
        for path in sorted(glob.glob(os.path.join(ROOT, pattern))):
            yield kind, os.path.basename(path)[:-3], doc_version_added(path), os.path.relpath(path, ROOT)
    for path in sorted(glob.glob(os.path.join(ROOT, "roles", "*", "meta", "argument_specs.yml"))):
        role = path.split(os.sep)[-3]
        for entry, spec in yaml.safe_load(open(path))["argument_specs"].items():
            yield "role", role if entry == "main" else "%s:%s" % (role, entry), str(spec.get("version_added")), \
                os.path.relpath(path, ROOT)


def announced(changelog):
    """{(kind, name): version} of every module, filter and role the released sections list as new. A role
    without a main entry point (antsibull-changelog lists roles by it) counts as announced by the first change
    line of a release that introduces it as "<name> role (new)"."""
    found = {}
    for version, release in sorted(changelog["releases"].items(), key=lambda item: Version(item[0]), reverse=True):
        for section in release.get("changes", {}).values():
            for line in section if isinstance(section, list) else []:
                if " role (new)" in line.split(" - ")[0]:
                    found[("role", line.split(" role (new)")[0].strip())] = version
        for module in release.get("modules", []):
            found[("module", module["name"])] = version
        for plugin in release.get("plugins", {}).get("filter", []):
            found[("filter", plugin["name"])] = version
        for role in release.get("objects", {}).get("role", []):
            found[("role", role["name"])] = version
    return found


def is_released(changelog, version):
    return any(Version(released) == Version(version) for released in changelog["releases"])


def main():
    version = str(yaml.safe_load(open(os.path.join(ROOT, "galaxy.yml")))["version"])
    changelog = yaml.safe_load(open(os.path.join(ROOT, "changelogs", "changelog.yaml")))
    released = announced(changelog)
    problems = []
    for kind, name, added, where in items():
        if added in ("None", "") or Version(added) > Version(version):
            problems.append("%s %s (%s) says version_added %s, but galaxy.yml is %s" % (kind, name, where, added,
                                                                                        version))
            continue
        key = (kind, name.split(":")[0])
        if Version(added) == Version(version) and not is_released(changelog, version) and key not in released:
            continue  # new in the release being prepared: antsibull-changelog announces it when the release is cut
        if ":" in name:
            if key not in released:
                problems.append("role entry point %s (%s): its role is in no released changelog section"
                                % (name, where))
            continue
        if key not in released:
            problems.append("%s %s (%s, version_added %s) is in no released changelog section" % (kind, name, where,
                                                                                                  added))
        elif Version(released[key]) != Version(added):
            problems.append("%s %s (%s) says version_added %s, but the changelog announces it in %s" % (
                kind, name, where, added, released[key]))
    if problems:
        print("\n".join(problems))
        return 1
    print("release %s: every module, filter and role entry point is announced in the changelog of the version it "
          "says it was added in, none newer than galaxy.yml" % version)
    return 0


if __name__ == "__main__":
    sys.exit(main())
