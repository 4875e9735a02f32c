#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: unused_revisions
short_description: Ensure the old revisions no unit names (venvs, staged weights) are absent, beyond a kept count
version_added: 0.2.2
description:
  - In each directory of O(parents), the subdirectories whose name matches O(pattern) are its revisions. Those
    beyond the newest O(keep) (by modification time) are removed, except a revision that the C(ExecStart) of a unit
    of O(units) names (itself or a path below it, as a word or an C(--option=value)) and those of O(keep_paths).
  - One reading of what a unit names, the same as M(gpufleet.sglang.staged_settings) uses for the venv a unit
    runs. A unit that cannot be read (a link, such as a unit masked to C(/dev/null); not a regular file; larger
    than any unit; an C(ExecStart) that cannot be split into words) may name a revision, so nothing is removed; the
    task warns naming it and does not fail (the prune runs after a batch's server is back in service).
  - A link in a parent is never a revision; it is neither followed nor removed. A parent that does not exist has
    no revisions.
author:
  - gpufleet.sglang developers (@gpufleet)
options:
  parents:
    description: The directories whose subdirectories are the revisions, absolute paths below C(/).
    type: list
    elements: path
    required: true
  pattern:
    description: A regular expression that a subdirectory's whole name must match to be a revision.
    type: str
    default: ".*"
  keep:
    description: How many of the newest revisions of each parent are kept in any case.
    type: int
    required: true
  keep_paths:
    description: Revisions kept in any case (what the run staged).
    type: list
    elements: path
    default: []
  units:
    description: Unit files, or shell patterns of them, whose C(ExecStart) names the revisions in use.
    type: list
    elements: path
    default: []
attributes:
  check_mode:
    description: Can run in check mode and return changed status prediction without modifying the target.
    support: full
    details: Says what it would remove, and removes nothing.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check mode), when in diff mode.
    support: full
    details: The revisions it removes, one path per line.
"""

EXAMPLES = r"""
- name: Remove the venvs no unit names, beyond the newest two
  gpufleet.sglang.unused_revisions:
    parents: [/opt/sglang/venvs]
    keep: 2
    units:
      - /etc/systemd/system/sglang-*.service
      - /etc/sglang/staged/sglang-*.service
      - /etc/sglang/previous/sglang-*.service
"""

RETURN = r"""
removed:
  description: The revisions removed (in check mode, that would be removed), newest first within each parent.
  returned: always
  type: list
  elements: str
  sample: [/opt/sglang/venvs/sglang-0.5.8]
unreadable:
  description: The unit that could not be read, and why, when nothing was removed for it (also a warning); empty
    when every unit was read.
  returned: always
  type: str
  sample: ""
"""

import shutil

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpufleet.sglang.plugins.module_utils._revisions import RevisionsError, unused
from ansible_collections.gpufleet.sglang.plugins.module_utils._staged_settings import SettingsError, named_paths


def main():
    module = AnsibleModule(
        argument_spec=dict(
            parents=dict(type="list", elements="path", required=True),
            pattern=dict(type="str", default=".*"),
            keep=dict(type="int", required=True),
            keep_paths=dict(type="list", elements="path", default=[]),
            units=dict(type="list", elements="path", default=[]),
        ),
        supports_check_mode=True,
    )
    params = module.params
    try:
        named = named_paths(params["units"])
    except SettingsError as exc:
        module.warn("No revision was removed: a unit that may name one cannot be read. %s" % exc)
        module.exit_json(changed=False, removed=[], unreadable=str(exc))
    try:
        gone = unused(params["parents"], params["pattern"], params["keep"], params["keep_paths"], named)
    except RevisionsError as exc:
        module.fail_json(msg="Nothing was removed: %s" % exc)
    for done, path in enumerate([] if module.check_mode else gone):
        try:
            shutil.rmtree(path)
        except OSError as exc:
            module.fail_json(msg="%s could not be removed: %s" % (path, exc), removed=gone[:done])
    result = dict(changed=bool(gone), removed=gone, unreadable="")
    if module._diff:
        result["diff"] = dict(before="".join(path + "\n" for path in sorted(gone)), after="")
    module.exit_json(**result)


if __name__ == "__main__":
    main()
