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
  - A server that left the routers for a restart is recorded in C(<settings_dir>/staged/<instance>.left) until it
    is back in them, so that the next run finishes what a failed or killed run left drained.
  - C(inspect) reports whether the server owes a restart. C(swap) makes the staged files live, keeps the
    live ones as the rollback point, and records a restart owed until C(settle), so that a run that dies between
    the swap and the restart still leaves the restart owed. C(rollback) makes the previous files live again, when
    the live ones were swapped in and not yet confirmed by C(settle) (a batch that failed after its swap), never
    settings a healthy restart confirmed, and never without a rollback point (a first start). C(owe) records a reason
    for a restart, C(settle) forgets the reasons once the restart is done. C(leave) records that the server left the
    routers (O(routers)), C(rejoin) forgets it. None of them restarts anything.
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
    choices: [inspect, owe, swap, rollback, settle, leave, rejoin]
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
      - With O(state=inspect), also report RV(venv_exists), whether this venv's C(bin/python) exists.
    type: path
  routers:
    description: With O(state=leave), the routers the server leaves (inventory names), kept in the record.
    type: list
    elements: str
    default: []
  would_stage:
    description:
      - File names (C(sglang-<instance>.service), C(<instance>.env), C(<instance>.yaml)) that a run in check mode
        would have staged; they count as differing, so that RV(pending) is what a real run would find.
    type: list
    elements: str
    default: []
  port:
    description: Also report RV(port_users), the other instances whose live unit passes C(--port) with this port.
    type: int
  settings_dir:
    description: The directory of the live environment and config files.
    type: path
    default: /etc/sglang
  unit_dir:
    description: The directory of the live unit.
    type: path
    default: /etc/systemd/system
  reset_damaged_records:
    description:
      - A record that is not the JSON this module writes (hand-edited, cut short by a full disk) fails the task by
        default, naming the file. With V(true), it is read as its safe meaning and written so (RV(repaired)), a
        damaged C(.restart) as a restart owed, a damaged C(.left) as a server out of every router, which its batch
        puts back. A unit whose C(ExecStart) cannot be split into words is read as naming no venv, model or
        draft (its staged copy differs, so the swap replaces it).
      - Every file is read without following a link, as a regular file of at most 1 MiB (a record, 64 KiB); what
        is not fails the task naming it, and nothing is written.
    type: bool
    default: false
    version_added: 0.2.2
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

- name: Record that the server leaves the routers (before it leaves them)
  gpufleet.sglang.staged_settings:
    instance: kimi-k25
    state: leave
    routers: [router-1, router-2]
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
beyond_draft:
  description:
    - The files of RV(differing) that change more than the draft, the staged unit compared with the live draft's path
      in place of the staged one (what a draft rollout refuses to change). In check mode, the files O(would_stage)
      names, except the unit.
  returned: always
  type: list
  elements: str
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
live_model:
  description: The model the live unit runs (its C(--model-path)), or null.
  returned: always
  type: str
  sample: /var/lib/sglang/models/weights/moonshotai--Kimi-K2.5/3367c8d1c68584429fab7faf845a32d5195b6ac1
has_live:
  description: Whether the live unit exists (before the action); a host's first start has none.
  returned: always
  type: bool
has_previous:
  description: Whether there is a rollback point.
  returned: always
  type: bool
left:
  description: When and from which routers the server left (C({since, routers})) while it is out of them, else null (before the action).
  returned: always
  type: dict
  sample: {since: "2026-12-04T18:20:00Z", routers: [router-1]}
venv_exists:
  description: Whether O(venv)'s C(bin/python) exists.
  returned: when O(venv) is given
  type: bool
port_users:
  description: The other instances' live units that use O(port).
  returned: when O(port) is given
  type: list
  elements: str
draft:
  description: With O(state=rollback), the draft the live unit runs after the rollback (its C(--speculative-draft-model-path)).
  returned: when O(state=rollback)
  type: str
active_state:
  description: The live unit's C(ActiveState) as systemd reports it (C(active), C(inactive), C(failed)...), before the action.
  returned: always
  type: str
  sample: active
running:
  description: Whether the unit runs (RV(active_state) C(active), C(activating) or C(reloading)).
  returned: always
  type: bool
