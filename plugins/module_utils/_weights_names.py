# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a revision's listing may say before anything of it is planned: the listing comes from a source that may
be hostile (a mirror, the network path to it, a manifest on disk), and the module that acts on it runs as root.

A file's name is relative and normalised, stays inside the revision's directory, and is short enough for any
filesystem; its size is a whole number a disk can hold; its digests have their form. A repository id and a
commit have the Hub's forms, so that the directory they name stays below the weights root.
"""

from __future__ import annotations

import re

COMMIT = re.compile(r"^[0-9a-f]{40}$")
SHA256 = re.compile(r"^[0-9a-f]{64}$")
REPO = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9])?(?:/[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9])?)?$")
CONTROL = re.compile(r"[\x00-\x1f\x7f\\]")
DRIVE = re.compile(r"^[A-Za-z]:")
MAX_PATH = 1024
MAX_COMPONENT = 255
MAX_SIZE = 1 << 42  # 4 TiB: larger than any one file of a model
MAX_FILES = 100000
MANIFEST = ".gpufleet-manifest.json"
RESERVED = (MANIFEST, MANIFEST + ".tmp")
PARTIAL = ".part"


class ListingError(ValueError):
    """A name or an entry of a listing that is refused, and why."""


def repo_problem(repo):
    """Why a repository id cannot name a directory below the weights root, or None."""
    if not isinstance(repo, str) or not REPO.match(repo) or ".." in repo or "--" in repo:
        return ("%r is not a Hugging Face repository id (ORG/NAME: letters, digits, '.', '_' and '-', without "
                "'..' or '--')" % (repo,))
    return None


def path_problem(path):
    """Why a file's name from a listing cannot be staged inside its revision's directory, or None."""
    if not isinstance(path, str) or not path:
        return "is not a file name"
    if CONTROL.search(path):
        return "has a backslash, a NUL or a control character"
    if path.startswith("/") or DRIVE.match(path):
        return "is an absolute path"
    if len(path.encode("utf-8", "surrogatepass")) > MAX_PATH:
        return "is longer than %d bytes" % MAX_PATH
    for part in path.split("/"):
        if part in ("", ".", ".."):
            return "is not a normalised relative path (an empty, '.' or '..' component)"
        if len(part.encode("utf-8", "surrogatepass")) > MAX_COMPONENT:
            return "has a component longer than %d bytes" % MAX_COMPONENT
    if path in RESERVED:
        return "is the name of this collection's own manifest"
    return None


def entry_problem(entry):
    """Why one file of a listing ({path, size, sha256, oid}) is refused, or None."""
    problem = path_problem(entry.get("path"))
    if problem:
        return problem
    size = entry.get("size")
    if isinstance(size, bool) or not isinstance(size, int) or not 0 <= size <= MAX_SIZE:
        return "has the size %r (a whole number of bytes up to 4 TiB is expected)" % (size,)
    if entry.get("sha256") is not None and not (isinstance(entry["sha256"], str) and SHA256.match(entry["sha256"])):
        return "has an LFS sha256 that is not 64 hex digits"
    if entry.get("oid") is not None and not (isinstance(entry["oid"], str) and COMMIT.match(entry["oid"])):
        return "has a git blob id that is not 40 hex digits"
    if not entry.get("sha256") and not entry.get("oid"):
        return "has no digest (neither an LFS sha256 nor a git blob id) to verify it against"
    return None


def check_listing(files, repo, commit, where):
    """Raise ListingError naming the first refused entry of a revision's listing, and the repository; the whole
    revision is refused. where says where the listing came from."""
    if len(files) > MAX_FILES:
        raise ListingError("%s lists more than %d files for %s@%s: refused" % (where, MAX_FILES, repo, commit))
    seen = set()
    for entry in files:
        problem = entry_problem(entry)
        path = entry.get("path")
        if not problem and path in seen:
            problem = "is listed twice"
        if problem:
            raise ListingError("%s lists %r in %s@%s, which %s. The whole revision is refused and nothing was "
                               "written: fix the listing at its source, or use another source." % (
                                   where, path, repo, commit, problem))
        seen.add(path)
    for path in sorted(seen):
        parts = path.split("/")
        clash = next(("/".join(parts[:end]) for end in range(1, len(parts)) if "/".join(parts[:end]) in seen), None)
        if clash is None and path + PARTIAL in seen:
            clash = path + PARTIAL
        if clash is not None:
            raise ListingError("%s lists both %r and %r in %s@%s: one would overwrite the other. The whole revision "
                               "is refused and nothing was written." % (where, clash, path, repo, commit))
