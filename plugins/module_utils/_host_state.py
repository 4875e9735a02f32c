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


def file_owes(wanted, info=None):
    """What is owed for one file: ``{path, content?, sha256?, lines?, mode?, owner?, group?}``.

    ``content`` must be the whole text, ``sha256`` the SHA-256 of its bytes (hex: for a text that holds a
    secret, which then never travels), ``lines`` lines the file must hold among others; without any of them,
    the file must only exist. With ``info`` (its stat), only the mode and owner are read. Only a regular file
    is read, and no further than the size it had when opened: a FIFO, a device or a file that grows while it is
    read cannot hold the module.
    """
    path = wanted["path"]
    data = b""
    try:
        if info is None:
            # O_NONBLOCK: opening a FIFO without a writer returns at once; the type is read from what was opened.
            with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as handle:
                info = os.fstat(handle.fileno())
                if not stat.S_ISREG(info.st_mode):
                    return ["%s is not a regular file" % path]
                data = handle.read(info.st_size + 1)
    except OSError:
        return ["%s is missing" % path]
    text = data.decode("utf-8", "replace")
    owes = []
    if (wanted.get("content") is not None and text != wanted["content"]
            or wanted.get("sha256") and hashlib.sha256(data).hexdigest() != wanted["sha256"].lower()):
        owes.append("%s differs from its template" % path)
    missing = [line for line in wanted.get("lines") or [] if line not in text.splitlines()]
    if missing:
        owes.append("%s lacks %s" % (path, "; ".join(missing)))
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
    """The version of the distribution ``name`` installed in ``venv`` (from its .dist-info), or None."""
    wanted = _canonical(name)
    for site in sorted(glob.glob(os.path.join(venv, "lib", "python*", "site-packages"))):
        for entry in os.listdir(site):
            if entry.endswith(".dist-info") and _canonical(entry[:-len(".dist-info")].rsplit("-", 1)[0]) == wanted:
                return entry[:-len(".dist-info")].rsplit("-", 1)[1]
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
