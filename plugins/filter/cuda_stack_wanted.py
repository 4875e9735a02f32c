# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
name: cuda_stack_wanted
version_added: 0.2.2
short_description: What gpufleet.sglang.cuda_driver's settings ask of a host
description:
  - From the role's settings and the host's facts, names NVIDIA's repository (its URI, its signing key and the
    apt source that names both), the packages of the driver stack, its daemons, and the older sources of the
    same repository to remove.
  - A key given by URL is fetched to a file named by the URL's SHA-256, which the source's Signed-By names, so
    that a new key URL is a new file and a new source. A key given as text, or as a path on the host, is written
    into the source.
  - Fails, saying what to set, for a distribution NVIDIA publishes no repository for.
positional: _input, facts, fabric_manager_recommended
options:
  _input:
    description:
      - The role's settings, each named without its C(cuda_) prefix - C(repo_url), C(repo_path), C(repo_key),
        C(driver_branch), C(driver_flavor), C(driver_profile), C(driver_pin), C(driver_packages),
        C(kernel_headers_package), C(fabricmanager), C(fabricmanager_packages), C(dcgm), C(dcgm_package),
        C(toolkit_version).
      - Each is given as its type (C(driver_packages) and C(fabricmanager_packages) lists, C(dcgm) a bool);
        C(fabricmanager) is C(auto) or a boolean.
    type: dict
    required: true
  facts:
    description: The host's facts; C(distribution), C(distribution_version) and C(architecture) are read.
    type: dict
    required: true
  fabric_manager_recommended:
    description:
      - Whether the host's GPUs need fabric manager (NVSwitch systems), as gpufleet.sglang.nvidia_pci_info
        reports it. Needed when C(fabricmanager) is C(auto).
    type: bool
"""

EXAMPLES = r"""
wanted: >-
  {{ {'repo_url': cuda_repo_url, 'repo_path': cuda_repo_path, 'repo_key': cuda_repo_key,
      'driver_branch': cuda_driver_branch, 'driver_flavor': cuda_driver_flavor, 'driver_profile': cuda_driver_profile,
      'driver_pin': cuda_driver_pin, 'driver_packages': cuda_driver_packages | gpufleet.sglang.setting_list,
      'kernel_headers_package': cuda_kernel_headers_package, 'fabricmanager': cuda_fabricmanager,
      'fabricmanager_packages': cuda_fabricmanager_packages | gpufleet.sglang.setting_list,
      'dcgm': cuda_dcgm | bool, 'dcgm_package': cuda_dcgm_package,
      'toolkit_version': cuda_toolkit_version}
     | gpufleet.sglang.cuda_stack_wanted(ansible_facts, cuda_pci.fabric_manager_recommended) }}
# wanted.repo_uri => https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/
# wanted.daemons => [nvidia-persistenced]
"""

RETURN = r"""
_value:
  description: What the settings ask of the host.
  type: dict
  contains:
    repo_uri:
      description: The repository's URI, ending in C(/).
      type: str
    repo_key:
      description: The signing key as given, or its default URL in the repository.
      type: str
    key_file:
      description: Where a key given by URL is kept on the host; empty for a key given as text or path.
      type: str
    signed_by:
      description: What the source's Signed-By names (the key file, a path, or the key's text).
      type: str
    files:
      description:
        - The apt source (C(path), C(mode), C(lines)) and, for a key given by URL, its key file (C(path),
          C(mode), C(owner), C(group)), as gpufleet.sglang.host_state reads files.
      type: list
      elements: dict
    legacy_sources:
      description: The C(.list) sources of the same repository that other installers write, to remove.
      type: list
      elements: str
    driver_packages:
      description: The driver's packages; the first shows whether the branch pin holds.
      type: list
      elements: str
    fabricmanager:
      description: Whether fabric manager is installed and run.
      type: bool
    packages:
      description: Every package of the stack, the driver's among them.
      type: list
      elements: str
    toolkit_package:
      description: The CUDA toolkit's package; empty when no toolkit is asked for.
      type: str
    daemons:
      description: The driver's daemons to enable and start.
      type: list
      elements: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.sglang.plugins.module_utils._nvidia_driver import stack_wanted


def cuda_stack_wanted(settings, facts, fabric_manager_recommended=None):
    try:
        return stack_wanted(settings, facts, fabric_manager_recommended)
    except (KeyError, ValueError) as exc:
        raise AnsibleFilterError("cuda_stack_wanted: %s" % exc)


class FilterModule(object):
    def filters(self):
        return {"cuda_stack_wanted": cuda_stack_wanted}
