# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
name: setting_dict
version_added: 0.2.2
short_description: A dict setting as a dict, in whatever form it was given
description:
  - A role's argument spec accepts a dict option as a dict, as a JSON object in a string or as C(k1=v1 k2=v2)
    (what C(-e name=value) and AWX surveys pass), but leaves the variable as it was given. This filter applies
    the spec's own conversion (Ansible's C(check_type_dict)), so that the roles read the dict it validated.
  - An empty string is the empty dict (C(-e name=)).
positional: _input
options:
  _input:
    description: The setting's value.
    type: raw
    required: true
"""

EXAMPLES = r"""
args: "{{ '{\"load-format\": \"dummy\"}' | gpufleet.sglang.setting_dict }}"
# => {'load-format': 'dummy'}
"""

RETURN = r"""
_value:
  description: The dict.
  type: dict
"""

from ansible.module_utils.common.validation import check_type_dict


def setting_dict(value):
    return {} if value == "" else check_type_dict(value)


class FilterModule(object):
    def filters(self):
        return {"setting_dict": setting_dict}
