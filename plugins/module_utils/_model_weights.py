# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A model's weights on a host: one revision of a Hugging Face repository staged in its own directory,
every file of the revision's listing verified (size; sha256 for LFS files, git's blob id for the others),
and a manifest that lets a later run trust what it verified (size and mtime) without rehashing.

The listing and the files come over the Hugging Face Hub's HTTP API, from the Hub, from a mirror that
speaks it (HF_ENDPOINT), or, file by file, from a peer of the fleet that has them already. Standard
library only: it runs in the module on the host.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time
from urllib.error import HTTPError, URLError
from urllib.parse import quote
from urllib.request import Request, urlopen

MANIFEST = ".gpufleet-manifest.json"
PARTIAL = ".part"
COMMIT = re.compile(r"^[0-9a-f]{40}$")
CHUNK = 8 * 1024 * 1024


class WeightsError(Exception):
    """What went wrong, with what to change."""


def revision_dir(root, repo, commit):
    """Where a revision lives on the host: <root>/<org>--<name>/<commit>."""
    return os.path.join(root, repo.replace("/", "--"), commit)


def _get(url, token=None, timeout=60):
    headers = {"User-Agent": "gpufleet.sglang"}
    if token:
        headers["Authorization"] = "Bearer " + token
    try:
        response = urlopen(Request(url, headers=headers), timeout=timeout)
        return response.read(), response.headers
    except HTTPError as exc:
        raise WeightsError("%s answered HTTP %d" % (url.split("?")[0], exc.code)) from None
    except (URLError, OSError) as exc:
        raise WeightsError("%s cannot be reached: %s" % (url.split("?")[0], getattr(exc, "reason", exc))) from None


def resolve(endpoint, repo, revision, token=None):
    """The commit a revision (a commit, a branch or a tag) names, from the revision API."""
    url = "%s/api/models/%s/revision/%s" % (endpoint.rstrip("/"), repo, quote(revision or "main", safe=""))
    try:
        body, _headers = _get(url, token)
    except WeightsError as exc:
        raise WeightsError("%s@%s cannot be resolved at %s (an unknown repository or revision, a token that may "
                           "not read it, or a mirror that is down): %s" % (repo, revision or "main", endpoint, exc))
    commit = json.loads(body).get("sha") or ""
    if not COMMIT.match(commit):
        raise WeightsError("%s answered no commit for %s@%s" % (endpoint, repo, revision))
    return commit


def _next_page(headers):
    match = re.search(r'<([^>]+)>;\s*rel="next"', headers.get("Link", "") or "")
    return match.group(1) if match else None


def listing(endpoint, repo, commit, token=None):
    """Every file of the revision: [{path, size, sha256 (LFS files) or None, oid (git's blob id)}], following
    the tree API's pages."""
    url = "%s/api/models/%s/tree/%s?recursive=True&expand=False" % (endpoint.rstrip("/"), repo, commit)
    files = []
    while url:
        body, headers = _get(url, token)
        for entry in json.loads(body):
            if entry.get("type") == "file":
                lfs = entry.get("lfs") or {}
                files.append({"path": entry["path"], "size": int(entry["size"]), "sha256": lfs.get("oid"),
                              "oid": entry.get("oid")})
        url = _next_page(headers)
    if not files:
        raise WeightsError("%s lists no file in %s@%s" % (endpoint, repo, commit))
    return sorted(files, key=lambda item: item["path"])


def file_url(endpoint, repo, commit, path):
    return "%s/%s/resolve/%s/%s" % (endpoint.rstrip("/"), repo, commit, quote(path))


def _digests(path):
    """(sha256, git blob id) of a file, read once."""
    size = os.path.getsize(path)
    sha256, blob = hashlib.sha256(), hashlib.sha1(b"blob %d\0" % size)
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(CHUNK), b""):
            sha256.update(chunk)
            blob.update(chunk)
    return sha256.hexdigest(), blob.hexdigest()


def content_problem(path, wanted):
    """Why a file on disk is not the listed one (its size, then its digest), or None."""
    try:
        size = os.path.getsize(path)
    except OSError:
        return "is missing"
    if size != wanted["size"]:
        return "has %d bytes, the listing says %d" % (size, wanted["size"])
    sha256, blob = _digests(path)
    if wanted.get("sha256") and sha256 != wanted["sha256"]:
        return "has sha256 %s, the listing says %s" % (sha256, wanted["sha256"])
    if not wanted.get("sha256") and wanted.get("oid") and blob != wanted["oid"]:
        return "has git blob id %s, the listing says %s" % (blob, wanted["oid"])
    return None


def read_manifest(directory):
    try:
        with open(os.path.join(directory, MANIFEST)) as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None


