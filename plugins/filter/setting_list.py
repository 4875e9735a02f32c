# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
name: setting_list
version_added: 0.2.1
short_description: A list setting as a list, in whatever form it was given
description:
  - A role's argument spec accepts a list option as a list or as a comma-separated string (what
    C(-e name=a,b) and AWX surveys pass), but leaves the variable as it was given. This filter applies the
    spec's own conversion (Ansible's C(check_type_list)), so that the roles read the list it validated.
  - An empty string is the empty list (C(-e name=)), where the spec's conversion would make it a list of one
    empty string.
positional: _input
options:
  _input:
    description: The setting's value.
    type: raw
    required: true
"""

EXAMPLES = r"""
packages: "{{ 'nvidia-fabricmanager,nvlsm' | gpufleet.sglang.setting_list }}"
# => ['nvidia-fabricmanager', 'nvlsm']
"""

RETURN = r"""
_value:
  description: The list.
  type: list
"""

from ansible.module_utils.common.validation import check_type_list


def setting_list(value):
    return [] if value == "" else check_type_list(value)


class FilterModule(object):
    def filters(self):
        return {"setting_list": setting_list}
