#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: server_drain
short_description: Wait until an SGLang server has no request running or queued
version_added: 0.2.2
description:
  - Polls the server's C(/metrics) until its scheduler gauges C(sglang:num_running_reqs) and
    C(sglang:num_queue_reqs), summed over its ranks, are 0. Run after the server left every router, so that
    no new request arrives, and before it stops.
  - A server that serves no C(/metrics) (started without C(--enable-metrics)) answers 404; the module then
    returns O(ignore:metrics=false) at once, and the caller decides (the lifecycle fails the host).
  - The server's answers are outside data. A redirect to another origin is refused; each answer must come within
    30 seconds, at most 16 MiB; what does not fails the task naming the URL.
author:
  - gpufleet.sglang developers (@gpufleet)
options:
  timeout:
    description: Seconds to wait for the requests in flight to finish; still some after that fails the task.
    type: int
    default: 120
  interval:
    description: Seconds between two reads of C(/metrics).
    type: int
    default: 2
extends_documentation_fragment:
  - gpufleet.sglang._server
  - gpufleet.sglang._read_only
"""

EXAMPLES = r"""
- name: Let the requests in flight finish
  gpufleet.sglang.server_drain:
    url: http://127.0.0.1:30000
    timeout: 300
  register: drained

- name: Fail when the server serves no metrics to wait on
  ansible.builtin.assert:
    that: drained.metrics
"""

RETURN = r"""
metrics:
  description: Whether the server serves C(/metrics); without them nothing was waited for.
  returned: success
  type: bool
  sample: true
waited:
  description: Seconds until no request was in flight.
  returned: success
  type: float
  sample: 14.2
polls:
  description: How many times C(/metrics) was read.
  returned: success
  type: int
  sample: 8
samples:
  description:
    - The gauge samples the last read found (one per gauge and rank). A server whose C(/metrics) carries neither
      gauge counts as drained with V(0) here.
  returned: success
  type: int
  sample: 2
"""

import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpufleet.sglang.plugins.module_utils._http import Client, HttpError
from ansible_collections.gpufleet.sglang.plugins.module_utils._server_health import wait_drained


def main():
    module = AnsibleModule(
        argument_spec=dict(
            url=dict(type="str", default="http://127.0.0.1:30000"),
            timeout=dict(type="int", default=120),
            interval=dict(type="int", default=2),
        ),
        supports_check_mode=True,
    )
    params = module.params
    try:
        drained = wait_drained(Client(params["url"], timeout=30, cross_origin="refuse"), time.monotonic, time.sleep,
                               params["timeout"], max(params["interval"], 1))
    except HttpError as exc:
        module.fail_json(msg="The requests in flight could not be waited for: %s" % exc)
    if drained is None:
        module.exit_json(changed=False, metrics=False, waited=0.0, polls=1, samples=0)
    module.exit_json(changed=False, metrics=True, waited=round(drained[0], 1), polls=drained[1], samples=drained[2])


if __name__ == "__main__":
    main()
