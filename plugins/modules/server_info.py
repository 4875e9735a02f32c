#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: server_info
short_description: Read what an SGLang server says it runs, and the acceptance length it measured
version_added: 0.2.2
description:
  - Reads the server's C(/server_info) once and returns it, with the two values the collection's gates and status
    read from it, the average acceptance length of its speculative decoding and the draft it serves.
  - The server's answer is outside data. A redirect to another origin is refused (the API key is never sent
    there); the whole answer must come within O(timeout) seconds, at most 4 MiB, as a JSON object; what does not
    fails the task naming the URL.
  - The API key is masked wherever it appears in what the module returns (SGLang's C(/server_info) lists the
    server's arguments, its key among them).
author:
  - gpufleet.sglang developers (@gpufleet)
options:
  timeout:
    description: Seconds for the whole read, redirects included.
    type: int
    default: 30
extends_documentation_fragment:
  - gpufleet.sglang._server
  - gpufleet.sglang._server.api_key
  - gpufleet.sglang._read_only
seealso:
  - module: gpufleet.sglang.server_wait
    description: Waits until the server is healthy, then returns the same C(/server_info).
"""

EXAMPLES = r"""
- name: Read the acceptance length the server measured
  gpufleet.sglang.server_info:
    url: http://127.0.0.1:30000
    api_key: "{{ sglang_api_key }}"
  register: served

- name: Show it
  ansible.builtin.debug:
    msg: "{{ served.draft or 'no draft' }}: {{ served.accept_length }}"
"""

RETURN = r"""
server_info:
  description: The server's C(/server_info).
  returned: success
  type: dict
  sample: {speculative_algorithm: EAGLE3, speculative_draft_model_path: /srv/models/kimi-k25-eagle3, version: 0.5.9}
accept_length:
  description:
    - The average acceptance length the server measured (its first data-parallel rank's C(internal_states)).
    - C(null) when it reports none (no speculative decoding, or nothing decoded since it started).
  returned: success
  type: float
  sample: 3.2
draft:
  description: The draft model the server serves (C(speculative_draft_model_path)); empty without one.
  returned: success
  type: str
  sample: /srv/models/kimi-k25-eagle3
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpufleet.sglang.plugins.module_utils._http import Client, HttpError
from ansible_collections.gpufleet.sglang.plugins.module_utils._server_health import accept_length, read_server_info


def main():
    module = AnsibleModule(
        argument_spec=dict(
            url=dict(type="str", default="http://127.0.0.1:30000"),
            api_key=dict(type="str", no_log=True),
            timeout=dict(type="int", default=30),
        ),
        supports_check_mode=True,
    )
    params = module.params
    try:
        info = read_server_info(Client(params["url"], params["api_key"], timeout=params["timeout"],
                                       cross_origin="refuse"))
    except HttpError as exc:
        module.fail_json(msg="The server's /server_info could not be read: %s" % exc)
    draft = info.get("speculative_draft_model_path")
    module.exit_json(changed=False, server_info=info, accept_length=accept_length(info),
                     draft=draft if isinstance(draft, str) else "")


if __name__ == "__main__":
    main()
