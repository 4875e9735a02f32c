"""A release's content, recorded when it is cut and checked ever after: the sha256 of every file of the built
tarball, in changelogs/releases/<version>.sha256 (sha256sum's format). Once galaxy.yml's version is released
(changelogs/changelog.yaml has it), a tarball built from the checkout must hold exactly the recorded files:
a change after a release needs a new version, so no two tarballs of one version exist.

    python3 scripts/release-manifest.py record TARBALL   (make release: after antsibull-changelog release)
    python3 scripts/release-manifest.py check TARBALL    (make test, scripts/check-build.sh)
"""

import hashlib
import os
import sys
import tarfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def content(tarball):
    """{path: sha256} of every regular file in the tarball."""
    found = {}
    with tarfile.open(tarball) as archive:
        for member in archive.getmembers():
            if member.isfile():
                found[member.name] = hashlib.sha256(archive.extractfile(member).read()).hexdigest()
    return found


def manifest_path(root, version):
    return os.path.join(root, "changelogs", "releases", "%s.sha256" % version)


def render(files):
    return "".join("%s  %s\n" % (digest, name) for name, digest in sorted(files.items()))


def parse(text):
    return dict((line[66:], line[:64]) for line in text.splitlines() if line)


def version_of(root):
    return str(yaml.safe_load(open(os.path.join(root, "galaxy.yml")))["version"])


def released(root, version):
    changelog = yaml.safe_load(open(os.path.join(root, "changelogs", "changelog.yaml")))
    return version in (changelog.get("releases") or {})


def record(root, tarball):
    version = version_of(root)
    if not released(root, version):
        return "%s is not released in changelogs/changelog.yaml: run antsibull-changelog release first" % version
    path = manifest_path(root, version)
    if os.path.exists(path):
        return "%s is recorded already (%s): a release is recorded once" % (version, os.path.relpath(path, root))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        handle.write(render(content(tarball)))
    return None


def check(root, tarball):
    version = version_of(root)
    if not released(root, version):
        return None
    path = manifest_path(root, version)
    if not os.path.exists(path):
        return "%s is released but its content was not recorded (%s)" % (version, os.path.relpath(path, root))
    recorded, built = parse(open(path).read()), content(tarball)
    differ = sorted(name for name in set(recorded) | set(built) if recorded.get(name) != built.get(name))
    if differ:
        return ("%s is released, and this checkout builds it with other content than its record (%s): %s. "
                "Set galaxy.yml's version to the next one, with a changelog fragment for the change."
                % (version, os.path.relpath(path, root), ", ".join(differ[:10]) + (" ..." if len(differ) > 10 else "")))
    return None


def main(argv):
    if len(argv) != 3 or argv[1] not in ("record", "check"):
        sys.exit(__doc__)
    problem = (record if argv[1] == "record" else check)(ROOT, argv[2])
    if problem:
        sys.exit("release-manifest: " + problem)
    print("release-manifest: %s %s" % (version_of(ROOT), "recorded" if argv[1] == "record" else "ok"))


if __name__ == "__main__":
    main(sys.argv)
