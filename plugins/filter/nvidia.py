# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters the cuda_driver role uses to name NVIDIA's repository and driver packages for a host."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.sglang.plugins.module_utils.nvidia_driver import driver_packages, repository_path


def cuda_repository_path(distribution, version, architecture):
    try:
        return repository_path(distribution, version, architecture)
    except ValueError as exc:
        raise AnsibleFilterError(str(exc))


def nvidia_driver_packages(branch, repository, flavor="open", profile="compute"):
    return driver_packages(repository, branch, flavor, profile)


class FilterModule(object):
    def filters(self):
        return {"cuda_repository_path": cuda_repository_path, "nvidia_driver_packages": nvidia_driver_packages}
