#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: nvidia_smi_info
short_description: The GPUs the loaded NVIDIA driver drives, as nvidia-smi reports them
version_added: 0.1.0
description:
  - Runs C(nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader) and
    returns one entry per GPU.
  - Does not fail when nvidia-smi is missing or cannot talk to the driver (no driver yet, a reboot pending
    after an install, a module that did not build); it returns RV(reachable=false) and nvidia-smi's own
    message, for the caller to decide.
author:
  - gpufleet.sglang developers (@gpufleet)
options:
  nvidia_smi:
    description: The nvidia-smi program, looked up on the PATH by default.
    type: str
    default: nvidia-smi
extends_documentation_fragment:
  - gpufleet.sglang._read_only
"""

EXAMPLES = r"""
- name: Ask the driver for its GPUs
  gpufleet.sglang.nvidia_smi_info:
  register: smi

- name: Eight GPUs, all Blackwell
  ansible.builtin.assert:
    that:
      - smi.reachable
      - smi.gpus | length == 8
      - smi.gpus | map(attribute='compute_cap') | unique == ['12.0']
"""

RETURN = r"""
reachable:
  description: Whether nvidia-smi ran and answered.
  returned: always
  type: bool
message:
  description: What nvidia-smi said when it did not answer.
  returned: when reachable is false
  type: str
  sample: "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."
gpus:
  description: One entry per GPU, in nvidia-smi's order.
  returned: always
  type: list
  elements: dict
  sample:
    - {index: 0, name: "NVIDIA RTX PRO 6000 Blackwell Server Edition", driver_version: "580.105.08",
       compute_cap: "12.0", memory_total_mib: 97887}
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpufleet.sglang.plugins.module_utils._nvidia_hardware import ask_nvidia_smi


def main():
    module = AnsibleModule(
        argument_spec=dict(nvidia_smi=dict(type="str", default="nvidia-smi")),
        supports_check_mode=True,
    )
    try:
        module.exit_json(changed=False, **ask_nvidia_smi(module, module.params["nvidia_smi"]))
    except ValueError as exc:
        module.fail_json(msg=str(exc))


if __name__ == "__main__":
    main()
