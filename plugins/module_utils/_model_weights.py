# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A model's weights on a host: one revision of a Hugging Face repository staged in its own directory,
every file of the revision's listing verified (size; sha256 for LFS files, git's blob id for the others),
and a manifest that lets a later run trust what it verified (size and mtime) without rehashing.

The listing and the files come over the Hugging Face Hub's HTTP API, from the Hub, from a mirror that
speaks it (HF_ENDPOINT), or, file by file, from a peer of the fleet that has them already. Everything they
say is checked before it is acted on (_weights_names): a listing whose names leave the revision's directory
is refused whole, and every path this module writes, links or chmods is built from a checked name inside
that directory.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import quote, urljoin

from ansible_collections.gpufleet.sglang.plugins.module_utils import _weights_names as names
from ansible_collections.gpufleet.sglang.plugins.module_utils._http import HttpError as TransportError, origin, shown
from ansible_collections.gpufleet.sglang.plugins.module_utils._weights_http import copy_body

MANIFEST = names.MANIFEST
PARTIAL = names.PARTIAL
COMMIT = names.COMMIT
CHUNK = 8 * 1024 * 1024
LISTED = ("path", "size", "sha256", "oid")
MAX_PAGES = 1000
MAX_STALLS = 3
MAX_ATTEMPTS = 20
CONTENT_RANGE = re.compile(r"^bytes (\d+)-(\d+)/(\d+|\*)$")


class WeightsError(Exception):
    """What went wrong, with what to change."""


def checked_repo(repo):
    problem = names.repo_problem(repo)
    if problem:
        raise WeightsError(problem)
    return repo


def revision_dir(root, repo, commit):
    """Where a revision lives on the host: <root>/<org>--<name>/<commit>, for a checked id and commit only."""
    if not isinstance(commit, str) or not COMMIT.match(commit):
        raise WeightsError("%r is not a commit (40 hex digits) of %s" % (commit, repo))
    return os.path.join(root, checked_repo(repo).replace("/", "--"), commit)


def resolve(hub, repo, revision):
    """The commit a revision (a commit, a branch or a tag) names, from the revision API."""
    url = "%s/api/models/%s/revision/%s" % (hub.base, checked_repo(repo), quote(revision or "main", safe=""))
    try:
        body, _headers = hub.get(url, limit=4 * 1024 * 1024)
        commit = json.loads(body).get("sha") or ""
    except TransportError as exc:
        raise WeightsError("%s@%s cannot be resolved at %s (an unknown repository or revision, a token that may "
                           "not read it, or a mirror that is down): %s" % (repo, revision or "main", hub.base, exc))
    except (ValueError, AttributeError):
        commit = ""
    if not isinstance(commit, str) or not COMMIT.match(commit):
        raise WeightsError("%s answered no commit for %s@%s" % (hub.base, repo, revision))
    return commit


def _next_page(url, headers, hub):
    """The next page of a listing from its Link header: on the endpoint's origin, or refused."""
    match = re.search(r'<([^>]+)>;\s*rel="next"', headers.get("Link", "") or "")
    if not match:
        return None
    target = urljoin(url, match.group(1))
    if origin(target) != origin(hub.base):
        raise WeightsError("%s points the next page of its listing to another origin (%s): refused" % (
            hub.base, shown(target)))
    return target


def _entries(body, url):
    try:
        entries = json.loads(body)
    except ValueError:
        raise WeightsError("%s answered a listing that is not JSON" % shown(url)) from None
    if not isinstance(entries, list) or not all(isinstance(entry, dict) for entry in entries):
        raise WeightsError("%s answered a listing that is not a list of entries" % shown(url))
    files = []
    for entry in entries:
        if entry.get("type") == "file":
            lfs = entry.get("lfs") if isinstance(entry.get("lfs"), dict) else {}
            files.append({"path": entry.get("path"), "size": entry.get("size"), "sha256": lfs.get("oid"),
                          "oid": entry.get("oid")})
    return files