serving:
  description: Whether the server serves now, as far as this host knows, running and not out of the routers.
  returned: always
  type: bool
owes:
  description:
    - Why this server's batch must take it, before the action; empty when it owes nothing. The files of RV(differing),
      the reasons of RV(owed), V(not running) or V(first start) when the unit does not run, and
      V(out of the routers since ...) when an earlier run left it out of them.
  returned: always
  type: list
  elements: str
  sample: [sglang-kimi-k25.service, out of the routers since 2026-12-04T18:20:00Z]
repaired:
  description: The damaged records replaced by their safe meaning (O(reset_damaged_records); in check mode, would be).
  returned: always
  type: list
  elements: str
  version_added: 0.2.2
files:
  description: The files O(state=swap) or O(state=rollback) made live (or would, in check mode).
  returned: always
  type: list
  elements: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpufleet.sglang.plugins.module_utils import _staged_settings as staged
from ansible_collections.gpufleet.sglang.plugins.module_utils._host_files import HostFileError


def _diff(layout, after):
    unit = layout.live[layout.unit]
    return {"before_header": unit, "after_header": unit,
            "before": staged.read_text(unit), "after": staged.read_text(after)}


def main():
    module = AnsibleModule(
        argument_spec=dict(
            instance=dict(type="str", required=True),
            state=dict(type="str", default="inspect",
                       choices=["inspect", "owe", "swap", "rollback", "settle", "leave", "rejoin"]),
            reason=dict(type="str"),
            venv=dict(type="path"),
            routers=dict(type="list", elements="str", default=[]),
            would_stage=dict(type="list", elements="str", default=[]),
            port=dict(type="int"),
            settings_dir=dict(type="path", default="/etc/sglang"),
            unit_dir=dict(type="path", default="/etc/systemd/system"),
            reset_damaged_records=dict(type="bool", default=False),
        ),
        required_if=[("state", "owe", ["reason"])],
        supports_check_mode=True,
    )
    params = module.params
    layout = staged.Layout(params["instance"], params["settings_dir"], params["unit_dir"],
                           params["reset_damaged_records"])
    try:
        result = act(module, layout)
    except (staged.SettingsError, HostFileError, OSError) as exc:
        module.fail_json(msg="%s. Nothing else was changed." % exc)
    module.exit_json(**result)


def act(module, layout):
    """What the state asks, done (in check mode, only said); the result."""
    params = module.params
    state = params["state"]
    probe = dict(venv=params["venv"], port=params["port"]) if state == "inspect" else {}
    result = dict(staged.inspect(layout, params["would_stage"], **probe), changed=False, files=[], active_state="")
    systemctl = module.get_bin_path("systemctl")
    if systemctl:
        _rc, out, _err = module.run_command([systemctl, "show", "-p", "ActiveState", "--value", layout.unit])
        result["active_state"] = out.strip()
    result.update(staged.what_is_owed(result, result["active_state"]))
    diff = None
    if state == "swap":
        result["files"] = result["differing"]
        diff = _diff(layout, layout.staged(layout.unit))
        if result["files"] and not module.check_mode:
            staged.swap(layout)
    elif state == "rollback":
        result["files"] = staged.to_roll_back(layout) if staged.unconfirmed(layout) else []
        diff = _diff(layout, layout.previous(layout.unit))
        rolled_to = layout.previous(layout.unit) if result["files"] else layout.live[layout.unit]
        result["draft"] = staged.unit_flag(rolled_to, staged.DRAFT_FLAG, layout.reset_damaged)
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
    elif state == "leave":
        result["changed"] = result["left"] is None
        if result["changed"] and not module.check_mode:
            staged.leave(layout, params["routers"])
    elif state == "rejoin":
        result["changed"] = result["left"] is not None
        if result["changed"] and not module.check_mode:
            staged.rejoin(layout)
    if result["files"]:
        result["changed"] = True
        if module._diff:
            result["diff"] = diff
    result["repaired"] = layout.damaged
    if layout.damaged:
        result["changed"] = True
        if not module.check_mode:
            staged.repair(layout)
    return result


if __name__ == "__main__":
    main()
