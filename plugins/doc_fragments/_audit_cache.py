# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment(object):
    """The cache_dir and load_format options of the modules that run the EAGLE-3 audit."""

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
  load_format:
    description:
      - The C(--load-format) the servers start with. V(dummy) (random weights, how a fleet is smoke-tested before
        the weights arrive) adds what SGLang's dummy loader probes on the model and then calls on the top-level
        model only (C(post_load_weights) in 0.5.9). A name the wrapper lacks and its inner model has is required,
        since the loader would skip the inner model's step without a word and the first request would fail.
      - Any other value audits what an EAGLE-3 launch needs, the same for every load format.
    type: str
    default: auto
    version_added: 0.2.2
"""
