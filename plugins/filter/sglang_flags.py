# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
name: sglang_flags
version_added: 0.1.0
short_description: Turn a mapping of SGLang options into command-line flags
description:
  - Keys become C(--key) (underscores turn into dashes); C(true) gives a bare flag, C(false), null and
    empty strings leave the flag out, lists give several values after one flag.
positional: _input
options:
  _input:
    description: "The options, for example C({tp-size: 8, trust-remote-code: true})."
    type: dict
    required: true
"""

EXAMPLES = r"""
flags: "{{ {'tp-size': 8, 'trust-remote-code': true, 'enable-metrics': false} | gpufleet.sglang.sglang_flags }}"
# => ['--tp-size', '8', '--trust-remote-code']
"""

RETURN = r"""
_value:
  description: The flags and their values, as strings.
  type: list
  elements: str
"""

from ansible_collections.gpufleet.sglang.plugins.module_utils._launch_args import flags


class FilterModule(object):
    def filters(self):
        return {"sglang_flags": flags}
