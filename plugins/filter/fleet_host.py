# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
name: fleet_host
version_added: 0.2.1
short_description: What an SGLang server host is to the fleet - its server's hosts, rank 0, worker URL, metrics address
description:
  - The one definition, used by every role, of what other hosts need to know of a server host. The hosts of its server
    are the hosts of its C(sglang_tp_group) in rank order (the inventory group's order), or the host alone. Rank 0 is the
    first of them; it serves HTTP, is the routers' worker and is what every rank of the group is gated on.
  - The worker URL is the host's C(sglang_router_worker_url), or C(http://<ansible_host>:<sglang_port>) when it does not
    set one; SGLang's C(/metrics) listen on C(sglang_host) at C(sglang_port).
  - Each value is the host's own variable where it has one, else O(settings)' (a role's defaults are not among another
    host's variables).
positional: _input, hostvars, groups, settings
options:
  _input:
    description: The host's inventory name.
    type: str
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
    description: >-
      The shared settings' values (C(sglang_port), C(sglang_host), C(sglang_tp_group), C(sglang_router_worker_url),
      C(sglang_weights_peer_address)).
    type: dict
    required: true
"""

EXAMPLES = r"""
rank0: "{{ (inventory_hostname | gpufleet.sglang.fleet_host(hostvars, groups, {'sglang_port': 30000})).rank0 }}"
"""

RETURN = r"""
_value:
  description: The host as the fleet sees it.
  type: dict
  contains:
    host:
      description: The host.
      type: str
    hosts:
      description: The hosts of its server, rank 0 first.
      type: list
      elements: str
    rank0:
      description: Its server's rank 0.
      type: str
    is_rank0:
      description: Whether it is rank 0.
      type: bool
    tp_group:
      description: Its C(sglang_tp_group); empty for a one-host server.
      type: str
    worker_url:
      description: The URL the routers register its server under.
      type: str
    address:
      description: Where other hosts reach it - its C(ansible_host), else its name.
      type: str
    listen:
      description: The address its server listens on (C(sglang_host)).
      type: str
    port:
      description: The port its server listens on (C(sglang_port)).
      type: int
    weights_peer:
      description: >-
        The address its weights peer server listens on and the hosts below it in a fan-out connect to
        (C(sglang_weights_peer_address), else RV(_value.address)).
      type: str
"""

from ansible_collections.gpufleet.sglang.plugins.module_utils import _fleet_hosts


def fleet_host(host, hostvars, groups, settings):
    return _fleet_hosts.fleet_host(groups, hostvars, host, settings)


class FilterModule(object):
    def filters(self):
        return {"fleet_host": fleet_host}
