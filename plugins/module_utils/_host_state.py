# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a host lacks of a wanted state (packages, files, services), read in one pass.

A role reads this once and runs its converging tasks only when something is owed: a host that is
already there costs one round trip instead of one per package, file and service.
"""

from __future__ import annotations

import glob
import grp
import hashlib
import os
import pwd
import re
import stat

from ansible_collections.gpufleet.sglang.plugins.module_utils import _host_files

# dpkg-query: one line per package it knows; a package it does not know goes to stderr.
DPKG_QUERY = ["dpkg-query", "-W", "-f=${Package}\\t${db:Status-Abbrev}\\t${Version}\\n"]


def parse_dpkg_query(text):
    """{package: version} for the installed packages of ``dpkg-query -W`` output (status ``ii``)."""
    installed = {}
    for line in text.splitlines():
        fields = line.split("\t")
        if len(fields) == 3 and fields[1].strip() == "ii":
            installed[fields[0].split(":")[0]] = fields[2]
    return installed


def package_owes(wanted, installed, versions):
    """What is owed for packages: each wanted one not installed, each whose version does not match."""
    owes = ["package %s is not installed" % name for name in wanted if name not in installed]
    for name, pattern in sorted(versions.items()):
        if name in installed and not re.match(pattern, installed[name]):
            owes.append("package %s is at %s, not %s" % (name, installed[name], pattern))
    return owes


def _owner(uid, gid):
    try:
        user = pwd.getpwuid(uid).pw_name
    except KeyError:
        user = str(uid)
    try:
        group = grp.getgrgid(gid).gr_name
    except KeyError:
        group = str(gid)
    return user, group


# No file a role writes is larger: a wanted file past this is drift, and is not read.
FILE_LIMIT = 16 * 1024 * 1024


def _content_differs(handle, info, wanted):
    """Whether the open file differs from the wanted ``content`` (text) or ``sha256``, reading no more than the
    wanted content's length, or FILE_LIMIT for a digest; compared as bytes."""
    if wanted.get("content") is not None:
        want = wanted["content"].encode("utf-8")
        return info.st_size != len(want) or handle.read(len(want)) != want
    if wanted.get("sha256"):
        if info.st_size > FILE_LIMIT:
            return True
        digest = hashlib.sha256()
        for chunk in iter(lambda: handle.read(1024 * 1024), b""):
            digest.update(chunk)
        return digest.hexdigest() != wanted["sha256"].lower()
    return False


def _lines(handle, info, path):
    if info.st_size > FILE_LIMIT:
        return None, "%s is %s, more than a file this role writes" % (path, _host_files.size_text(info.st_size))
    try:
        return handle.read(info.st_size).decode("utf-8").splitlines(), None
    except UnicodeDecodeError:
        return None, "%s is not UTF-8 text" % path


def file_owes(wanted, info=None):
    """What is owed for one file: ``{path, content?, sha256?, lines?, mode?, owner?, group?}``.

    ``content`` must be the whole text, ``sha256`` the SHA-256 of its bytes (hex: for a text that holds a
    secret, which then never travels), ``lines`` lines the file must hold among others; without any of them,
    the file must only exist. With ``info`` (its stat), only the mode and owner are read. The path is opened
    without following a link (a link where the role writes a file is drift: its copy would replace the link);
    only a regular file is read, and no further than the wanted content (a FIFO, a device or a sparse file of
    gigabytes cannot hold the module).
    """
    path = wanted["path"]
    owes = []
    if info is None:
        try:
            with _host_files.open_regular(path) as (handle, info):
                if handle is None:
                    return ["%s is missing" % path]
                if _content_differs(handle, info, wanted):
                    owes.append("%s differs from its template" % path)
                if wanted.get("lines"):
                    handle.seek(0)
                    have, problem = _lines(handle, info, path)
                    missing = [line for line in wanted["lines"] if have is None or line not in have]
                    owes.extend([problem] if problem else ["%s lacks %s" % (path, "; ".join(missing))] if missing else [])
        except _host_files.HostFileError as exc:
            return [str(exc)]
        except OSError as exc:
            return ["%s cannot be read: %s" % (path, exc.strerror)]
    if wanted.get("mode") and stat.S_IMODE(info.st_mode) != int(str(wanted["mode"]), 8):
        owes.append("%s has mode %04o, not %s" % (path, stat.S_IMODE(info.st_mode), wanted["mode"]))
    user, group = _owner(info.st_uid, info.st_gid)
    if (wanted.get("owner") or user) != user or (wanted.get("group") or group) != group:
        owes.append("%s belongs to %s:%s, not %s:%s" % (
            path, user, group, wanted.get("owner") or user, wanted.get("group") or group))
    return owes


