#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: alertmanager_silence
short_description: Mark planned work in Alertmanager with a silence that ends by itself
version_added: 0.2.2
description:
  - Makes the planned absence of a host (or of whatever O(labels) select) one silence in Alertmanager, through its
    API v2 (C(GET /api/v2/silences), C(POST /api/v2/silences), C(DELETE /api/v2/silence/{id})), as Alertmanager
    0.25 answers it.
  - With V(present), one silence of O(created_by) with exactly these label matchers lasts at least O(seconds) from
    now; an earlier one is replaced by one that ends later, further ones are expired. With V(absent), every live
    silence of O(created_by) with these matchers is expired, or, with O(end_within), ends within that many seconds.
  - A silence ends by itself at its end time, so a run that dies in the middle of its work leaves no silence
    beyond it. Silences that anyone else made are never touched.
  - Alertmanager is outside data. A redirect to another origin is refused; each call has one deadline for its
    connection and its whole answer (O(timeout)); an answer is read up to 4 MiB and checked against the shape of
    the silences API before it is used; what is not fails the task naming the URL and what was wrong.
author:
  - gpufleet.sglang developers (@gpufleet)
options:
  url:
    description: Alertmanager's base URL, as this host reaches it.
    type: str
    required: true
  labels:
    description: The labels the silence selects, each by equality (for example the C(host) label of the fleet's
      targets).
    type: dict
    required: true
  state:
    description: Whether the silence lives (V(present)) or is expired (V(absent)).
    type: str
    choices: [present, absent]
    default: present
  seconds:
    description: With V(present), how long from now the silence lasts at least.
    type: int
    default: 3600
  end_within:
    description:
      - With V(absent), how soon the live silence ends, in seconds from now; V(0) expires it at once.
      - At the end of planned work, the alerts that the absence fired still fire until Prometheus scrapes the host and
        evaluates its rules again; a silence that outlives that by a little lets them resolve unseen. A silence that
        ends sooner is kept as it is; none is made where none lives.
    type: int
    default: 0
    version_added: 0.2.2
  comment:
    description: The silence's comment, which Alertmanager shows.
    type: str
    default: planned work by gpufleet.sglang
  created_by:
    description: The silence's author; only silences of this author are replaced or expired.
    type: str
    default: gpufleet.sglang
  timeout:
    description: Seconds each call may take, its whole answer included.
    type: int
    default: 10
  validate_certs:
    description: Verify Alertmanager's TLS certificate.
    type: bool
    default: true
attributes:
  check_mode:
    description: Can run in check mode and return changed status prediction without modifying the target.
    support: full
    details: Reads the silences and reports what would change.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check mode), when in diff mode.
    support: none
"""

EXAMPLES = r"""
- name: Silence gpu-01's alerts for the length of a model load
  gpufleet.sglang.alertmanager_silence:
    url: http://127.0.0.1:9093
    labels: {host: gpu-01}
    seconds: 3600
    comment: restart for a new draft
  delegate_to: mon-01

- name: End the silence once the server is back, a minute later, so that its alerts resolve unseen first
  gpufleet.sglang.alertmanager_silence:
    url: http://127.0.0.1:9093
    labels: {host: gpu-01}
    state: absent
    end_within: 60
  delegate_to: mon-01

- name: End it at once
  gpufleet.sglang.alertmanager_silence:
    url: http://127.0.0.1:9093
    labels: {host: gpu-01}
    state: absent
  delegate_to: mon-01
"""

RETURN = r"""
silence_id:
  description: The live silence (none in check mode when one would be made, and with V(absent)).
  returned: always
  type: str
  sample: 2880f2df-0c3e-4e47-ab39-d695ae9b59f1
ends_at:
  description: When the live silence ends, in UTC (RFC 3339).
  returned: always
  type: str
  sample: "2026-12-07T03:00:00.000Z"
expired:
  description: The silences expired (or that would be).
  returned: always
  type: list
  elements: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpufleet.sglang.plugins.module_utils._alertmanager import (
    AlertmanagerClient,
    AlertmanagerError,
    ensure,
)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            url=dict(type="str", required=True),
            labels=dict(type="dict", required=True),
            state=dict(type="str", choices=["present", "absent"], default="present"),
            seconds=dict(type="int", default=3600),
            end_within=dict(type="int", default=0),
            comment=dict(type="str", default="planned work by gpufleet.sglang"),
            created_by=dict(type="str", default="gpufleet.sglang"),
            timeout=dict(type="int", default=10),
            validate_certs=dict(type="bool", default=True),
        ),
        supports_check_mode=True,
    )
    params = module.params
    if not params["labels"]:
        module.fail_json(msg="labels is empty: a silence must select something (for example {host: gpu-01})")
    if params["seconds"] <= 0:
        module.fail_json(msg="seconds must be positive (got %d)" % params["seconds"])
    if params["end_within"] < 0:
        module.fail_json(msg="end_within must not be negative (got %d): 0 expires the silence at once"
                         % params["end_within"])
    try:
        client = AlertmanagerClient(params["url"], timeout=params["timeout"], validate_certs=params["validate_certs"])
        result = ensure(client, params["labels"], params["seconds"], params["created_by"], params["comment"],
                        state=params["state"], check_mode=module.check_mode, end_within=params["end_within"])
    except AlertmanagerError as exc:
        module.fail_json(msg=str(exc))
    module.exit_json(**result)


if __name__ == "__main__":
    main()