def listing(hub, repo, commit):
    """Every file of the revision, checked: [{path, size, sha256 (LFS files) or None, oid (git's blob id)}],
    following the tree API's pages (on the endpoint's origin, each once, at most MAX_PAGES)."""
    url = "%s/api/models/%s/tree/%s?recursive=True&expand=False" % (hub.base, checked_repo(repo), commit)
    files, seen = [], set()
    while url:
        if url in seen or len(seen) >= MAX_PAGES:
            raise WeightsError("%s does not end the listing of %s@%s (%d pages, or a page that comes back): "
                               "refused" % (hub.base, repo, commit, len(seen)))
        seen.add(url)
        try:
            body, headers = hub.get(url)
        except TransportError as exc:
            raise WeightsError("the files of %s@%s cannot be listed at %s (an unknown commit, or a mirror that is "
                               "down): %s" % (repo, commit, hub.base, exc)) from None
        files.extend(_entries(body, url))
        if len(files) > names.MAX_FILES:
            break
        url = _next_page(url, headers, hub)
    if not files:
        raise WeightsError("%s lists no file in %s@%s" % (hub.base, repo, commit))
    checked(files, repo, commit, hub.base)
    return sorted(files, key=lambda item: item["path"])


def checked(files, repo, commit, where):
    try:
        names.check_listing(files, repo, commit, where)
    except names.ListingError as exc:
        raise WeightsError(str(exc)) from None
    return files


def file_url(hub, repo, commit, path):
    return "%s/%s/resolve/%s/%s" % (hub.base, repo, commit, quote(path))


def digest(path, wanted):
    """The digest the listing gives for this file, computed: sha256 for an LFS file, git's blob id otherwise."""
    if wanted.get("sha256"):
        hashed = hashlib.sha256()
    else:
        hashed = hashlib.sha1(b"blob %d\0" % os.path.getsize(path))
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(CHUNK), b""):
            hashed.update(chunk)
    return hashed.hexdigest()


def content_problem(path, wanted):
    """Why a file on disk is not the listed one (its size, then its digest), or None."""
    try:
        size = os.path.getsize(path)
    except OSError:
        return "is missing"
    if size != wanted["size"]:
        return "has %d bytes, the listing says %d" % (size, wanted["size"])
    found = digest(path, wanted)
    if wanted.get("sha256"):
        return None if found == wanted["sha256"] else "has sha256 %s, the listing says %s" % (found, wanted["sha256"])
    return None if found == wanted["oid"] else "has git blob id %s, the listing says %s" % (found, wanted["oid"])


def hash_workers(requested=0):
    """How many files are hashed at once: requested, or one per core up to 16 (a local NVMe array keeps that
    many busy; more only queue on the disk)."""
    return requested if requested > 0 else max(1, min(os.cpu_count() or 1, 16))


def read_manifest(directory):
    try:
        with open(os.path.join(directory, MANIFEST)) as handle:
            manifest = json.load(handle)
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) and isinstance(manifest.get("files", {}), dict) else None


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


