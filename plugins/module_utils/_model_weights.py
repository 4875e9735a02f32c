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
from urllib.parse import urlsplit
from urllib.request import HTTPRedirectHandler, Request, build_opener

MANIFEST = ".gpufleet-manifest.json"
PARTIAL = ".part"
COMMIT = re.compile(r"^[0-9a-f]{40}$")
CHUNK = 8 * 1024 * 1024
LISTED = ("path", "size", "sha256", "oid")


class WeightsError(Exception):
    """What went wrong, with what to change."""


def revision_dir(root, repo, commit):
    """Where a revision lives on the host: <root>/<org>--<name>/<commit>."""
    return os.path.join(root, repo.replace("/", "--"), commit)


class _TokenStaysHome(HTTPRedirectHandler):
    """Follows redirects, but sends the token only to the host it was given for: the Hub sends LFS files
    from a CDN whose signed URLs refuse a second credential (and must not see the token)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and urlsplit(newurl).netloc != urlsplit(req.full_url).netloc:
            new.remove_header("Authorization")
        return new


_OPENER = build_opener(_TokenStaysHome)


def _request(url, token=None, timeout=60, extra=None):
    headers = {"User-Agent": "gpufleet.sglang"}
    if token:
        headers["Authorization"] = "Bearer " + token
    headers.update(extra or {})
    return _OPENER.open(Request(url, headers=headers), timeout=timeout)


def _get(url, token=None, timeout=60):
    try:
        response = _request(url, token, timeout)
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
        try:
            body, headers = _get(url, token)
        except WeightsError as exc:
            raise WeightsError("the files of %s@%s cannot be listed at %s (an unknown commit, or a mirror that is "
                               "down): %s" % (repo, commit, endpoint, exc)) from None
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


def _write_manifest(directory, manifest):
    temp = os.path.join(directory, MANIFEST + ".tmp")
    with open(temp, "w") as handle:
        json.dump(manifest, handle, indent=1, sort_keys=True)
    os.replace(temp, os.path.join(directory, MANIFEST))


def keep_listing(directory, repo, commit, files):
    """Keep the revision's listing beside its files: later runs verify against it without asking the source."""
    manifest = read_manifest(directory) or {}
    if manifest.get("commit") != commit or manifest.get("listing") != files:
        manifest = {"repo": repo, "commit": commit, "listing": files, "files": {}}
        _write_manifest(directory, manifest)


def lacking(directory, files, full=False, record=True):
    """{path: why} for the files of the listing that this directory does not have verified. A file the manifest
    recorded with the same size and mtime is trusted (no rehash) unless full; any other is hashed, and
    recorded when it is right."""
    manifest = (read_manifest(directory) or {}).get("files", {})
    found, hashed = {}, []
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
            else:
                hashed.append(wanted)
    if hashed and record and read_manifest(directory):
        record_verified(directory, hashed)
    return found


def local_problems(directory, full=False, record=True):
    """{path: why} for a model directory given as a path (a shared filesystem: checked, nothing copied). With a
    manifest (staged by this collection), every file of its listing; otherwise what SGLang needs to start:
    config.json, and every shard a safetensors index names."""
    if not os.path.isdir(directory):
        return {"": "is not a directory on this host"}
    manifest = read_manifest(directory)
    if manifest and manifest.get("listing"):
        return lacking(directory, manifest["listing"], full, record)
    found = {}
    if not os.path.isfile(os.path.join(directory, "config.json")):
        found["config.json"] = "is missing"
    for index in sorted(name for name in os.listdir(directory) if name.endswith(".safetensors.index.json")):
        try:
            with open(os.path.join(directory, index)) as handle:
                shards = set(json.load(handle).get("weight_map", {}).values())
        except (OSError, ValueError) as exc:
            found[index] = "cannot be read: %s" % exc
            continue
        for shard in sorted(shards):
            if not os.path.isfile(os.path.join(directory, shard)):
                found[shard] = "is missing (%s names it)" % index
    return found


def _part_bytes(directory, files):
    total = 0
    for wanted in files:
        try:
            total += os.path.getsize(os.path.join(directory, wanted["path"]) + PARTIAL)
        except OSError:
            pass
    return total


def inspect(model, root, endpoint, token=None, full=False, write=True):
    """Where one model stands on this host: {name, source, repo, commit, dir, files, bytes, lacks, needed,
    free}. model: {name, repo, commit} (staged below root from endpoint), or {name, path} or an inspected model
    with its dir (used where it is, checked).
    A revision staged before is verified against the listing kept in its manifest (no request to the source);
    only a new one asks the source for its listing. Raises WeightsError when the disk cannot hold what lacks.
    write False (check mode): nothing is written, not even the listing."""
    if model.get("path") or model.get("dir"):
        path = model.get("path") or model["dir"]
        lacks = local_problems(path, full, write)
        manifest = read_manifest(path) or {}
        return {"name": model["name"], "source": "path", "repo": manifest.get("repo", ""),
                "commit": manifest.get("commit", ""), "dir": path, "files": len(manifest.get("listing", [])),
                "bytes": sum(item["size"] for item in manifest.get("listing", [])), "lacks": lacks, "fetch": [],
                "needed": 0, "free": 0}
    repo, commit = model["repo"], model["commit"]
    directory = revision_dir(root, repo, commit)
    manifest = read_manifest(directory) or {}
    files = manifest.get("listing") if manifest.get("commit") == commit else None
    if not files:
        files = listing(endpoint, repo, commit, token)
    lacks = lacking(directory, files, full, write)
    todo = [wanted for wanted in files if wanted["path"] in lacks]
    needed = sum(wanted["size"] for wanted in todo) - _part_bytes(directory, todo)
    free = free_bytes(directory)
    if needed > free:
        numbers = (repo, commit, needed / 1e9, root, len(todo), len(files), free / 1e9)
        raise WeightsError("%s@%s needs %.1f GB more below %s (%d of its %d files), which has %.1f GB free. Nothing "
                           "was downloaded. Free space there (revisions no unit names, older venvs), or point "
                           "sglang_model_cache at a larger filesystem." % numbers)
    if todo and write:
        os.makedirs(directory, exist_ok=True)
        keep_listing(directory, repo, commit, files)
    return {"name": model["name"], "source": "hub", "repo": repo, "commit": commit, "dir": directory,
            "files": len(files), "bytes": sum(item["size"] for item in files), "lacks": lacks, "needed": needed,
            "free": free, "fetch": [dict(wanted, model=model["name"], dir=directory, repo=repo, commit=commit)
                                    for wanted in todo]}


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
        try:
            response = _request(url, token, timeout, {"Range": "bytes=%d-" % have} if have else None)
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
            reason = getattr(exc, "reason", exc)
            raise WeightsError("%s cannot be reached for %s: %s" % (url.split("/resolve/")[0], wanted["path"],
                                                                    reason)) from None
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


