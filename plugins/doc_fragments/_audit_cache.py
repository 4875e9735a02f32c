# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment(object):
    """The cache_dir option of the modules that run the EAGLE-3 audit."""

    DOCUMENTATION = r"""
options:
  cache_dir:
    description:
      - Where EAGLE-3 audit results are kept (root-owned, mode 0700), each valid while every file the audit read
        is unchanged (inode, size and mtime of each, and of each directory it listed) and keyed by the query and
        the audit's own code, so that a collection upgrade never reads a stale verdict.
      - An entry or directory that another user owns, or that others can write, is ignored.
      - An empty string audits every time and writes nothing. Check mode reads the cache but does not write it.
    type: path
    default: /var/cache/gpufleet-sglang/audit
"""
