# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The serial_batches filter; its documentation is in serial_batches.yml beside this file."""

from __future__ import annotations

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
