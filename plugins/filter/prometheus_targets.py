# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
name: prometheus_targets
version_added: 0.2.0
short_description: Prometheus file-based service discovery targets for the fleet, from the inventory
description:
  - Every SGLang server of C(sglang_servers) (rank 0 of a multi-node group, the only one serving HTTP), every
    sglang-router of C(sglang_routers) (its exporter), with O(nodes) each server host's node exporter and with
    O(dcgm) its DCGM exporter; each
    entry with the labels C(host), C(instance), and for servers C(sglang_instance), C(tp_group), C(sglang_version),
    C(draft), C(speculative) and C(worker_url) (the URL the routers register, which their C(smg_worker_health)
    series carry as C(worker)).
  - A host's own variables win over O(defaults). A server or exporter that listens on loopback on a host other
    than O(scraper) is listed in C(problems), with what to set.
positional: _input, hostvars, defaults
options:
  _input:
    description: The inventory's C(groups).
    type: dict
    required: true
  hostvars:
    description: C(hostvars).
    type: dict
    required: true
  defaults:
    description: The shared settings' values for what a host does not set.
    type: dict
    required: true
  scraper:
    description: The host Prometheus runs on.
    type: str
  dcgm:
    description: Add a DCGM exporter target for each server host.
    type: bool
    default: false
  dcgm_port:
    description: The DCGM exporter's port.
    type: int
    default: 9400
  nodes:
    description: Add a node exporter target for each server host.
    type: bool
    default: false
    version_added: 0.2.1
  node_port:
    description: The node exporter's port.
    type: int
    default: 9100
    version_added: 0.2.1
"""

EXAMPLES = r"""
targets: "{{ groups | gpufleet.sglang.prometheus_targets(hostvars, {'sglang_port': 30000}, scraper=inventory_hostname) }}"
"""

RETURN = r"""
_value:
  description: C({servers, routers, nodes, gpus}), each a list of C({targets, labels}), and C(problems), a list of messages.
  type: dict
"""

from ansible_collections.gpufleet.sglang.plugins.module_utils import _prometheus_targets


def prometheus_targets(groups, hostvars, defaults, scraper=None, dcgm=False, dcgm_port=9400, nodes=False, node_port=9100):
    return _prometheus_targets.targets(groups, hostvars, defaults, scraper, dcgm, dcgm_port, nodes, node_port)


class FilterModule(object):
    def filters(self):
        return {"prometheus_targets": prometheus_targets}