def lacking(directory, files, full=False, record=True, workers=0, stats=None):
    """{path: why} for the files of the listing that this directory does not have verified. A file the manifest
    recorded with the same size and mtime is trusted (no rehash) unless full; the others are hashed, workers at
    once, and recorded when they are right. stats, a dict, gets the files and bytes hashed and the seconds."""
    manifest = (read_manifest(directory) or {}).get("files", {})
    found, to_hash = {}, []
    for wanted in files:
        path = os.path.join(directory, wanted["path"])
        recorded = manifest.get(wanted["path"])
        try:
            info = os.stat(path)
        except OSError:
            found[wanted["path"]] = "is missing"
            continue
        trusted = (not full and isinstance(recorded, dict) and recorded.get("size") == info.st_size == wanted["size"]
                   and recorded.get("mtime_ns") == info.st_mtime_ns and recorded.get("sha256") == wanted.get("sha256"))
        if not trusted:
            to_hash.append(wanted)
    to_hash.sort(key=lambda wanted: -wanted["size"])  # the largest first: the pool ends together
    started, problems = time.monotonic(), []
    if to_hash:
        with ThreadPoolExecutor(max_workers=hash_workers(workers)) as pool:
            problems = list(pool.map(lambda wanted: content_problem(os.path.join(directory, wanted["path"]), wanted),
                                     to_hash))
    hashed = [wanted for wanted, problem in zip(to_hash, problems) if not problem]
    found.update((wanted["path"], problem) for wanted, problem in zip(to_hash, problems) if problem)
    if stats is not None:
        stats["files"] = stats.get("files", 0) + len(to_hash)
        stats["bytes"] = stats.get("bytes", 0) + sum(wanted["size"] for wanted in to_hash)
        stats["seconds"] = stats.get("seconds", 0.0) + time.monotonic() - started
    if hashed and record and read_manifest(directory):
        record_verified(directory, hashed)
    return found


def local_problems(directory, full=False, record=True, workers=0, stats=None):
    """{path: why} for a model directory given as a path (a shared filesystem: checked, nothing copied). With a
    manifest (staged by this collection), every file of its listing; otherwise what SGLang needs to start:
    config.json, and every shard a safetensors index names."""
    if not os.path.isdir(directory):
        return {"": "is not a directory on this host"}
    manifest = read_manifest(directory)
    if manifest and manifest.get("listing"):
        listed = checked(manifest["listing"], manifest.get("repo"), manifest.get("commit"),
                         os.path.join(directory, MANIFEST))
        return lacking(directory, listed, full, record, workers, stats)
    found = {}
    if not os.path.isfile(os.path.join(directory, "config.json")):
        found["config.json"] = "is missing"
    for index in sorted(name for name in os.listdir(directory) if name.endswith(".safetensors.index.json")):
        try:
            with open(os.path.join(directory, index)) as handle:
                weight_map = json.load(handle).get("weight_map", {})
            shards = set(weight_map.values())
        except (OSError, ValueError, AttributeError) as exc:
            found[index] = "cannot be read: %s" % exc
            continue
        for shard in sorted(shards, key=str):
            problem = names.path_problem(shard)
            if problem:
                found[str(shard)] = "is named by %s but %s" % (index, problem)
            elif not os.path.isfile(os.path.join(directory, shard)):
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


def _inode(path):
    try:
        info = os.stat(path)
    except OSError:
        return None
    return [info.st_dev, info.st_ino]


