# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
name: sglang_pip_args
version_added: 0.1.0
short_description: The pip arguments that say where SGLang is installed from
description:
  - A wheelhouse on the host installs with C(--no-index --find-links); otherwise the main index
    (C(--index-url)), the further indexes and the PyTorch lane (C(--extra-index-url)) are searched in that
    order. Further arguments come last, as given.
positional: _input, index_url, extra_index_urls, torch_index_url, extra_args
options:
  _input:
    description: The wheelhouse directory on the host; empty when installing from indexes.
    type: str
    required: true
  index_url:
    description: The main package index; empty for pip's default.
    type: str
    default: ""
  extra_index_urls:
    description: Further package indexes.
    type: list
    elements: str
    default: []
  torch_index_url:
    description: The PyTorch wheel index of the CUDA lane; empty for none.
    type: str
    default: ""
  extra_args:
    description: Further pip arguments.
    type: list
    elements: str
    default: []
"""

EXAMPLES = r"""
args: "{{ '' | gpufleet.sglang.sglang_pip_args('', [], 'https://download.pytorch.org/whl/cu130') }}"
# => ['--extra-index-url', 'https://download.pytorch.org/whl/cu130']
"""

RETURN = r"""
_value:
  description: The pip arguments.
  type: list
  elements: str
"""

from ansible_collections.gpufleet.sglang.plugins.module_utils._sglang_install import pip_args


class FilterModule(object):
    def filters(self):
        return {"sglang_pip_args": pip_args}
