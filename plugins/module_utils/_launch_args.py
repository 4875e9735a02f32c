# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The SGLang command line the launch role renders, and its quoting for a systemd ExecStart."""

from __future__ import annotations

import re

# A value systemd would split or expand: whitespace, quotes, backslashes, $VAR, %specifiers.
_NEEDS_QUOTES = re.compile(r"[\s'\"\\;$%]")


def flags(mapping):
    """{'tp-size': 8, 'trust-remote-code': True, 'x': False, 'ids': [1, 2]} -> ['--tp-size', '8', ...].

    Booleans are bare flags (false leaves the flag out), lists give several values, None is
    left out. Keys may be written with dashes or underscores.
    """
    args = []
    for key, value in mapping.items():
        if value is None or value is False or value == "":
            continue
        flag = "--" + str(key).lstrip("-").replace("_", "-")
        if value is True:
            args.append(flag)
        elif isinstance(value, (list, tuple)):
            args.append(flag)
            args.extend(str(item) for item in value)
        else:
            args.extend([flag, str(value)])
    return args


def local_url(host, port):
    """The URL at which the server's own host reaches it: a wildcard bind is reached on loopback."""
    host = "127.0.0.1" if host in ("0.0.0.0", "::", "", None) else str(host)
    return "http://%s:%s" % ("[%s]" % host if ":" in host else host, port)


def systemd_quote(arg):
    """Quote one argument for ExecStart=: %% for specifiers, double quotes when needed.

    ``${NAME}`` stays as it is on purpose: it is how a value comes from EnvironmentFile=.
    """
    text = str(arg).replace("%", "%%")
    if re.fullmatch(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}", text):
        return text
    if not text or _NEEDS_QUOTES.search(text):
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("$", "$$") + '"'
    return text


def exec_start(argv):
    """An ExecStart= value from an argument list, one flag (with its values) per continued line."""
    lines, current = [], []
    for arg in argv:
        if str(arg).startswith("--") and current:
            lines.append(" ".join(current))
            current = []
        current.append(systemd_quote(arg))
    if current:
        lines.append(" ".join(current))
    return " \\\n    ".join(lines)
