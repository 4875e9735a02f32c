# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters the launch role uses to render SGLang's command line into a systemd unit."""

from __future__ import annotations

from ansible_collections.gpufleet.sglang.plugins.module_utils.launch_args import exec_start, flags, local_url


class FilterModule(object):
    def filters(self):
        return {"sglang_flags": flags, "systemd_exec_start": exec_start, "sglang_local_url": local_url}
