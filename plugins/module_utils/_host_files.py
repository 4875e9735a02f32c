# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every file a module reads or writes on a host, read and written one way.

A path on a host is outside data: a link to another file, a FIFO, a device, a sparse file of
gigabytes, a name with a NUL. ``read`` opens without following a link in the last component and
without blocking, takes the type from what it opened, reads only a regular file, never past the
size it had when opened nor past a cap fit for what it is (named in the error). ``write`` creates
a temporary file exclusively beside the target (never through a link), syncs it, and renames it
over the target, so a crash leaves the old file or the new one, never half of one.
``load_json`` parses such bytes the strict way: a JSON value of bounded depth, finite numbers.
Private to the collection: not a public API.
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import stat

KIB = 1024
MIB = 1024 * KIB
# Caps by what a file is; each read names its cap.
CONFIG_LIMIT = 4 * MIB  # a model's config.json (Kimi-K2.5's is 4 KB)
SETTINGS_LIMIT = 1 * MIB  # a unit, an environment file, a server's settings
RECORD_LIMIT = 64 * KIB  # a record the collection writes (a restart owed, the routers left)
JSON_DEPTH = 32


class HostFileError(Exception):
    """A file that cannot be what its reader expects; the message names it and what is wrong."""


def size_text(count):
    return "%d bytes" % count if count < KIB else "%.0f KiB" % (count / KIB) if count < MIB else (
        "%.0f MiB" % (count / MIB))


@contextlib.contextmanager
def open_regular(path):
    """(handle, stat) of the regular file ``path``, opened without following a link and without blocking, or
    (None, None) when it does not exist. Raises HostFileError for a link or anything but a regular file."""
    if "\0" in path:
        raise HostFileError("%r is not a usable path: it contains a NUL byte" % path)
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            yield None, None
            return
        if exc.errno == errno.ELOOP:
            raise HostFileError("%s is a symbolic link, not a regular file" % path) from None
        raise HostFileError("%s cannot be read: %s" % (path, exc.strerror)) from None
    info = os.fstat(descriptor)
    if not stat.S_ISREG(info.st_mode):
        os.close(descriptor)
        raise HostFileError("%s is not a regular file" % path)
    with os.fdopen(descriptor, "rb") as handle:
        yield handle, info


def read(path, limit, what="file"):
    """The bytes of the regular file ``path``, or None when it does not exist. Raises HostFileError for a
    link, anything but a regular file, or a file larger than ``limit`` (a ``what`` is never that large)."""
    with open_regular(path) as (handle, info):
        if handle is None:
            return None
        if info.st_size > limit:
            raise HostFileError("%s is %s, more than a %s can be (%s)" % (
                path, size_text(info.st_size), what, size_text(limit)))
        try:
            return handle.read(info.st_size)
        except OSError as exc:
            raise HostFileError("%s cannot be read: %s" % (path, exc.strerror)) from None


def _finite(text):
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("the number %s is out of range" % text)
    return value


def _constant(name):
    raise ValueError("%s is not a JSON number" % name)


def _depth(value):
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        deepest = max(deepest, level)
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        stack.extend((child, level + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


def load_json(data, source, expect=dict):
    """The JSON value in ``data`` (bytes), checked: UTF-8, finite numbers only (no NaN or Infinity), at most
    JSON_DEPTH levels, and of type ``expect``. Raises HostFileError naming ``source``."""
    try:
        value = json.loads(data.decode("utf-8"), parse_constant=_constant, parse_float=_finite)
    except RecursionError:
        raise HostFileError("%s is nested deeper than %d levels" % (source, JSON_DEPTH)) from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise HostFileError("%s is not JSON: %s" % (source, exc)) from None
    if _depth(value) > JSON_DEPTH:
        raise HostFileError("%s is nested deeper than %d levels" % (source, JSON_DEPTH))
    if expect is not None and not isinstance(value, expect):
        raise HostFileError("%s holds a JSON %s, not a JSON %s" % (source, json_type(value), json_type(expect())))
    return value


def json_type(value):
    """The JSON name of a parsed value's type, as messages say it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    return {dict: "object", list: "list", str: "string", int: "number", float: "number"}.get(type(value), "value")


def read_json(path, limit, what="file", expect=dict):
    """``read`` then ``load_json``; None when the file does not exist."""
    data = read(path, limit, what)
    return None if data is None else load_json(data, path, expect)


def write(path, data, mode=0o600, owner=None):
    """Put ``data`` (bytes) at ``path`` atomically: a temporary file created exclusively in the same directory
    (never through a link), written, synced, given ``mode`` (and ``owner``, a (uid, gid), when root), then
    renamed over ``path``."""
    directory = os.path.dirname(path) or "."
    base = os.path.basename(path)
    for attempt in range(100):
        temp = os.path.join(directory, ".%s.gpufleet-%d-%d" % (base, os.getpid(), attempt))
        try:
            descriptor = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            break
        except FileExistsError:
            continue
    else:
        raise HostFileError("no temporary name is free beside %s" % path)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(descriptor, mode)
            if owner is not None and os.geteuid() == 0:
                os.fchown(descriptor, owner[0], owner[1])
            os.fsync(descriptor)
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise
    _sync_directory(directory)


def _sync_directory(directory):
    try:
        descriptor = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
