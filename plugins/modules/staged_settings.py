#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: staged_settings
short_description: Stage an SGLang server's settings beside the live ones, swap them in, roll them back
version_added: 0.2.0
description:
  - An SGLang server's unit C(sglang-<instance>.service), environment file and config file exist three times.
    The B(staged) copies in C(<settings_dir>/staged/) are what a run wrote; the B(live) ones are what systemd
    starts, after a planned restart and equally after a crash or a reboot; the B(previous) ones in
    C(<settings_dir>/previous/) are what was live before the last swap.
  - A restart owed for another reason (code patched under the running server) is recorded in
    C(<settings_dir>/staged/<instance>.restart), so that a run that fails before the restart does not forget it.
  - C(inspect) reports whether the server owes a restart. C(swap) makes the staged files live, keeps the
    live ones as the rollback point, and records a restart owed until C(settle), so that a run that dies between
    the swap and the restart still leaves the restart owed. C(rollback) makes the previous files live again. C(owe) records a reason
    for a restart, C(settle) forgets the reasons once the restart is done. None of them restarts anything.
author:
  - gpufleet.sglang developers (@gpufleet)
options:
  instance:
    description: The instance (C(sglang_instance)).
    type: str
    required: true
  state:
    description: What to do.
    type: str
    choices: [inspect, owe, swap, rollback, settle]
    default: inspect
  reason:
    description:
      - Why a restart is owed, with O(state=owe).
      - With O(state=settle), forget only this reason (V(settings swapped in, not yet restarted with them) after a
        rollback's restart, say); without it, every reason.
    type: str
  venv:
    description:
      - With O(state=owe), record the reason only when the live unit runs this venv (code changed in a venv that no
        server runs owes no restart).
    type: path
  settings_dir:
    description: The directory of the live environment and config files.
    type: path
    default: /etc/sglang
  unit_dir:
    description: The directory of the live unit.
    type: path
    default: /etc/systemd/system
attributes:
  check_mode:
    description: Can run in check mode and return changed status prediction without modifying the target.
    support: full
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check mode), when in diff mode.
    support: partial
    details: O(state=swap) and O(state=rollback) show the unit's changes; the environment and config files hold
      secrets and are only named.
"""

EXAMPLES = r"""
- name: Does the server owe a restart?
  gpufleet.sglang.staged_settings:
    instance: kimi-k25
  register: settings

- name: Make the staged settings live (inside the host's batch, with the server stopped)
  gpufleet.sglang.staged_settings:
    instance: kimi-k25
    state: swap
  when: settings.pending

- name: Record a restart for code patched under the running server
  gpufleet.sglang.staged_settings:
    instance: kimi-k25
    state: owe
    reason: kimi_k25.py patched
    venv: /opt/sglang/venvs/sglang-0.5.9
"""

RETURN = r"""
pending:
  description: Whether the server owes a restart (staged files that differ from the live ones, or recorded reasons).
  returned: always
  type: bool
differing:
  description: The files whose staged copy differs from the live one (before the action).
  returned: always
  type: list
  elements: str
  sample: [sglang-kimi-k25.service]
owed:
  description: The recorded reasons for a restart (after the action).
  returned: always
  type: list
  elements: str
live_venv:
  description: The venv the live unit runs (before the action), or null.
  returned: always
  type: str
  sample: /opt/sglang/venvs/sglang-0.5.9
staged_venv:
  description: The venv the staged unit runs, or null.
  returned: always
  type: str
previous_venv:
  description: The venv of the previous unit, or null.
  returned: always
  type: str
live_draft:
  description: The draft the live unit runs (its C(--speculative-draft-model-path)), or null.
  returned: always
  type: str
  sample: AQ-MedAI/Kimi-K25-eagle3
has_live:
  description: Whether the live unit exists (before the action); a host's first start has none.
  returned: always
  type: bool
has_previous:
  description: Whether there is a rollback point.
  returned: always
  type: bool
active_state:
  description: The live unit's C(ActiveState) as systemd reports it (C(active), C(inactive), C(failed)...), before the action.
  returned: always
  type: str
  sample: active
files:
  description: The files O(state=swap) or O(state=rollback) made live (or would, in check mode).
  returned: always
  type: list
  elements: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpufleet.sglang.plugins.module_utils import _staged_settings as staged


def _diff(layout, after):
    unit = layout.live[layout.unit]
    return {"before_header": unit, "after_header": unit,
            "before": staged.read_text(unit), "after": staged.read_text(after)}


def main():
    module = AnsibleModule(
        argument_spec=dict(
            instance=dict(type="str", required=True),
            state=dict(type="str", default="inspect", choices=["inspect", "owe", "swap", "rollback", "settle"]),
            reason=dict(type="str"),
            venv=dict(type="path"),
            settings_dir=dict(type="path", default="/etc/sglang"),
            unit_dir=dict(type="path", default="/etc/systemd/system"),
        ),
        required_if=[("state", "owe", ["reason"])],
        supports_check_mode=True,
    )
    params = module.params
    layout = staged.Layout(params["instance"], params["settings_dir"], params["unit_dir"])
    result = dict(staged.inspect(layout), changed=False, files=[], active_state="")
    systemctl = module.get_bin_path("systemctl")
    if systemctl:
        _rc, out, _err = module.run_command([systemctl, "show", "-p", "ActiveState", "--value", layout.unit])
        result["active_state"] = out.strip()
    state = params["state"]
    diff = None
    if state == "swap":
        result["files"] = result["differing"]
        diff = _diff(layout, layout.staged(layout.unit))
        if result["files"] and not module.check_mode:
            staged.swap(layout)
    elif state == "rollback":
        result["files"] = staged.to_roll_back(layout)
        diff = _diff(layout, layout.previous(layout.unit))
        if result["files"] and not module.check_mode:
            staged.rollback(layout)
    elif state == "owe":
        result["changed"] = staged.owes_for(layout, params["reason"], params["venv"])
        if result["changed"] and not module.check_mode:
            staged.owe(layout, params["reason"], params["venv"])
        result["owed"] = staged.owed_reasons(layout) if not module.check_mode else result["owed"] + (
            [params["reason"]] if result["changed"] else [])
    elif state == "settle":
        left = [owed for owed in result["owed"] if params["reason"] is not None and owed != params["reason"]]
        result["changed"] = left != result["owed"]
        if result["changed"] and not module.check_mode:
            staged.settle(layout, params["reason"])
        result["owed"] = result["owed"] if module.check_mode else left
    if result["files"]:
        result["changed"] = True
        if module._diff:
            result["diff"] = diff
    module.exit_json(**result)


if __name__ == "__main__":
    main()