def inspect(model, root, hub, full=False, write=True, workers=0, stats=None):
    """Where one model stands on this host: {name, source, repo, commit, dir, files, bytes, lacks, needed,
    linked, free, fetch}. model: {name, repo, commit} (staged below root from hub), or {name, path} or an
    inspected model with its dir (used where it is, checked).
    A revision staged before is verified against the listing kept in its manifest (no request to the source);
    only a new one asks the source for its listing. needed counts the bytes that will come over the network
    (not what another staged revision has: it is linked); raises WeightsError when the disk cannot hold them.
    write False (check mode): nothing is written, not even the listing."""
    if model.get("path") or model.get("dir"):
        path = model.get("path") or model["dir"]
        lacks = local_problems(path, full, write, workers, stats)
        manifest = read_manifest(path) or {}
        listed = manifest.get("listing") if isinstance(manifest.get("listing"), list) else []
        return {"name": model["name"], "source": "path", "repo": manifest.get("repo", ""),
                "commit": manifest.get("commit", ""), "dir": path, "files": len(listed),
                "bytes": sum(item["size"] for item in listed), "lacks": lacks, "fetch": [], "needed": 0,
                "linked": 0, "free": 0}
    repo, commit = model["repo"], model["commit"]
    directory = revision_dir(root, repo, commit)
    manifest = read_manifest(directory) or {}
    files = manifest.get("listing") if manifest.get("commit") == commit else None
    if files:
        checked(files, repo, commit, os.path.join(directory, MANIFEST))
    else:
        files = listing(hub, repo, commit)
    lacks = lacking(directory, files, full, write, workers, stats)
    todo = []
    for wanted in files:
        if wanted["path"] in lacks:
            item = dict(wanted, model=model["name"], dir=directory, repo=repo, commit=commit, full=full,
                        replaces=_inode(os.path.join(directory, wanted["path"])))
            item["link"] = bool(same_file_staged(item))
            todo.append(item)
    fetched = [item for item in todo if not item["link"]]
    needed = sum(item["size"] for item in fetched) - _part_bytes(directory, fetched)
    free = free_bytes(directory)
    if needed > free:
        numbers = (repo, commit, needed / 1e9, root, len(fetched), len(files), free / 1e9)
        raise WeightsError("%s@%s needs %.1f GB more below %s (%d of its %d files to fetch), which has %.1f GB free. "
                           "Nothing was downloaded. Free space there (revisions no unit names, older venvs), or "
                           "point sglang_model_cache at a larger filesystem." % numbers)
    if todo and write:
        os.makedirs(directory, exist_ok=True)
        keep_listing(directory, repo, commit, files)
    return {"name": model["name"], "source": "hub", "repo": repo, "commit": commit, "dir": directory,
            "files": len(files), "bytes": sum(item["size"] for item in files), "lacks": lacks, "needed": needed,
            "linked": sum(item["size"] for item in todo if item["link"]), "free": free, "fetch": todo}


def free_bytes(directory):
    while not os.path.exists(directory):
        directory = os.path.dirname(directory)
    return shutil.disk_usage(directory).free


def _open_part(hub, url, have, end, size, item):
    """The response for bytes have..end of the file (the whole file when the server ignores Range), and
    whether it is partial content. An answer that contradicts the request or the listing is a WeightsError,
    never waited for: asking again would bring the same."""
    headers = {"Range": "bytes=%d-%d" % (have, end - 1)} if have or end < size else None
    response = hub.open(url, headers)
    if response.status == 206:
        match = CONTENT_RANGE.match(response.headers.get("Content-Range", "") or "")
        if not match or int(match.group(1)) != have or match.group(3) not in ("*", str(size)):
            response.close()
            raise WeightsError("%s: %s answered the range %d-%d with %r" % (
                item["path"], shown(url), have, end - 1, response.headers.get("Content-Range")))
        return response, True
    length = response.headers.get("Content-Length")
    if length is not None and length.isdigit() and int(length) != size:
        response.close()
        raise WeightsError("%s: %s announces %s bytes, the listing says %d" % (item["path"], shown(url), length,
                                                                               size))
    return response, False


