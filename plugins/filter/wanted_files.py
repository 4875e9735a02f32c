# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
name: wanted_files
version_added: 0.2.2
short_description: A role's list of the files it writes, as gpufleet.sglang.host_state reads them
description:
  - A role keeps the files it manages in one list (C(path), C(content), C(owner), C(group), C(mode), and what only
    the write needs, such as C(validate)); its converge writes them by looping over that list, and its read of the
    host gives the same list through this filter, so that what is checked cannot drift from what is written.
  - Keeps the keys M(gpufleet.sglang.host_state) reads (C(path), C(content), C(sha256), C(lines), C(mode),
    C(owner), C(group)). An entry with C(secret) true is read by the SHA-256 of its content, computed here on the
    controller, so that the secret is never a module argument.
positional: _input
options:
  _input:
    description: The role's files.
    type: list
    elements: dict
    required: true
"""

EXAMPLES = r"""
files: "{{ [{'path': '/etc/x/api_key', 'content': 's3cret', 'secret': true, 'mode': '0640'}] | gpufleet.sglang.wanted_files }}"
# => [{'path': '/etc/x/api_key', 'sha256': '<64 hex digits>', 'mode': '0640'}]
"""

RETURN = r"""
_value:
  description: The files as M(gpufleet.sglang.host_state)'s O(gpufleet.sglang.host_state#module:files) takes them.
  type: list
  elements: dict
"""

import hashlib

from ansible.errors import AnsibleFilterError

READ_KEYS = ("path", "content", "sha256", "lines", "mode", "owner", "group")


def wanted_files(files):
    wanted = []
    for index, entry in enumerate(files or []):
        if not isinstance(entry, dict) or not entry.get("path"):
            raise AnsibleFilterError("wanted_files: entry %d is not a file with a path" % index)
        read = dict((key, entry[key]) for key in READ_KEYS if key in entry)
        if entry.get("secret"):
            read["sha256"] = hashlib.sha256(str(read.pop("content", "")).encode("utf-8")).hexdigest()
        wanted.append(read)
    return wanted


class FilterModule(object):
    def filters(self):
        return {"wanted_files": wanted_files}
