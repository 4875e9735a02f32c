# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A root-owned cache of EAGLE-3 audit results, valid while nothing the audit read has changed.

An entry is keyed by the query (package directory, model file, class, inner attribute) and the
audit's own code (a hash of its source, so a collection upgrade never reads a stale verdict),
and holds the identity (inode, size, mtime in ns) of every file the audit parsed and of every
directory it listed. It is used only when all of them are unchanged, and only when the cache
directory and the entry belong to the user running the audit and nobody else can write them.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import stat
import tempfile

from ansible_collections.gpufleet.sglang.plugins.module_utils import _host_files
from ansible_collections.gpufleet.sglang.plugins.module_utils._eagle3_audit import Auditor
from ansible_collections.gpufleet.sglang.plugins.module_utils._python_classes import file_identity

FORMAT = 1
DEFAULT_DIR = "/var/cache/gpufleet-sglang/audit"
_CODE = ("_eagle3_audit", "_python_classes", "_audit_cache", "_sglang_package")


@functools.lru_cache(maxsize=None)
def code_version():
    """A hash of the audit's own source (read through the import system, so it works from AnsiballZ too);
    read once per process, not on every cache lookup and store."""
    digest = hashlib.sha256()
    package = __name__.rsplit(".", 1)[0]
    for name in _CODE:
        spec = importlib.util.find_spec("%s.%s" % (package, name))
        digest.update(spec.loader.get_source(spec.name).encode("utf-8"))
    return digest.hexdigest()


def identity(path):
    return file_identity(os.stat(path))


def _trusted(path):
    """Whether path belongs to this user and no one else can write it."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return info.st_uid == os.geteuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


# An audit's result with the identities of what it read: kilobytes.
ENTRY_LIMIT = 16 * 1024 * 1024


class AuditCache(object):
    def __init__(self, directory):
        self.directory = directory

    def _path(self, query):
        key = hashlib.sha256(json.dumps([FORMAT, code_version(), query], sort_keys=True).encode()).hexdigest()
        return os.path.join(self.directory, key + ".json")

    def get(self, query):
        """The cached result for query, or None (no entry, something it read changed, or not trusted)."""
        path = self._path(query)
        if not (_trusted(self.directory) and _trusted(path)):
            return None
        try:
            entry = _host_files.read_json(path, ENTRY_LIMIT, "audit cache entry")
            if any(identity(p) != known for p, known in entry["read"].items()):
                return None
        except (_host_files.HostFileError, OSError, KeyError, TypeError, AttributeError):
            return None  # not an entry this module wrote: audit again, and write it anew
        return entry["result"]

    def put(self, query, result, read):
        """Store result with ``read`` (path -> identity when the audit read it); a cache that cannot be
        written is skipped (False)."""
        try:
            os.makedirs(self.directory, mode=0o700, exist_ok=True)
            if not _trusted(self.directory):
                return False
            fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".entry-")
            with os.fdopen(fd, "w") as handle:
                json.dump({"query": query, "read": read, "result": result}, handle)
            os.replace(tmp, self._path(query))
        except OSError:
            return False
        return True


def cached_audit(sglang_root, model_file, class_name, inner_attr, cache_dir, write=True, load_format="auto"):
    """(audit result, whether it came from the cache). No cache_dir: always audits; write=False: never stores."""
    if not cache_dir:
        return Auditor(sglang_root).audit(model_file, class_name, inner_attr, load_format), False
    cache = AuditCache(cache_dir)
    query = [os.path.realpath(sglang_root), model_file, class_name, inner_attr, load_format]
    result = cache.get(query)
    if result is not None:
        return result, True
    auditor = Auditor(sglang_root)
    result = auditor.audit(model_file, class_name, inner_attr, load_format)
    if write:
        cache.put(query, result, auditor.index.read)
    return result, False
