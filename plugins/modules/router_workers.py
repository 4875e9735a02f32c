#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: router_workers
short_description: Register SGLang workers with an sglang-router, or take them out
version_added: 0.2.0
description:
  - Brings the workers of one sglang-router (sgl-model-gateway 0.3.2) to the wanted state through its worker API
    (C(GET /workers), C(POST /workers), C(DELETE /workers/{id})), then polls the list until the router's job queue
    has carried the change out.
  - Workers are matched by their URL exactly as registered (the router keeps C(http://h:p) and C(http://h:p/) apart).
  - Fails with what the router has registered when it cannot be reached, refuses the key, or, with
    O(require_registered), does not know a worker; in check mode too, so that a drain can be checked on every
    router before any server stops.
  - The router is outside data. A redirect to another origin is refused (the key is never sent there); each call
    has one deadline for its connection and its whole answer (10 seconds, or O(timeout) when shorter); an answer
    is read up to 4 MiB and checked against the shape of the worker API before it is used; what is not fails the
    task naming the URL and what was wrong.
author:
  - gpufleet.sglang developers (@gpufleet)
options:
  url:
    description: The router's base URL, as this host reaches it.
    type: str
    required: true
  api_key:
    description: The bearer token of the router's worker API (a control-plane key, or without one its API key).
    type: str
  workers:
    description: The worker URLs, exactly as the router registers them.
    type: list
    elements: str
    required: true
  state:
    description: Whether the workers are registered (V(present)) or not (V(absent)).
    type: str
    choices: [present, absent]
    default: present
  exclusive:
    description: With V(present), also remove every registered worker that is not in O(workers).
    type: bool
    default: false
  require_registered:
    description: With V(absent), fail before any change when a worker of O(workers) is not registered.
    type: bool
    default: false
  worker_api_key:
    description: The workers' own API key, given to the router with each added worker so that it can read their
      C(/server_info) and C(/model_info).
    type: str
  wait_healthy:
    description: With V(present), wait until the router lists every worker of O(workers) as healthy.
    type: bool
    default: false
  timeout:
    description: Seconds to wait for the router to carry the change out (and for the health check); also bounds
      each call.
    type: int
    default: 60
attributes:
  check_mode:
    description: Can run in check mode and return changed status prediction without modifying the target.
    support: full
    details: Reads the router's workers and reports what would change; fails as a real run would.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check mode), when in diff mode.
    support: full
    details: The registered worker URLs before and after.
"""

EXAMPLES = r"""
- name: Register the fleet with the router, and nothing else
  gpufleet.sglang.router_workers:
    url: http://127.0.0.1:30080
    api_key: "{{ vault_router_admin_key }}"
    workers: [http://10.0.0.11:30000, http://10.0.0.12:30000]
    worker_api_key: "{{ vault_sglang_api_key }}"
    exclusive: true

- name: Take this server out of the router (it must be registered)
  gpufleet.sglang.router_workers:
    url: http://10.0.0.2:30080
    api_key: "{{ vault_router_admin_key }}"
    workers: [http://10.0.0.11:30000]
    state: absent
    require_registered: true
"""

RETURN = r"""
added:
  description: The worker URLs added (or that would be added).
  returned: always
  type: list
  elements: str
removed:
  description: The worker URLs removed (or that would be removed).
  returned: always
  type: list
  elements: str
workers:
  description: The router's workers after the change (before it, in check mode).
  returned: success
  type: list
  elements: dict
  sample: [{id: 0b9c..., url: "http://10.0.0.11:30000", is_healthy: true, model_id: kimi-k2.5}]
"""

import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpufleet.sglang.plugins.module_utils._router_workers import (
    CALL_TIMEOUT,
    RouterClient,
    RouterError,
    reconcile,
)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            url=dict(type="str", required=True),
            api_key=dict(type="str", no_log=True),
            workers=dict(type="list", elements="str", required=True),
            state=dict(type="str", choices=["present", "absent"], default="present"),
            exclusive=dict(type="bool", default=False),
            require_registered=dict(type="bool", default=False),
            worker_api_key=dict(type="str", no_log=True),
            wait_healthy=dict(type="bool", default=False),
            timeout=dict(type="int", default=60),
        ),
        supports_check_mode=True,
    )
    params = module.params
    try:
        client = RouterClient(params["url"], params["api_key"], timeout=min(CALL_TIMEOUT, params["timeout"]))
        result = reconcile(client, params["workers"], state=params["state"], exclusive=params["exclusive"],
                           require_registered=params["require_registered"], worker_api_key=params["worker_api_key"],
                           wait_healthy=params["wait_healthy"], check_mode=module.check_mode,
                           timeout=params["timeout"], clock=time.monotonic, sleep=time.sleep)
    except RouterError as exc:
        module.fail_json(msg=str(exc))
    before = sorted(worker["url"] for worker in result.pop("before"))
    after = sorted(set(before) - set(result["removed"]) | set(result["added"]))
    if module._diff:
        result["diff"] = {"before": "\n".join(before) + "\n", "after": "\n".join(after) + "\n"}
    module.exit_json(**result)


if __name__ == "__main__":
    main()
