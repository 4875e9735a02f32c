# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment(object):
    """The attributes of a module that only reads: the same in check mode, nothing to diff."""

    DOCUMENTATION = r"""
attributes:
  check_mode:
    description: Can run in check mode and return changed status prediction without modifying the target.
    support: full
    details: The module only reads; it behaves the same in check mode.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check mode), when in diff mode.
    support: none
"""
