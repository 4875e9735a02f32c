# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
name: fleet_plan
version_added: 0.2.0
short_description: The batches of a rolling change, with multi-node groups kept whole
description:
  - Plans which hosts a rolling change (a restart, a driver change, a draft upgrade) takes, in which batches.
    The batched play runs C(hosts) in RV(_value.order) with C(serial) RV(_value.sizes), so that the plan
    printed and the batches run are the same.
  - A multi-node tensor-parallel server (the hosts of the inventory group its hosts name in C(sglang_tp_group))
    is one unit; its hosts are in the same batch, and a batch size counts units, not hosts.
  - Units with a host that serves nothing now (not running, or out of the routers since an earlier run) go
    first, all in one batch, since they are down already. The others go O(batch) units at a time.
  - Fails, saying where to set it, when a host sets its own C(sglang_batch) that differs from O(batch), or when
    O(batch) is not a count, a percentage or a list of them.
positional: _input, hostvars, batch, groups
options:
  _input:
    description: The hosts of the play, in play order.
    type: list
    elements: str
    required: true
  hostvars:
    description:
      - C(hostvars), for each host's C(sglang_tp_group) (none when it is not set) and C(sglang_batch) (checked against
        O(batch) when the host sets one).
    type: dict
    required: true
  batch:
    description:
      - The batch size (C(sglang_batch) as the planning host resolves it), a count of units (V(1)), a percentage of the
        fleet's units (V(25%), never less than one), or a list of them whose last item repeats.
    type: raw
    required: true
  groups:
    description: The inventory's groups (C(groups)), for the hosts of each tensor-parallel group in rank order.
    type: dict
    required: true
  owes:
    description:
      - "What each host owes, C({host: [reason, ...]}); a host with no reason owes nothing (unless its group does)."
      - Required unless O(states) is given.
    type: dict
  serving:
    description: "Whether each host serves now, C({host: bool}); a missing host counts as serving."
    type: dict
    default: {}
  states:
    description:
      - What each host owes, C({host => {owes, serving, ready}}), as the role that found it says it, read instead of
        O(owes) and O(serving). A host of O(_input) without one is left out of the plan (it failed before the plan).
        A host whose C(ready) is false (a driver waiting for its reboot) is in RV(_value.not_ready).
    type: dict
"""

EXAMPLES = r"""
plan: >-
  {{ ['a', 'b', 'c'] | gpufleet.sglang.fleet_plan(hostvars, 1, groups, owes={'a': ['settings'], 'b': ['settings'], 'c': []}) }}
# => order [a, b], sizes [1, 1], text "[a] -> [b]"
# What each host of the play owes, as a role of the play found it ({owes, serving, ready}, here launch's register).
plan_from_states: >-
  {{ ansible_play_hosts | gpufleet.sglang.fleet_plan(hostvars, sglang_batch, groups,
     states=dict(ansible_play_hosts | zip(ansible_play_hosts | map('extract', hostvars, 'sglang_launch_state')))) }}
"""

RETURN = r"""
_value:
  description: The plan.
  type: dict
  contains:
    batches:
      description: The batches, each a list of hosts.
      type: list
      elements: list
    order:
      description: The hosts of every batch, in order (the batched play's C(hosts)).
      type: list
      elements: str
    sizes:
      description: The number of hosts of each batch (the batched play's C(serial)).
      type: list
      elements: int
    idle:
      description: The hosts of the first batch that serve nothing now.
      type: list
      elements: str
    owes:
      description: What each host of the plan owes.
      type: dict
    units:
      description: The number of units (servers) in the fleet.
      type: int
    batch:
      description: The batch size the plan used.
      type: raw
    text:
      description: The batches for people, C([a, b] -> [c]).
      type: str
    not_ready:
      description: With O(states), the hosts whose state says C(ready) false; otherwise empty.
      type: list
      elements: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.sglang.plugins.module_utils import _fleet_batches


def _setting(variables, name):
    return variables[name] if name in variables else None


def fleet_plan(hosts, hostvars, batch, groups, owes=None, serving=None, states=None):
    hosts = list(hosts)
    if states is not None:
        hosts = [host for host in hosts if states.get(host) is not None]
        owes = dict((host, states[host]["owes"]) for host in hosts)
        serving = dict((host, states[host]["serving"]) for host in hosts)
    elif owes is None:
        raise AnsibleFilterError("fleet_plan needs owes, or states: what each host owes")
    tp_groups = dict((host, _setting(hostvars[host], "sglang_tp_group") or "") for host in hosts)
    host_batches = dict((host, value) for host, value in
                        ((host, _setting(hostvars[host], "sglang_batch")) for host in hosts) if value is not None)
    try:
        plan = _fleet_batches.plan(hosts, dict(owes), dict(serving or {}), batch, tp_groups, dict(groups),
                                   host_batches)
    except ValueError as exc:
        raise AnsibleFilterError(str(exc))
    plan["not_ready"] = [host for host in hosts if states is not None and states[host].get("ready", True) is False]
    return plan


class FilterModule(object):
    def filters(self):
        return {"fleet_plan": fleet_plan}
