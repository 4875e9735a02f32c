# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
name: sglang_local_url
version_added: 0.1.0
short_description: The URL at which a server's own host reaches it
description:
  - Builds C(http://HOST:PORT) from the address the server listens on. A wildcard bind (C(0.0.0.0), C(::)
    or empty) is reached on C(127.0.0.1); an IPv6 address is put in brackets.
positional: _input, port
options:
  _input:
    description: The address the server listens on (C(sglang_host)).
    type: str
    required: true
  port:
    description: The port it listens on.
    type: int
    required: true
"""

EXAMPLES = r"""
url: "{{ '0.0.0.0' | gpufleet.sglang.sglang_local_url(30000) }}"
# => http://127.0.0.1:30000
"""

RETURN = r"""
_value:
  description: The base URL.
  type: str
"""

from ansible_collections.gpufleet.sglang.plugins.module_utils._launch_args import local_url


class FilterModule(object):
    def filters(self):
        return {"sglang_local_url": local_url}
