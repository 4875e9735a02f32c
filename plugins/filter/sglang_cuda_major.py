# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
name: sglang_cuda_major
version_added: 0.2.2
short_description: The CUDA major version an SGLang release's pinned torch is built for
description:
  - SGLang pins one torch release, and PyPI's wheel of that torch is built for one CUDA major version. Up to the
    O(last_cuda12) release that is CUDA 12; every later one is CUDA 13.
  - A post release (C(0.5.10.post1)) and a pre-release (C(0.5.11rc1)) are on the lane of the release they
    belong to, so the comparison is on the release segment alone.
positional: _input, last_cuda12
options:
  _input:
    description: An exact SGLang release, such as C(0.5.9) or C(0.5.10.post1).
    type: str
    required: true
  last_cuda12:
    description: The last release whose torch is a CUDA 12 build.
    type: str
    required: true
"""

EXAMPLES = r"""
lane: "{{ '0.5.10.post1' | gpufleet.sglang.sglang_cuda_major('0.5.10') }}"
# => 12
"""

RETURN = r"""
_value:
  description: 12 or 13.
  type: int
"""

import re

from ansible.errors import AnsibleFilterError

RELEASE = re.compile(r"^([0-9]+(?:\.[0-9]+)*)(?:[a-z]+[0-9]+)?(?:\.post[0-9]+)?$")


def _release(version):
    match = RELEASE.match(str(version))
    if not match:
        raise AnsibleFilterError("sglang_cuda_major: %r is not an exact release such as 0.5.9" % (version,))
    parts = [int(part) for part in match.group(1).split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()  # 0.5 and 0.5.0 are one release
    return parts


def sglang_cuda_major(version, last_cuda12):
    return 12 if _release(version) <= _release(last_cuda12) else 13


class FilterModule(object):
    def filters(self):
        return {"sglang_cuda_major": sglang_cuda_major}
