# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cuda_repository_path filter; its documentation is in cuda_repository_path.yml beside this file."""

from __future__ import annotations

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
