# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
name: serial_batches
version_added: 0.1.0
short_description: The batches a play with a given serial value runs a fleet in
description:
  - Splits hosts into the batches that Ansible's C(serial) play keyword makes of them, so that a plan printed
    before a rolling change shows the batches the change will really take.
  - A count (V(1)), a percentage of the fleet (V(25%), never less than one host), or a list of them whose last
    item repeats; V(0) or an empty list is one batch of every host.
  - Fails, saying what to write, for any other value.
positional: _input, serial
options:
  _input:
    description: The hosts, in play order (C(ansible_play_hosts_all)).
    type: list
    elements: str
    required: true
  serial:
    description: The play's serial value (the collection's C(sglang_batch) setting).
    type: raw
    default: 1
"""

EXAMPLES = r"""
plan: "{{ ['a', 'b', 'c', 'd', 'e'] | gpufleet.sglang.serial_batches('40%') }}"
# => [['a', 'b'], ['c', 'd'], ['e']]
canary_first: "{{ ['a', 'b', 'c', 'd', 'e'] | gpufleet.sglang.serial_batches([1, '50%']) }}"
# => [['a'], ['b', 'c'], ['d', 'e']]
"""

RETURN = r"""
_value:
  description: The batches, each a list of hosts.
  type: list
  elements: list
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.sglang.plugins.module_utils import _fleet_batches


def serial_batches(hosts, serial=1):
    try:
        return _fleet_batches.serial_batches(hosts, serial)
    except ValueError as exc:
        raise AnsibleFilterError(str(exc))


class FilterModule(object):
    def filters(self):
        return {"serial_batches": serial_batches}
