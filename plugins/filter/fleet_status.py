# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
name: fleet_status
version_added: 0.2.0
short_description: The fleet's state, one row per SGLang server, with where each stands in every router
description:
  - Adds to each row (the C(sglang_status) fact of the C(status) entry point of C(gpufleet.sglang.launch)) a
    C(routers) mapping from each router to V(in), V(in (unhealthy)), V(out) or V(unreachable), read from what
    the routers have registered (the C(registered) entry point of C(gpufleet.sglang.router)).
  - With O(table=true), renders the rows as aligned text lines instead, for people.
positional: _input, registered
options:
  _input:
    description: The rows, one per host.
    type: list
    elements: dict
    required: true
  registered:
    description:
      - "What each router has registered, C({router: [worker, ...]}), V(null) for a router that did not answer."
    type: dict
    default: {}
  table:
    description: Return the table's lines instead of the rows.
    type: bool
    default: false
"""

EXAMPLES = r"""
rows: "{{ ansible_play_hosts | map('extract', hostvars, 'sglang_status') | gpufleet.sglang.fleet_status(sglang_router_registered) }}"
lines: "{{ rows | gpufleet.sglang.fleet_status(table=true) }}"
"""

RETURN = r"""
_value:
  description: The rows with C(routers), or with O(table=true) the table's lines.
  type: list
"""

from ansible_collections.gpufleet.sglang.plugins.module_utils import _fleet_status


def fleet_status(rows, registered=None, table=False):
    rows = _fleet_status.with_routers(rows, registered) if registered is not None else list(rows)
    return _fleet_status.table(rows) if table else rows


class FilterModule(object):
    def filters(self):
        return {"fleet_status": fleet_status}
