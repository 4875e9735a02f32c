# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The sglang_local_url filter; its documentation is in sglang_local_url.yml beside this file."""

from __future__ import annotations

from ansible_collections.gpufleet.sglang.plugins.module_utils._launch_args import local_url


class FilterModule(object):
    def filters(self):
        return {"sglang_local_url": local_url}
