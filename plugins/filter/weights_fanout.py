# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
name: weights_fanout
version_added: 0.2.2
short_description: A host's place in the binary tree over which a weights staging fans out
description:
  - The hosts of a fan-out group feed each other the files they have, so that the Hub or its mirror serves each file
    once per group. Numbered in the group's order from 0, host i fetches from host (i - 1) // 2 and serves hosts
    2i + 1 and 2i + 2; host 0 fetches from the endpoint. A host that is not in the group stages alone.
  - A peer server listens on its host's C(sglang_weights_peer_address), else the address the fleet reaches the host at
    (P(gpufleet.sglang.fleet_host#filter)).
positional: _input, hosts, hostvars, groups, settings, port
options:
  _input:
    description: The host's inventory name.
    type: str
    required: true
  hosts:
    description: The fan-out group's hosts in this run, in play order.
    type: list
    elements: str
    required: true
  hostvars:
    description: C(hostvars).
    type: dict
    required: true
  groups:
    description: C(groups).
    type: dict
    required: true
  settings:
    description: The shared settings' values, as P(gpufleet.sglang.fleet_host#filter) takes them.
    type: dict
    required: true
  port:
    description: The port the peer servers listen on (C(sglang_weights_peer_port)).
    type: int
    required: true
"""

EXAMPLES = r"""
fanout: >-
  {{ inventory_hostname | gpufleet.sglang.weights_fanout(ansible_play_hosts, hostvars, groups,
                                                         sglang_fleet_settings, sglang_weights_peer_port) }}
# On the third of five hosts: {'hosts': [...], 'parent': 'gpu-01', 'parent_url': 'http://10.0.0.11:18431',
#                              'children': [], 'address': '10.0.0.13'}
"""

RETURN = r"""
_value:
  description: The host's place in the tree.
  type: dict
  contains:
    hosts:
      description: The hosts of the tree it is in (the group, or the host alone when it is not in the group).
      type: list
      elements: str
    parent:
      description: The host it fetches from; empty for the host that fetches from the endpoint.
      type: str
    parent_url:
      description: The URL of its parent's peer server; empty for the host that fetches from the endpoint.
      type: str
    children:
      description: The hosts that fetch from it (none, one or two).
      type: list
      elements: str
    address:
      description: The address its own peer server listens on.
      type: str
"""

from ansible_collections.gpufleet.sglang.plugins.module_utils import _fleet_hosts


def weights_fanout(host, hosts, hostvars, groups, settings, port):
    return _fleet_hosts.weights_fanout(groups, hostvars, host, hosts, settings, port)


class FilterModule(object):
    def filters(self):
        return {"weights_fanout": weights_fanout}