def peer_url(peer, item):
    """A file on a peer's server, whose root is the peers' weights root."""
    return "%s/%s/%s/%s" % (peer.rstrip("/"), item["repo"].replace("/", "--"), item["commit"], quote(item["path"]))


def _share(item, gid):
    """The file 0640 and its revision's directories 0750, root and the service account's group."""
    paths = [os.path.join(item["dir"], item["path"])]
    directory = os.path.dirname(paths[0])
    while True:
        paths.append(directory)
        if os.path.normpath(directory) == os.path.normpath(os.path.dirname(item["dir"])):
            break
        directory = os.path.dirname(directory)
    for path in paths:
        os.chown(path, 0, gid)
        os.chmod(path, 0o750 if os.path.isdir(path) else 0o640)


def same_file_staged(item):
    """A verified file of another staged revision of the same repository that is this one (the same path, size
    and digests, and the size and mtime it was verified with), or None."""
    base = os.path.dirname(item["dir"])
    try:
        others = [os.path.join(base, name) for name in os.listdir(base) if name != os.path.basename(item["dir"])]
    except OSError:
        return None
    for other in others:
        entry = ((read_manifest(other) or {}).get("files") or {}).get(item["path"])
        if not entry or any(entry.get(key) != item.get(key) for key in LISTED):
            continue
        path = os.path.join(other, item["path"])
        try:
            info = os.stat(path)
        except OSError:
            continue
        if info.st_size == entry["size"] and info.st_mtime_ns == entry.get("mtime_ns"):
            return path
    return None


def _from_the_fleet(item, dest, peer, peer_token, peer_wait):
    """The file without asking the source: {bytes, source} from another staged revision that has it (a hard
    link, no transfer and no second copy on disk) or from the peer, or None when there is neither."""
    same = same_file_staged(item)
    if same:
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        if os.path.exists(dest):
            os.unlink(dest)
        os.link(same, dest)
        return {"bytes": 0, "source": os.path.dirname(same[:-len(item["path"])])}
    if peer:
        return {"bytes": fetch(peer_url(peer, item), dest, item, peer_token, wait=peer_wait), "source": peer}
    return None


def stage_file(item, endpoint, token=None, peer=None, peer_token=None, peer_wait=0, gid=None):
    """Stage one planned file (an item of plan_fetches): linked from another staged revision that has the same
    file, else fetched from the peer when there is one, else (or when the peer does not have it within
    peer_wait seconds) from the source; verify it, record it, share it with the service account. Returns
    {bytes, source, note}."""
    dest = os.path.join(item["dir"], item["path"])
    note = ""
    try:
        result = _from_the_fleet(item, dest, peer, peer_token, peer_wait)
    except (WeightsError, OSError) as exc:
        result, note = None, "%s; fetched from the source instead" % exc
    if result is None:
        source = file_url(endpoint, item["repo"], item["commit"], item["path"])
        result = {"bytes": fetch(source, dest, item, token), "source": endpoint}
    result["note"] = note
    if gid is not None:
        _share(item, gid)
    record_verified(item["dir"], [item])
    return result


def record_verified(directory, wanted_files):
    """Record files that were just verified with the size and mtime they have (fetch does it file by file,
    so that a file is not hashed again by the run that fetched it, nor by a run that a killed one left
    behind)."""
    manifest = read_manifest(directory)
    for wanted in wanted_files:
        info = os.stat(os.path.join(directory, wanted["path"]))
        manifest["files"][wanted["path"]] = dict(((key, wanted.get(key)) for key in LISTED), mtime_ns=info.st_mtime_ns)
    manifest["verified"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    _write_manifest(directory, manifest)


def unusable(models):
    """What makes models that no fetch can repair (those used where they are) unusable, one line each, or ""."""
    lines = []
    for model in models:
        if model["source"] == "path" and model["lacks"]:
            found = ", ".join(("%s %s" % item).strip() for item in sorted(model["lacks"].items()))
            lines.append("%s %s: %s" % (model["name"], model["dir"], found))
    return "; ".join(lines)


def plan_fetches(models):
    """Every model's files to fetch, in one list, each with the bytes of the ones before it and the total
    (for the progress line)."""
    todo = [dict(item) for model in models for item in model["fetch"]]
    total, before = sum(item["size"] for item in todo), 0
    for number, item in enumerate(todo, 1):
        item.update(before=before, total=total, number=number, count=len(todo))
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