def absent_owes(paths):
    return ["%s should not exist" % path for path in paths if os.path.lexists(path)]


# One block per unit, in the order asked, blank lines between: a unit systemd does not know has an
# empty UnitFileState and ActiveState inactive.
SYSTEMCTL_SHOW = ["show", "-p", "Id", "-p", "UnitFileState", "-p", "ActiveState"]


def service_owes(services, show_text):
    """What is owed for units that must be enabled and active, from ``systemctl show`` (SYSTEMCTL_SHOW)."""
    blocks = [dict(line.split("=", 1) for line in block.splitlines() if "=" in line)
              for block in show_text.strip().split("\n\n")]
    owes = []
    for index, name in enumerate(services):
        unit = blocks[index] if index < len(blocks) else {}
        if unit.get("UnitFileState") != "enabled":
            owes.append("%s is not enabled" % name)
        if unit.get("ActiveState") != "active":
            owes.append("%s is not running" % name)
    return owes


def group_owes(names):
    owes = []
    for name in names:
        try:
            grp.getgrnam(name)
        except KeyError:
            owes.append("group %s does not exist" % name)
    return owes


def user_owes(wanted):
    """What is owed for one account: ``{name, group?, home?, shell?}``."""
    name = wanted["name"]
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        return ["user %s does not exist" % name]
    owes = []
    try:
        group = grp.getgrgid(entry.pw_gid).gr_name
    except KeyError:
        group = str(entry.pw_gid)
    for key, have in (("group", group), ("home", entry.pw_dir), ("shell", entry.pw_shell)):
        if wanted.get(key) and wanted[key] != have:
            owes.append("user %s has %s %s, not %s" % (name, key, have, wanted[key]))
    return owes


def directory_owes(wanted):
    """What is owed for one directory: ``{path, mode?, owner?, group?}``."""
    path = wanted["path"]
    try:
        info = os.stat(path)
    except OSError:
        return ["%s is missing" % path]
    if not stat.S_ISDIR(info.st_mode):
        return ["%s is not a directory" % path]
    return file_owes(dict(wanted, content=None, lines=None), info)


def _canonical(name):
    return re.sub(r"[-_.]+", "_", name).lower()


def python_package_version(venv, name):
    """The version of the distribution ``name`` installed in ``venv`` (from its .dist-info), or None. A
    ``site-packages`` that is not a directory holds nothing; a name that is not UTF-8 is shown escaped."""
    wanted = _canonical(name)
    for site in sorted(glob.glob(os.path.join(venv, "lib", "python*", "site-packages"))):
        try:
            entries = os.listdir(site) if os.path.isdir(site) else []
        except OSError:
            entries = []
        for entry in entries:
            if entry.endswith(".dist-info") and _canonical(entry[:-len(".dist-info")].rsplit("-", 1)[0]) == wanted:
                version = entry[:-len(".dist-info")].rsplit("-", 1)[-1]
                try:
                    return version.encode("utf-8").decode("utf-8")
                except UnicodeEncodeError:
                    return ascii(version)
    return None


def python_package_owes(wanted):
    """What is owed for ``{venv, name, version}``: the distribution at that version in the venv."""
    have = python_package_version(wanted["venv"], wanted["name"])
    if have == wanted["version"]:
        return []
    return ["%s %s is not in %s (%s)" % (wanted["name"], wanted["version"], wanted["venv"],
                                         "found %s" % have if have else "not installed")]


# Report-only units: one block per unit, as SYSTEMCTL_SHOW.
SYSTEMCTL_ACTIVE = ["show", "-p", "Id", "-p", "ActiveState"]


def unit_states(units, show_text):
    """{unit: ActiveState} from ``systemctl show`` (SYSTEMCTL_ACTIVE) of ``units``, in order."""
    blocks = [dict(line.split("=", 1) for line in block.splitlines() if "=" in line)
              for block in show_text.strip().split("\n\n")] if show_text.strip() else []
    return dict((name, (blocks[index] if index < len(blocks) else {}).get("ActiveState", "inactive"))
                for index, name in enumerate(units))
