# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
name: sglang_layout
version_added: 0.2.0
short_description: Where an SGLang instance's unit, settings and records are on a host
description:
  - The one definition of an instance's files, shared with the modules (M(gpufleet.sglang.staged_settings),
    M(gpufleet.sglang.sglang_venv), M(gpufleet.sglang.delegation_patch)) so that the roles never restate it.
positional: _input
options:
  _input:
    description: The instance (C(sglang_instance)).
    type: str
    required: true
"""

EXAMPLES = r"""
unit: "{{ ('kimi-k25' | gpufleet.sglang.sglang_layout).unit }}"
# => sglang-kimi-k25.service
"""

RETURN = r"""
_value:
  description: The instance's names and paths.
  type: dict
  contains:
    instance:
      description: The instance.
      type: str
    unit:
      description: The unit's name, C(sglang-<instance>.service).
      type: str
    unit_path:
      description: The live unit, C(/etc/systemd/system/sglang-<instance>.service).
      type: str
    settings_dir:
      description: C(/etc/sglang), where the live environment and config files are.
      type: str
    env_file:
      description: The live environment file (secrets, root only), C(/etc/sglang/<instance>.env).
      type: str
    config_file:
      description: The live config file SGLang reads with C(--config) (the API keys), C(/etc/sglang/<instance>.yaml).
      type: str
    staged_dir:
      description: Where a run stages the unit and the files before the host's batch swaps them in.
      type: str
    previous_dir:
      description: The rollback point, what was live before the last swap.
      type: str
    restart_record:
      description: The reasons for a restart owed, recorded on the host.
      type: str
    left_record:
      description: The record of the server having left the routers.
      type: str
    unit_globs:
      description: Patterns of every instance's live, staged and previous units.
      type: list
      elements: str
"""

from ansible_collections.gpufleet.sglang.plugins.module_utils._staged_settings import Layout


def sglang_layout(instance):
    return Layout(instance).as_dict()


class FilterModule(object):
    def filters(self):
        return {"sglang_layout": sglang_layout}
