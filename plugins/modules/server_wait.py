#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: server_wait
short_description: Wait until an SGLang server is healthy and return its server info
version_added: 0.1.0
description:
  - Polls C(/health_generate) (a real one-token generation) until it answers 200.
  - Watches the server's systemd unit meanwhile. When the unit fails, stops or restarts, the wait ends at
    once instead of running into the timeout, and the error carries the last lines of the unit's journal.
  - Returns C(/server_info) (the server's arguments and speculative decoding state) once healthy.
  - The server's answers are outside data. A redirect to another origin is refused (the API key is never sent
    there); each probe ends within 10 seconds (or O(timeout) when shorter) and C(/server_info) within 30, for the
    whole answer; C(/server_info) is read up to 4 MiB and must be a JSON object; what is not fails the task
    naming the URL.
  - With O(check_unit), also fails when the server does not run the speculative configuration its unit's
    C(ExecStart) asks for (C(--speculative-algorithm), C(--speculative-draft-model-path)); a healthy server on
    another draft is not the server that was asked for.
author:
  - gpufleet.sglang developers (@gpufleet)
options:
  unit:
    description: The systemd unit that runs the server.
    type: str
    required: true
  timeout:
    description: Seconds to wait for a healthy answer; a Kimi-K2.5 load takes 20 to 30 minutes.
    type: int
    default: 1800
  interval:
    description: Seconds between two probes.
    type: int
    default: 5
  api_key:
    description: The server's API key, sent as a bearer token to C(/server_info) (the health endpoints are open).
    type: str
  journal_lines:
    description: How many lines of the unit's journal a failure shows.
    type: int
    default: 40
  check_unit:
    description: Compare the speculative algorithm and draft the server reports with those of the unit's C(ExecStart).
    type: bool
    default: false
extends_documentation_fragment:
  - gpufleet.sglang._server
  - gpufleet.sglang._read_only
"""

EXAMPLES = r"""
- name: Wait for the server
  gpufleet.sglang.server_wait:
    url: http://127.0.0.1:30000
    unit: sglang-kimi-k25.service
    timeout: 2400
    check_unit: true
  register: server
"""

RETURN = r"""
elapsed:
  description: Seconds the wait took.
  returned: success
  type: float
  sample: 812.4
server_info:
  description: The server's C(/server_info).
  returned: success
  type: dict
  sample: {speculative_algorithm: EAGLE3, speculative_draft_model_path: AQ-MedAI/Kimi-K25-eagle3}
msg:
  description: How long the wait took, and with O(check_unit) what the server runs.
  returned: success
  type: str
  sample: "sglang-kimi-k25.service healthy after 812.4 s: EAGLE3 with AQ-MedAI/Kimi-K25-eagle3"
journal:
  description: The last lines of the unit's journal, when the wait failed.
  returned: failure
  type: list
  elements: str
"""

import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpufleet.sglang.plugins.module_utils._http import Client, HttpError
from ansible_collections.gpufleet.sglang.plugins.module_utils._server_health import (
    ServerFailed,
    read_server_info,
    speculative_summary,
    wait_healthy,
)
from ansible_collections.gpufleet.sglang.plugins.module_utils._staged_settings import SettingsError, exec_start


def http_status(client, path):
    """The HTTP status of GET path, or what kept the server from giving one."""
    try:
        return client.call("GET", path, limit=64 * 1024)[0]
    except HttpError as exc:
        return str(exc)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            url=dict(type="str", default="http://127.0.0.1:30000"),
            unit=dict(type="str", required=True),
            timeout=dict(type="int", default=1800),
            interval=dict(type="int", default=5),
            api_key=dict(type="str", no_log=True),
            journal_lines=dict(type="int", default=40),
            check_unit=dict(type="bool", default=False),
        ),
        supports_check_mode=True,
    )
    params = module.params
    base = params["url"].rstrip("/")
    try:
        probe = Client(base, timeout=max(1, min(10, params["timeout"])), cross_origin="refuse")
        reader = Client(base, params["api_key"], timeout=30, cross_origin="refuse")
    except HttpError as exc:
        module.fail_json(msg="url: %s" % exc)
    systemctl = module.get_bin_path("systemctl", required=True)

    def unit_state():
        rc, out, err = module.run_command([systemctl, "show", "-p", "ActiveState", "-p", "NRestarts", params["unit"]])
        values = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
        return values.get("ActiveState", "unknown"), int(values.get("NRestarts") or 0)

    try:
        elapsed = wait_healthy(lambda: http_status(probe, "/health_generate"), unit_state, time.monotonic,
                               time.sleep, params["timeout"], params["interval"])
    except ServerFailed as exc:
        journalctl = module.get_bin_path("journalctl")
        journal = []
        if journalctl:
            rc, out, err = module.run_command([journalctl, "-u", params["unit"], "-n", str(params["journal_lines"]),
                                               "--no-pager", "-o", "cat"])
            journal = out.splitlines()
        module.fail_json(msg="%s at %s: %s. Last lines of its journal:\n%s" % (
            params["unit"], base, exc, "\n".join(journal)), journal=journal)

    try:
        server_info = read_server_info(reader)
    except HttpError as exc:
        module.fail_json(msg="%s is healthy but %s/server_info could not be read: %s" % (params["unit"], base, exc))
    elapsed = round(elapsed, 1)
    argv = None
    if params["check_unit"]:
        rc, out, err = module.run_command([systemctl, "show", "-p", "FragmentPath", "--value", params["unit"]])
        try:
            argv = exec_start(out.strip()) if out.strip() else []
        except SettingsError as exc:
            module.fail_json(msg="%s is healthy, but its unit cannot be compared: %s" % (params["unit"], exc))
    summary, mismatch = speculative_summary(params["unit"], server_info, argv)
    if mismatch:
        module.fail_json(msg=mismatch, server_info=server_info, elapsed=elapsed)
    module.exit_json(changed=False, elapsed=elapsed, server_info=server_info,
                     msg="%s healthy after %s s: %s" % (params["unit"], elapsed, summary))


if __name__ == "__main__":
    main()