def fetch(hub, url, dest, wanted, end=None, wait=0, clock=time.monotonic, sleep=time.sleep):
    """Make dest.part hold the file's bytes up to end (the whole file by default), resuming with a Range request
    where it stopped (a server that ignores Range sends the whole file); once it holds every byte, verify it
    against the listing and only then give it its name. A body cut short is asked again from where it stopped,
    up to MAX_STALLS times in a row without progress and MAX_ATTEMPTS in all; then the .part is kept for the
    next run. One that is wrong as a whole is removed. wait: seconds to keep asking a peer that does not have
    the file yet. Returns the bytes transferred."""
    size = wanted["size"]
    end = size if end is None else min(end, size)
    partial = dest + PARTIAL
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    if not os.path.exists(partial) or os.path.getsize(partial) > size:
        open(partial, "wb").close()
    deadline, transferred, stalls, attempts = clock() + wait, 0, 0, 0
    while os.path.getsize(partial) < end:
        have = os.path.getsize(partial)
        try:
            response, ranged = _open_part(hub, url, have, end, size, wanted)
        except TransportError as exc:
            if exc.code in (404, None) and clock() < deadline:
                sleep(2)
                continue
            raise WeightsError("%s: %s" % (wanted["path"], exc)) from None
        start = have if ranged else 0
        count = (end if ranged else size) - start
        free = free_bytes(os.path.dirname(dest))
        if count - (have - start) > free:
            response.close()
            raise WeightsError("%s needs %d more bytes in %s, which has %d free: nothing more was written" % (
                wanted["path"], count, os.path.dirname(dest), free))
        with open(partial, "r+b") as handle:
            handle.seek(start)
            handle.truncate(start)
            written, broke = copy_body(response, handle, count, url, hub.timeout, clock=clock)
        response.close()
        transferred += written
        if os.path.getsize(partial) >= end:
            break
        attempts += 1
        stalls = 0 if os.path.getsize(partial) > have else stalls + 1
        if stalls >= MAX_STALLS or attempts >= MAX_ATTEMPTS:
            raise WeightsError("%s stopped at %d of its %d bytes (%s); %s is kept, and the next run resumes it" % (
                wanted["path"], os.path.getsize(partial), size, broke or "%s ended the body early" % shown(url),
                os.path.basename(partial)))
        sleep(1)
    if os.path.getsize(partial) < size:
        return transferred
    problem = content_problem(partial, wanted)
    if problem:
        os.unlink(partial)
        raise WeightsError("%s %s (from %s): the copy was removed" % (wanted["path"], problem, shown(url)))
    os.replace(partial, dest)
    return transferred


def peer_url(peer, item):
    """A file on a peer's server, whose root is the peers' weights root."""
    return "%s/%s/%s/%s" % (peer.rstrip("/"), item["repo"].replace("/", "--"), item["commit"], quote(item["path"]))


def _share(item, gid):
    """The file 0640 and its revision's directories 0750, root and the service account's group: the file, each
    directory of its checked relative name, the revision's directory and the repository's, and nothing above."""
    parts = item["path"].split("/")
    paths = [os.path.join(item["dir"], *parts[:end]) for end in range(len(parts), 0, -1)]
    for path in paths + [item["dir"], os.path.dirname(item["dir"])]:
        if os.path.islink(path):
            raise WeightsError("%s is a symbolic link: refused" % path)
        os.chown(path, 0, gid)
        os.chmod(path, 0o750 if os.path.isdir(path) else 0o640)


def _siblings(item):
    """The other staged revisions of the item's repository."""
    base = os.path.dirname(item["dir"])
    try:
        found = os.listdir(base)
    except OSError:
        return []
    return [os.path.join(base, name) for name in sorted(found)
            if COMMIT.match(name) and name != os.path.basename(item["dir"])]


def same_file_staged(item, verify=False):
    """A verified file of another staged revision of the same repository that is this one (the same path, size
    and digests, and the size and mtime it was verified with), or None. Never the copy the item replaces; with
    verify (a full check), only one whose bytes are hashed again here."""
    for other in _siblings(item):
        entry = ((read_manifest(other) or {}).get("files") or {}).get(item["path"])
        if not isinstance(entry, dict) or any(entry.get(key) != item.get(key) for key in LISTED):
            continue
        path = os.path.join(other, item["path"])
        try:
            info = os.stat(path)
        except OSError:
            continue
        if [info.st_dev, info.st_ino] == item.get("replaces"):
            continue
        if info.st_size == entry["size"] and info.st_mtime_ns == entry.get("mtime_ns"):
            if not verify or content_problem(path, item) is None:
                return path
    return None


def _link(source, dest):
    """dest becomes a hard link to source, in one step (a reader sees the old file or the new, never none)."""
    temp = dest + ".gpufleet-link"
    if os.path.lexists(temp):
        os.unlink(temp)
    os.link(source, temp)
    os.replace(temp, dest)


