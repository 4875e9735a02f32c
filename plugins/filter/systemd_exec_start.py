# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
name: systemd_exec_start
version_added: 0.1.0
short_description: Render an argument list as a systemd ExecStart= value
description:
  - Quotes each argument the way systemd parses ExecStart= (C(%) doubled, double quotes around values with
    whitespace, quotes, backslashes or C($)), keeps C(${NAME}) references to EnvironmentFile= values, and puts
    one flag with its values on each continued line.
positional: _input
options:
  _input:
    description: The command and its arguments.
    type: list
    elements: str
    required: true
"""

EXAMPLES = r"""
# In a unit template: ExecStart={{ argv | gpufleet.sglang.systemd_exec_start }}
exec_start: "{{ ['/opt/sglang/venv/bin/python', '-m', 'sglang.launch_server', '--model-path', 'a b'] | gpufleet.sglang.systemd_exec_start }}"
# => /opt/sglang/venv/bin/python -m sglang.launch_server \\
#        --model-path "a b"
"""

RETURN = r"""
_value:
  description: The ExecStart= value.
  type: str
"""

from ansible_collections.gpufleet.sglang.plugins.module_utils._launch_args import exec_start


class FilterModule(object):
    def filters(self):
        return {"systemd_exec_start": exec_start}
