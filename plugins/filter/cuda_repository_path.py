# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
name: cuda_repository_path
version_added: 0.1.0
short_description: Where a host's packages live in NVIDIA's CUDA apt repository
description:
  - Gives the repository's C(DISTRIBUTION/ARCHITECTURE) path, such as C(ubuntu2404/x86_64) or C(debian12/sbsa),
    from a host's distribution, version and machine architecture.
  - Fails, saying what to set, for a distribution NVIDIA publishes no repository for
    (supported are Ubuntu 22.04 and 24.04, Debian 12 and 13).
positional: _input, version, architecture
options:
  _input:
    description: The distribution, C(ansible_facts['distribution']).
    type: str
    required: true
  version:
    description: Its version, C(ansible_facts['distribution_version']).
    type: str
    required: true
  architecture:
    description: The machine, C(ansible_facts['architecture']) (C(x86_64) or C(aarch64)).
    type: str
    required: true
"""

EXAMPLES = r"""
path: "{{ 'Ubuntu' | gpufleet.sglang.cuda_repository_path('24.04', 'aarch64') }}"
# => ubuntu2404/sbsa
"""

RETURN = r"""
_value:
  description: The path under the repository URL.
  type: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.sglang.plugins.module_utils._nvidia_driver import repository_path


def cuda_repository_path(distribution, version, architecture):
    try:
        return repository_path(distribution, version, architecture)
    except ValueError as exc:
        raise AnsibleFilterError(str(exc))


class FilterModule(object):
    def filters(self):
        return {"cuda_repository_path": cuda_repository_path}
