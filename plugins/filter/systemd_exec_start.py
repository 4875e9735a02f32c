# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The systemd_exec_start filter; its documentation is in systemd_exec_start.yml beside this file."""

from __future__ import annotations

from ansible_collections.gpufleet.sglang.plugins.module_utils._launch_args import exec_start


class FilterModule(object):
    def filters(self):
        return {"systemd_exec_start": exec_start}
