# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The sglang_pip_args filter; its documentation is in sglang_pip_args.yml beside this file."""

from __future__ import annotations

from ansible_collections.gpufleet.sglang.plugins.module_utils._sglang_install import pip_args


class FilterModule(object):
    def filters(self):
        return {"sglang_pip_args": pip_args}
