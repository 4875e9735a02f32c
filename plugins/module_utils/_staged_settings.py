# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A server's settings in three places: staged (written by every run, read by nobody), live (what
systemd starts, also after a crash or a reboot) and previous (what was live before the last swap,
the rollback point). Two records beside the staged files outlive a failed or killed run: a restart
owed for another reason (code patched under a running server), and the server having left the
routers (between a batch's leave and its rejoin).

``Layout`` is the one definition of where an instance's files are: the modules use it, and the roles
read it through the ``sglang_layout`` filter."""

from __future__ import annotations

import glob
import json
import os
import shlex
import time

from ansible_collections.gpufleet.sglang.plugins.module_utils import _host_files
from ansible_collections.gpufleet.sglang.plugins.module_utils._host_files import HostFileError

# Recorded by every swap and forgotten by settle: a run that dies between the swap and the restart
# leaves live settings the running server does not have yet, and the next run must still restart it.
SWAPPED = "settings swapped in, not yet restarted with them"
DRAFT_FLAG = "--speculative-draft-model-path"
RESET = "sglang_reset_damaged_records=true"
# What a damaged record is read as with RESET: the safe side (a restart owed; out of the routers, so that the
# batch puts the server back in every one).
DAMAGED_RESTART = "a restart owed (its record was damaged)"


class SettingsError(Exception):
    """A file of the server's settings that cannot be used; the message names it and what to do."""


class Layout(object):
    """Where one instance's files live. ``settings_dir`` holds ``<instance>.env`` and ``<instance>.yaml``,
    ``unit_dir`` the unit ``sglang-<instance>.service``; staged and previous copies go to
    ``settings_dir/staged`` and ``settings_dir/previous``, the records of a restart owed and of the
    server having left the routers to ``settings_dir/staged/<instance>.restart`` and ``.left``."""

    def __init__(self, instance, settings_dir="/etc/sglang", unit_dir="/etc/systemd/system", reset_damaged=False):
        self.instance = instance
        # With reset_damaged, a damaged record reads as its safe meaning (and repair() writes that), a unit whose
        # ExecStart cannot be split as naming nothing; ``damaged`` lists what was read so.
        self.reset_damaged = reset_damaged
        self.damaged = []
        self.settings_dir = settings_dir
        self.unit_dir = unit_dir
        self.unit = "sglang-%s.service" % instance
        self.env_file = os.path.join(settings_dir, instance + ".env")
        self.config_file = os.path.join(settings_dir, instance + ".yaml")
        self.live = {
            self.unit: os.path.join(unit_dir, self.unit),
            instance + ".env": self.env_file,
            instance + ".yaml": self.config_file,
        }
        self.staged_dir = os.path.join(settings_dir, "staged")
        self.previous_dir = os.path.join(settings_dir, "previous")
        self.marker = os.path.join(self.staged_dir, instance + ".restart")
        self.left_record = os.path.join(self.staged_dir, instance + ".left")

    def staged(self, name):
        return os.path.join(self.staged_dir, name)

    def previous(self, name):
        return os.path.join(self.previous_dir, name)

    def as_dict(self):
        """The names the roles use (the ``sglang_layout`` filter)."""
        return {
            "instance": self.instance, "unit": self.unit, "unit_path": self.live[self.unit],
            "settings_dir": self.settings_dir, "env_file": self.env_file, "config_file": self.config_file,
            "staged_dir": self.staged_dir, "previous_dir": self.previous_dir,
            "restart_record": self.marker, "left_record": self.left_record,
            # Every instance's units, live, staged and previous, for what must see all of them (the venv prune).
            "unit_globs": [os.path.join(unit_dir, "sglang-*.service") for unit_dir in
                           (self.unit_dir, self.staged_dir, self.previous_dir)],
        }


def read_text(path):
    data = _read(path)
    return "" if data is None else data.decode("utf-8", "replace")


def _read(path):
    """The bytes of one of the server's files, or None; a file that is not one the collection writes (a link,
    a FIFO, a directory, larger than any settings file) raises SettingsError naming it."""
    try:
        return _host_files.read(path, _host_files.SETTINGS_LIMIT, "server settings file")
    except HostFileError as exc:
        raise SettingsError("%s. The collection writes this file as a regular file: remove what is there (the next "
                            "run writes it again from the inventory)" % exc) from None


_RECORDS = {
    "marker": ("the restarts this server owes", list, [DAMAGED_RESTART]),
    "left_record": ("that this server left the routers", dict,
                    {"since": "an earlier run (its record was damaged)", "routers": []}),
}


def _record(layout, attribute):
    """The parsed record at ``layout.<attribute>``, None when there is none; a damaged one (not the JSON this
    module writes) raises SettingsError saying how to go on, or with ``reset_damaged`` reads as its safe meaning."""
    path = getattr(layout, attribute)
    what, kind, safe = _RECORDS[attribute]
    try:
        value = _host_files.read_json(path, _host_files.RECORD_LIMIT, "record", expect=kind)
        if value is not None and not _record_shape(value):
            raise HostFileError("%s does not hold the fields this collection writes" % path)
    except HostFileError as exc:
        if layout.reset_damaged:
            if path not in layout.damaged:
                layout.damaged.append(path)
            return safe
        raise SettingsError("%s is damaged (%s); it records %s. Run again with -e %s to replace it with its safe "
                            "meaning (%s), or remove the file" % (
                                path, exc, what, RESET, "a restart owed" if kind is list else
                                "out of every router, which the batch puts it back into")) from None
    return value


def _record_shape(value):
    if isinstance(value, list):
        return all(isinstance(reason, str) for reason in value)
    return (isinstance(value.get("since"), str) and isinstance(value.get("routers"), list)
            and all(isinstance(router, str) for router in value["routers"]))


def _write_record(path, value):
    _host_files.write(path, json.dumps(value).encode(), mode=0o600)


def owed_reasons(layout):
    return _record(layout, "marker") or []


def repair(layout):
    """Write the safe meaning of each damaged record read so far (``reset_damaged``). Returns their paths."""
    for path in layout.damaged:
        attribute = "marker" if path == layout.marker else "left_record"
        _write_record(path, _RECORDS[attribute][2])
    return list(layout.damaged)


def differing(layout):
    """The file names whose staged copy differs from the live one (a staged file that is missing
    differs only when a live one exists: nothing was staged for it yet)."""
    names = []
    for name in sorted(layout.live):
        staged = _read(layout.staged(name))
        if staged is not None and staged != _read(layout.live[name]):
            names.append(name)
    return names


def beyond_draft(layout, would_stage=()):
    """The differing files whose staged copy changes more than the draft: the unit with the live draft's
    path put back for the staged one, the other files as they are. In check mode nothing was staged: a file
    a check run would stage counts, except the unit, which differs by the draft alone as far as can be told."""
    names = []
    for name in differing(layout):
        if name == layout.unit:
            staged_draft = unit_flag(layout.staged(name), DRAFT_FLAG, layout.reset_damaged)
            live_draft = unit_flag(layout.live[name], DRAFT_FLAG, layout.reset_damaged)
            text = read_text(layout.staged(name))
            if staged_draft and live_draft:
                text = text.replace(staged_draft, live_draft)
            if text == read_text(layout.live[name]):
                continue
        names.append(name)
    return names + [name for name in would_stage if name != layout.unit and name not in names]


def exec_start(path, reset_damaged=False):
    """The words of the unit's ExecStart (continuation lines joined), or []. An ExecStart that cannot be split
    into words raises SettingsError (with ``reset_damaged``: [], a unit that names nothing)."""
    text = read_text(path).replace("\\\n", " ")
    for line in text.splitlines():
        if line.startswith("ExecStart="):
            try:
                return shlex.split(line[len("ExecStart="):].lstrip("@-:+!"))
            except ValueError as exc:
                if reset_damaged:
                    return []
                raise SettingsError("%s: its ExecStart cannot be split into words (%s). Remove the unit (the next "
                                    "run writes it again from the inventory), or run again with -e %s"
                                    % (path, exc, RESET)) from None
    return []


def unit_venv(path, reset_damaged=False):
    """The venv of the unit's ExecStart (``<venv>/bin/python -m ...``), or None."""
    words = exec_start(path, reset_damaged)
    if words and os.path.basename(os.path.dirname(words[0])) == "bin":
        return os.path.dirname(os.path.dirname(words[0]))
    return None


def named_paths(unit_globs, reset_damaged=False):
    """Every absolute path that the ExecStart of a unit matching ``unit_globs`` names (a word, or the value of an
    ``--option=value`` word), normalized: the venvs and weights the servers run, live, staged or to roll back to."""
    named = set()
    for pattern in unit_globs:
        for path in sorted(glob.glob(pattern)):
            for word in exec_start(path, reset_damaged):
                value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
                if value.startswith("/"):
                    named.add(os.path.normpath(value))
    return named


def names(named, path):
    """Whether ``path`` or a path below it is among ``named`` (from named_paths)."""
    path = os.path.normpath(path)
    return any(name == path or name.startswith(path.rstrip(os.sep) + os.sep) for name in named)


def unit_flag(path, flag, reset_damaged=False):
    """The value of ``--flag value`` in the unit's ExecStart, or None."""
    words = exec_start(path, reset_damaged)
    return words[words.index(flag) + 1] if flag in words[:-1] else None


def port_users(layout, port):
    """The other instances' live units whose ExecStart passes ``--port <port>``."""
    others = sorted(glob.glob(os.path.join(os.path.dirname(layout.live[layout.unit]), "sglang-*.service")))
    return [os.path.basename(path) for path in others
            if os.path.basename(path) != layout.unit and unit_flag(path, "--port", layout.reset_damaged) == str(port)]


def left_routers(layout):
    """When and from which routers the server left (``{since, routers}``), or None while it is in them."""
    return _record(layout, "left_record")


def inspect(layout, would_stage=(), venv=None, port=None):
    """The server's state. ``would_stage``: file names a check run would have staged (they owe a restart
    as if written); ``venv``/``port``: also report whether that venv's interpreter exists and which other
    instances use that port."""
    names = sorted(set(differing(layout)) | set(would_stage))
    reasons = owed_reasons(layout)
    left = left_routers(layout)
    state = {
        "pending": bool(names or reasons),
        "has_live": os.path.exists(layout.live[layout.unit]),
        "differing": names,
        "beyond_draft": beyond_draft(layout, would_stage),
        "owed": reasons,
        "left": left,
        "live_venv": unit_venv(layout.live[layout.unit], layout.reset_damaged),
        "staged_venv": unit_venv(layout.staged(layout.unit), layout.reset_damaged),
        "previous_venv": unit_venv(layout.previous(layout.unit), layout.reset_damaged),
        "live_draft": unit_flag(layout.live[layout.unit], DRAFT_FLAG, layout.reset_damaged),
        "live_model": unit_flag(layout.live[layout.unit], "--model-path", layout.reset_damaged),
        "has_previous": os.path.isdir(layout.previous_dir) and bool(os.listdir(layout.previous_dir)),
    }
    if venv is not None:
        state["venv_exists"] = os.path.exists(os.path.join(venv, "bin", "python"))
    if port is not None:
        state["port_users"] = port_users(layout, port)
    return state


RUNNING = ("active", "activating", "reloading")


def what_is_owed(state, active_state):
    """Why the server's batch must take it (``[]``: nothing), and whether it serves now: a restart for
    staged files or recorded reasons, a start when its unit does not run, a rejoin when an earlier run
    left it out of the routers."""
    running = active_state in RUNNING
    left = state.get("left")
    owes = list(state["differing"]) + list(state["owed"])
    if not running:
        owes.append("not running" if state["has_live"] else "first start")
    if left:
        owes.append("out of the routers since %s" % left.get("since", "an earlier run"))
    return {"owes": owes, "running": running, "serving": running and not left}


def _copy(source, dest):
    """Copy ``source`` over ``dest`` atomically, with the source's mode and owner (see _host_files.write)."""
    data = _read(source)
    info = os.lstat(source)
    _host_files.write(dest, data, mode=info.st_mode & 0o7777, owner=(info.st_uid, info.st_gid))


def _put(source, dest):
    """``dest`` becomes what ``source`` is: a copy, or absent when ``source`` does not exist."""
    if _read(source) is not None:
        _copy(source, dest)
    elif os.path.lexists(dest):
        os.unlink(dest)


def swap(layout):
    """previous <- live, live <- staged, for every file that differs, and a restart owed for it (see
    SWAPPED) until settle. Returns the names swapped."""
    names = differing(layout)
    if not names:
        return []
    owe(layout, SWAPPED)
    if not os.path.isdir(layout.previous_dir):
        os.makedirs(layout.previous_dir, mode=0o700)
    for name in layout.live:  # the whole live set is the rollback point, not only what changes
        _put(layout.live[name], layout.previous(name))
    for name in names:
        _copy(layout.staged(name), layout.live[name])
    return names


def unconfirmed(layout):
    """Whether the live settings were swapped in and not yet confirmed (SWAPPED still owed: no settle
    after a healthy restart) and a rollback point exists (a first start has none): what a failed batch
    rolls back. Settings a healthy restart confirmed are changed by staging others, never rolled back."""
    return SWAPPED in owed_reasons(layout) and os.path.isdir(layout.previous_dir) and bool(
        os.listdir(layout.previous_dir))


def to_roll_back(layout):
    """The file names whose previous copy differs from the live one (none without a rollback point)."""
    if not os.path.isdir(layout.previous_dir):
        return []
    return [name for name in sorted(layout.live) if _read(layout.previous(name)) != _read(layout.live[name])]


def rollback(layout):
    """live <- previous. Returns the names put back."""
    names = to_roll_back(layout)
    for name in names:
        _put(layout.previous(name), layout.live[name])
    return names


def owes_for(layout, reason, venv=None):
    """Whether ``reason`` is a new debt: not recorded yet, and with ``venv``, the live unit runs that venv
    (code changed in a venv no server runs owes nothing)."""
    if venv is not None and unit_venv(layout.live[layout.unit]) != venv.rstrip("/"):
        return False
    return reason not in owed_reasons(layout)


def owe(layout, reason, venv=None):
    """Record a restart owed for ``reason`` (see owes_for); True when it was recorded."""
    if not owes_for(layout, reason, venv):
        return False
    reasons = owed_reasons(layout)
    if not os.path.isdir(layout.staged_dir):
        os.makedirs(layout.staged_dir, mode=0o700)
    _write_record(layout.marker, reasons + [reason])
    return True


def settle(layout, reason=None):
    """The restart owed was done: forget the reasons (only ``reason``, when given). True when one was forgotten."""
    reasons = owed_reasons(layout)
    left = [owed for owed in reasons if reason is not None and owed != reason]
    if left == reasons:
        return False
    if left:
        _write_record(layout.marker, left)
    else:
        os.unlink(layout.marker)
    return True


def leave(layout, routers, now=None):
    """Record that the server left ``routers`` (before it leaves them: a run killed in between leaves a
    record the next run finishes from). True when it was not recorded yet."""
    if left_routers(layout) is not None:
        return False
    if not os.path.isdir(layout.staged_dir):
        os.makedirs(layout.staged_dir, mode=0o700)
    since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() if now is None else now))
    _write_record(layout.left_record, {"since": since, "routers": sorted(routers)})
    return True


def rejoin(layout):
    """The server is back in every router: forget the record. True when there was one."""
    if left_routers(layout) is None:
        return False
    os.unlink(layout.left_record)
    return True
