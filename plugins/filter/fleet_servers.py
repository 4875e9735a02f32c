# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
name: fleet_servers
version_added: 0.2.1
short_description: Every SGLang server of an inventory group, once each, as its rank 0 host
description:
  - "P(gpufleet.sglang.fleet_host#filter) of the rank 0 host of every server of O(group) (the other ranks of a multi-node
    server serve no HTTP): what the routers register and Prometheus scrapes."
positional: _input, hostvars, settings
options:
  _input:
    description: C(groups).
    type: dict
    required: true
  hostvars:
    description: C(hostvars).
    type: dict
    required: true
  settings:
    description: The shared settings' values, for what a host does not set (see P(gpufleet.sglang.fleet_host#filter)).
    type: dict
    required: true
  group:
    description: The inventory group of the servers.
    type: str
    default: sglang_servers
"""

EXAMPLES = r"""
worker_urls: "{{ groups | gpufleet.sglang.fleet_servers(hostvars, {'sglang_port': 30000}) | map(attribute='worker_url') }}"
"""

RETURN = r"""
_value:
  description: One P(gpufleet.sglang.fleet_host#filter) per server, in the group's order.
  type: list
  elements: dict
"""

from ansible_collections.gpufleet.sglang.plugins.module_utils import _fleet_hosts


def fleet_servers(groups, hostvars, settings, group="sglang_servers"):
    return _fleet_hosts.fleet_servers(groups, hostvars, settings, group)


class FilterModule(object):
    def filters(self):
        return {"fleet_servers": fleet_servers}
