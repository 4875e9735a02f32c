#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: acceptance_gate
short_description: Gate a draft on the acceptance length an SGLang server measures over short generations
version_added: 0.2.2
description:
  - Sends O(requests) short generations to the server's C(/generate) as one request (SGLang decodes a list of
    texts as one batch, so the gate takes about as long as one generation), checks that every prompt was answered,
    then reads the average acceptance length of speculative decoding from C(/server_info).
  - Fails when that length is below O(min_accept_length) or, when O(previous_accept_length) is given, more than
    O(max_regression) below it. A server that reports no acceptance length counts as 0.
  - The server's answers are outside data. A redirect to another origin is refused (the API key is never sent
    there); each answer must come within O(timeout) seconds, C(/generate)'s at most 256 KiB per prompt and a JSON
    list, C(/server_info)'s at most 4 MiB and a JSON object; what does not fails the task naming the URL.
author:
  - gpufleet.sglang developers (@gpufleet)
options:
  requests:
    description: How many short generations to send. With V(0), none is sent and only the length is read.
    type: int
    default: 16
  max_new_tokens:
    description: The tokens each generation may produce.
    type: int
    default: 32
  timeout:
    description: Seconds for the batch's answer, and again for C(/server_info)'s.
    type: int
    default: 600
  min_accept_length:
    description: The average acceptance length the draft must reach.
    type: float
    default: 2.0
  previous_accept_length:
    description: The previous draft's average acceptance length, the reference of O(max_regression); none, no comparison.
    type: float
  max_regression:
    description: How far below O(previous_accept_length) the length may fall, as a fraction of it.
    type: float
    default: 0.10
extends_documentation_fragment:
  - gpufleet.sglang._server
  - gpufleet.sglang._server.api_key
  - gpufleet.sglang._read_only
seealso:
  - module: gpufleet.sglang.server_info
    description: Reads the acceptance length alone.
"""

EXAMPLES = r"""
- name: Gate the new draft against the one it replaces
  gpufleet.sglang.acceptance_gate:
    url: http://127.0.0.1:30000
    api_key: "{{ sglang_api_key }}"
    min_accept_length: 2.0
    previous_accept_length: 3.3
  register: gate
"""

RETURN = r"""
accept_length:
  description: The average acceptance length the server measured; C(0.0) when it reports none.
  returned: always
  type: float
  sample: 3.2
answered:
  description: How many of the prompts the server answered.
  returned: always
  type: int
  sample: 16
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpufleet.sglang.plugins.module_utils._http import Client, HttpError
from ansible_collections.gpufleet.sglang.plugins.module_utils._server_health import (
    accept_length,
    gate_failure,
    gate_prompts,
    generate_batch,
    read_server_info,
)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            url=dict(type="str", default="http://127.0.0.1:30000"),
            api_key=dict(type="str", no_log=True),
            requests=dict(type="int", default=16),
            max_new_tokens=dict(type="int", default=32, no_log=False),
            timeout=dict(type="int", default=600),
            min_accept_length=dict(type="float", default=2.0),
            previous_accept_length=dict(type="float"),
            max_regression=dict(type="float", default=0.10),
        ),
        supports_check_mode=True,
    )
    params = module.params
    if params["requests"] < 0 or params["max_new_tokens"] < 1:
        module.fail_json(msg="requests must be 0 or more and max_new_tokens 1 or more (got %d and %d)."
                         % (params["requests"], params["max_new_tokens"]))
    answered = 0
    try:
        client = Client(params["url"], params["api_key"], timeout=params["timeout"], cross_origin="refuse")
        if params["requests"]:
            answered = generate_batch(client, gate_prompts(params["requests"]), params["max_new_tokens"])
    except HttpError as exc:
        module.fail_json(msg="acceptance gate: the batch of %d prompts failed: %s" % (params["requests"], exc),
                         accept_length=0.0, answered=0)
    if answered != params["requests"]:
        module.fail_json(msg="acceptance gate: %s/generate answered %d of the %d prompts sent to it as one batch." % (
            client.base, answered, params["requests"]), accept_length=0.0, answered=answered)
    try:
        measured = accept_length(read_server_info(client)) or 0.0
    except HttpError as exc:
        module.fail_json(msg="acceptance gate: the server's /server_info could not be read: %s" % exc,
                         accept_length=0.0, answered=answered)
    failure = gate_failure(measured, params["requests"], params["min_accept_length"],
                           params["previous_accept_length"], params["max_regression"])
    if failure:
        module.fail_json(msg=failure, accept_length=measured, answered=answered)
    module.exit_json(changed=False, accept_length=measured, answered=answered)


if __name__ == "__main__":
    main()
