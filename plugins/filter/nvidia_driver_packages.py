# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
name: nvidia_driver_packages
version_added: 0.1.0
short_description: The packages that install an NVIDIA driver branch from NVIDIA's CUDA repository
description:
  - Names the driver packages for a repository (C(debian12), C(ubuntu2404)...), a branch, a kernel module
    flavour and an install profile, following NVIDIA's naming (Ubuntu names carry the branch up to 580 and
    drop it from 590 on; Debian names never carry it).
  - The first package is the one whose candidate version shows whether the branch pin holds.
positional: _input, repository, flavor, profile
options:
  _input:
    description: The driver branch, such as C(580).
    type: str
    required: true
  repository:
    description: The repository's distribution part, such as C(debian12) or C(ubuntu2404).
    type: str
    required: true
  flavor:
    description: The kernel modules, C(open) or C(proprietary).
    type: str
    default: open
  profile:
    description: C(compute) (headless) or C(full) (desktop and compute).
    type: str
    default: compute
"""

EXAMPLES = r"""
packages: "{{ '580' | gpufleet.sglang.nvidia_driver_packages('ubuntu2404') }}"
# => [libnvidia-compute-580, nvidia-dkms-580-open, nvidia-utils-580, nvidia-compute-utils-580]
"""

RETURN = r"""
_value:
  description: The package names.
  type: list
  elements: str
"""

from ansible_collections.gpufleet.sglang.plugins.module_utils._nvidia_driver import driver_packages


def nvidia_driver_packages(branch, repository, flavor="open", profile="compute"):
    return driver_packages(repository, branch, flavor, profile)


class FilterModule(object):
    def filters(self):
        return {"nvidia_driver_packages": nvidia_driver_packages}
