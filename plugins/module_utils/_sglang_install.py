# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Installing SGLang into its venv: where pip takes it from, the checks before a new venv.

Private to the collection: not a public API.
"""

from __future__ import annotations

import os


def pip_args(wheelhouse, index_url="", extra_index_urls=(), torch_index_url="", extra_args=()):
    """pip's source arguments for the install role's settings.

    A wheelhouse (the directory on the host) installs with ``--no-index``; otherwise the main
    index, the further indexes and the PyTorch lane are searched in that order. ``extra_args``
    come last, as given.
    """
    args = []
    if wheelhouse:
        args += ["--no-index", "--find-links", wheelhouse]
    if index_url:
        args += ["--index-url", index_url]
    args += ["--extra-index-url=%s" % url for url in extra_index_urls or ()]
    if torch_index_url:
        args += ["--extra-index-url", torch_index_url]
    return args + [str(arg) for arg in extra_args or ()]


# The version of a distribution installed in a venv, read by the venv's own interpreter.
READ_VERSION = "import importlib.metadata as m, sys; print(m.version(sys.argv[1]))"


def free_gb(path):
    """Free space (GB, what an unprivileged user may use) on the filesystem that holds path."""
    stats = os.statvfs(path)
    return stats.f_bavail * stats.f_frsize / float(1 << 30)


def no_room_message(directory, free, needed, version, host):
    return ("%s on %s has %.1f GB free; a new venv for SGLang %s needs sglang_venv_min_free_gb=%s GB. Nothing "
            "was installed and the running server was not touched. Free space (older venvs below it that no "
            "server runs can go), or lower sglang_venv_min_free_gb if the venv is known to be smaller."
            % (directory, host, free, version, needed))


def dry_run_refusal(rc, stderr, version, venv, python_version):
    """The message when pip's dry run refuses the release on this interpreter, or None.

    pip older than 22.2 (Ubuntu 22.04's venv) has no --dry-run: the install itself then says it."""
    if rc == 0 or "no such option: --dry-run" in stderr:
        return None
    lines = stderr.splitlines()
    said = [line for line in lines if "ERROR" in line] or lines[-3:]
    return ("pip refuses sglang==%s in %s (Python %s on the host): %s. Use an older SGLang release, or point "
            "sglang_python at a newer interpreter." % (version, venv, python_version, " ".join(said)))
