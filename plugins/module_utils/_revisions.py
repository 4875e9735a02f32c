# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which revisions (venvs, staged weights) a prune removes: in each parent directory, the subdirectories whose
name matches, beyond the newest ``keep``, that no unit names and no caller keeps.

Private to the collection: not a public API.
"""

from __future__ import annotations

import os
import re

from ansible_collections.gpufleet.sglang.plugins.module_utils._staged_settings import names


class RevisionsError(Exception):
    """A parent directory or pattern that a prune cannot work on safely."""


def unused(parents, pattern, keep, keep_paths, named):
    """The revision directories to remove, newest first within each parent. A link is never a revision (it is
    neither followed nor removed); a parent that does not exist has none."""
    try:
        matches = re.compile(pattern).fullmatch
    except re.error as exc:
        raise RevisionsError("pattern %r is not a regular expression: %s" % (pattern, exc)) from None
    if keep < 0:
        raise RevisionsError("keep is %d: it counts the revisions kept, 0 or more" % keep)
    kept = set(os.path.normpath(path) for path in keep_paths)
    gone = []
    for parent in parents:
        if not os.path.isabs(parent) or os.path.normpath(parent) == "/":
            raise RevisionsError("%r is not a directory of revisions: give an absolute path below /" % parent)
        try:
            entries = list(os.scandir(parent))
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise RevisionsError("%s cannot be listed: %s" % (parent, exc.strerror)) from None
        revisions = sorted((entry.stat(follow_symlinks=False).st_mtime, entry.path) for entry in entries
                           if matches(entry.name) and entry.is_dir(follow_symlinks=False))
        for _mtime, path in reversed(revisions[:max(0, len(revisions) - keep)]):
            if os.path.normpath(path) not in kept and not names(named, path):
                gone.append(path)
    return gone