def write_manifest(directory, repo, commit, files):
    """Record every file as verified now: its listing entry, and the size and mtime it has."""
    entries = {}
    for wanted in files:
        info = os.stat(os.path.join(directory, wanted["path"]))
        entries[wanted["path"]] = dict(wanted, mtime_ns=info.st_mtime_ns)
    temp = os.path.join(directory, MANIFEST + ".tmp")
    with open(temp, "w") as handle:
        json.dump({"repo": repo, "commit": commit, "verified": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                   "files": entries}, handle, indent=1, sort_keys=True)
    os.replace(temp, os.path.join(directory, MANIFEST))


def lacking(directory, files, full=False):
    """{path: why} for the files of the listing that this directory does not have verified. A file the manifest
    recorded with the same size and mtime is trusted (no rehash) unless full; any other is hashed."""
    manifest = (read_manifest(directory) or {}).get("files", {})
    found = {}
    for wanted in files:
        path = os.path.join(directory, wanted["path"])
        recorded = manifest.get(wanted["path"])
        try:
            info = os.stat(path)
        except OSError:
            found[wanted["path"]] = "is missing"
            continue
        trusted = (not full and recorded is not None and recorded.get("size") == info.st_size == wanted["size"]
                   and recorded.get("mtime_ns") == info.st_mtime_ns and recorded.get("sha256") == wanted.get("sha256"))
        if not trusted:
            problem = content_problem(path, wanted)
            if problem:
                found[wanted["path"]] = problem
    return found


def free_bytes(directory):
    while not os.path.exists(directory):
        directory = os.path.dirname(directory)
    usage = shutil.disk_usage(directory)
    return usage.free


def fetch(url, dest, wanted, token=None, timeout=120, wait=0, clock=time.monotonic, sleep=time.sleep):
    """Download one file to dest through dest.part (resumed with a Range request when the server honours it),
    verify it against the listing, and only then give it its name. wait: seconds to keep asking a peer that
    does not have the file yet (404). Returns the bytes transferred."""
    partial = dest + PARTIAL
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    deadline = clock() + wait
    while True:
        have = os.path.getsize(partial) if os.path.exists(partial) else 0
        headers = {"User-Agent": "gpufleet.sglang"}
        if token:
            headers["Authorization"] = "Bearer " + token
        if have:
            headers["Range"] = "bytes=%d-" % have
        try:
            response = urlopen(Request(url, headers=headers), timeout=timeout)
            break
        except HTTPError as exc:
            if exc.code == 404 and clock() < deadline:
                sleep(2)
                continue
            if exc.code == 416 and have == wanted["size"]:
                response = None
                break
            raise WeightsError("%s answered HTTP %d for %s" % (url.split("/resolve/")[0], exc.code,
                                                                 wanted["path"])) from None
        except (URLError, OSError) as exc:
            if clock() < deadline:
                sleep(2)
                continue
            raise WeightsError("%s cannot be reached for %s: %s" % (url.split("/resolve/")[0], wanted["path"],
                                                                     getattr(exc, "reason", exc))) from None
    transferred = 0
    if response is not None:
        mode = "ab" if have and response.status == 206 else "wb"  # a server that ignores Range sends it all
        with open(partial, mode) as handle:
            for chunk in iter(lambda: response.read(CHUNK), b""):
                handle.write(chunk)
                transferred += len(chunk)
    problem = content_problem(partial, wanted)
    if problem:
        os.unlink(partial)
        raise WeightsError("%s %s (from %s): the copy was removed" % (wanted["path"], problem.replace("is missing",
                           "arrived empty"), url.split("/resolve/")[0]))
    os.replace(partial, dest)
    return transferred


def record_verified(directory, repo, commit, wanted):
    """Add one file that was just verified to the manifest (fetch does it file by file, so that the file is
    not hashed again by the run that fetched it, nor by a run that a killed one left behind)."""
    manifest = read_manifest(directory) or {"repo": repo, "commit": commit, "files": {}}
    info = os.stat(os.path.join(directory, wanted["path"]))
    manifest["files"][wanted["path"]] = dict(wanted, mtime_ns=info.st_mtime_ns)
    manifest["verified"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    temp = os.path.join(directory, MANIFEST + ".tmp")
    with open(temp, "w") as handle:
        json.dump(manifest, handle, indent=1, sort_keys=True)
    os.replace(temp, os.path.join(directory, MANIFEST))


def plan_fetches(files, lacks):
    """The files to fetch, each with the bytes of the ones before it and the total (for the progress line)."""
    todo = [dict(wanted) for wanted in files if wanted["path"] in lacks]
    total, before = sum(item["size"] for item in todo), 0
    for item in todo:
        item.update(before=before, total=total)
        before += item["size"]
    return todo


def pruned_revisions(root, repo, keep, used):
    """The revision directories of repo beyond the newest keep, and not in used (what units name)."""
    base = os.path.join(root, repo.replace("/", "--"))
    try:
        names = [name for name in os.listdir(base) if COMMIT.match(name)]
    except OSError:
        return []
    paths = sorted((os.path.join(base, name) for name in names), key=os.path.getmtime, reverse=True)
    used = set(os.path.normpath(path) for path in used)
    return [path for path in paths[keep:] if os.path.normpath(path) not in used]
