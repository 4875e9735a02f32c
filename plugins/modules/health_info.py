#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: health_info
short_description: Ask an SGLang server or an sglang-router whether its /health answers
version_added: 0.2.2
description:
  - Asks C(<url>/health), which SGLang and sglang-router answer without an API key, and returns whether it answered
    200. With O(wait), asks again every O(interval) seconds until it does or O(wait) seconds have passed.
  - A server or router that does not answer, answers another status or cannot be reached is not an error of the
    task; it returns O(ignore:healthy=false) with the reason, and the caller decides. O(must_answer) makes it one.
  - The answer is outside data. Nothing is sent but the request line; a redirect to another origin is refused;
    each answer must come within O(timeout) seconds and is read up to 64 KiB (its body is not used).
author:
  - gpufleet.sglang developers (@gpufleet)
options:
  timeout:
    description: Seconds for each ask, the whole answer included.
    type: int
    default: 10
  wait:
    description: Seconds to keep asking until C(/health) answers 200; V(0) asks once.
    type: int
    default: 0
  interval:
    description: Seconds between two asks.
    type: int
    default: 1
  must_answer:
    description: Fail the task, with the reason, when C(/health) has not answered 200 within O(wait).
    type: bool
    default: false
extends_documentation_fragment:
  - gpufleet.sglang._server
  - gpufleet.sglang._read_only
seealso:
  - module: gpufleet.sglang.server_wait
    description: Waits until a server generates (C(/health_generate)), watching its unit, and returns C(/server_info).
"""

EXAMPLES = r"""
- name: Wait up to 30 seconds for the router to answer
  gpufleet.sglang.health_info:
    url: http://127.0.0.1:30080
    wait: 30
    must_answer: true

- name: Ask whether the server answers
  gpufleet.sglang.health_info:
    url: http://127.0.0.1:30000
  register: health

- name: Show it
  ansible.builtin.debug:
    msg: "{{ 'healthy' if health.healthy else health.error }}"
"""

RETURN = r"""
healthy:
  description: Whether C(/health) answered 200.
  returned: success
  type: bool
  sample: true
status:
  description: The HTTP status of the last answer; V(0) when none came.
  returned: success
  type: int
  sample: 200
error:
  description: Why C(/health) did not answer 200 (the status, or why no answer came); empty when it did.
  returned: success
  type: str
  sample: http://127.0.0.1:30000/health answered HTTP 503
asks:
  description: How many times C(/health) was asked.
  returned: success
  type: int
  sample: 1
"""

import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpufleet.sglang.plugins.module_utils._http import Client
from ansible_collections.gpufleet.sglang.plugins.module_utils._server_health import ask_health


def main():
    module = AnsibleModule(
        argument_spec=dict(
            url=dict(type="str", default="http://127.0.0.1:30000"),
            timeout=dict(type="int", default=10),
            wait=dict(type="int", default=0),
            interval=dict(type="int", default=1),
            must_answer=dict(type="bool", default=False),
        ),
        supports_check_mode=True,
    )
    params = module.params
    client = Client(params["url"], timeout=max(params["timeout"], 1), cross_origin="refuse")
    status, error, asks = ask_health(client, time.monotonic, time.sleep, max(params["wait"], 0),
                                     max(params["interval"], 1))
    result = dict(changed=False, healthy=status == 200, status=status, error=error, asks=asks)
    if params["must_answer"] and status != 200:
        module.fail_json(msg="%s did not answer 200 within %d s: %s" % (params["url"] + "/health", params["wait"],
                                                                        error), **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