def _repair_shared(item, dest):
    """Every other staged revision whose file is the inode this one replaced (a hard link to a copy found
    corrupt) links the verified file instead, and records it; returns their directories."""
    repaired = []
    for other in _siblings(item):
        path = os.path.join(other, item["path"])
        if _inode(path) != item["replaces"]:
            continue
        _link(dest, path)
        if read_manifest(other):
            record_verified(other, [item])
        repaired.append(other)
    return repaired


def _from_the_fleet(item, dest, peer, peer_wait):
    """The file without asking the source: {bytes, source} from another staged revision that has it (a hard
    link, no transfer and no second copy on disk) or from the peer, or None when there is neither."""
    first_piece = item.get("piece", 1) == 1  # a file is linked whole: later pieces need not look (or rehash) again
    same = same_file_staged(item, verify=item.get("full", False)) if first_piece else None
    if same:
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        _link(same, dest)
        return {"bytes": 0, "source": same[:-len(item["path"]) - 1]}
    if peer:
        return {"bytes": fetch(peer, peer_url(peer.base, item), dest, item, item.get("end"), wait=peer_wait),
                "source": peer.base}
    return None


def _done(item, dest):
    """Whether an earlier piece of this run already gave the file its name (a link, or a whole body)."""
    inode = _inode(dest)
    return inode is not None and inode != item.get("replaces") and not os.path.exists(dest + PARTIAL)


def stage_file(item, hub, root, peer=None, peer_wait=0, gid=None):
    """Stage one planned piece of a file (an item of plan_fetches): linked from another staged revision that has
    the same file, else fetched from the peer (a Hub) when there is one, else (or when the peer does not have
    it within peer_wait seconds) from the source; once whole, verify it, record it, share it with the service
    account, and relink the revisions that shared the copy it replaces. Returns {bytes, source, note}."""
    checked([{key: item.get(key) for key in LISTED}], item.get("repo"), item.get("commit"), "the planned file")
    if item.get("dir") != revision_dir(root, item["repo"], item["commit"]):
        raise WeightsError("%r is not the directory of %s@%s below %s: refused" % (
            item.get("dir"), item["repo"], item["commit"], root))
    dest = os.path.join(item["dir"], item["path"])
    if _done(item, dest):
        return {"bytes": 0, "source": "", "note": ""}
    notes, result = [], None
    try:
        result = _from_the_fleet(item, dest, peer, peer_wait)
    except (WeightsError, OSError) as exc:
        notes.append("%s; fetched from the source instead" % exc)
    if result is None:
        result = {"bytes": fetch(hub, file_url(hub, item["repo"], item["commit"], item["path"]), dest, item,
                                 item.get("end")), "source": hub.base}
    if _done(item, dest):
        if gid is not None:
            _share(item, gid)
        record_verified(item["dir"], [item])
        if item.get("replaces"):
            repaired = _repair_shared(item, dest)
            if repaired:
                notes.append("the copy found wrong was also the file of %s (a hard link): each now links the "
                             "verified file" % ", ".join(repaired))
    result["note"] = "; ".join(notes)
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


def plan_fetches(models, piece_size=0):
    """Every model's files to fetch, in one list of pieces (a file larger than piece_size is fetched in pieces
    of that size, so that progress shows within it; 0: whole files), each with the bytes planned up to its end
    (done), the total, and its number and the count (for the progress line)."""
    todo, before = [], 0
    for model in models:
        for item in model["fetch"]:
            size = item["size"]
            step = piece_size if piece_size > 0 and not item.get("link") else max(size, 1)
            starts = list(range(0, size, step)) or [0]
            for index, start in enumerate(starts, 1):
                end = min(start + step, size)
                todo.append(dict(item, end=end, piece=index, pieces=len(starts), done=before + end))
            before += size
    for number, item in enumerate(todo, 1):
        item.update(total=before, number=number, count=len(todo))
    return todo
