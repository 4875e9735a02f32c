# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The nvidia_driver_packages filter; its documentation is in nvidia_driver_packages.yml beside this file."""

from __future__ import annotations

from ansible_collections.gpufleet.sglang.plugins.module_utils._nvidia_driver import driver_packages


def nvidia_driver_packages(branch, repository, flavor="open", profile="compute"):
    return driver_packages(repository, branch, flavor, profile)


class FilterModule(object):
    def filters(self):
        return {"nvidia_driver_packages": nvidia_driver_packages}
