#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: nvidia_pci_info
short_description: List the NVIDIA GPUs and NVSwitches on the PCI bus and read Secure Boot, before any driver is installed
version_added: 0.1.0
description:
  - Reads C(lspci -Dnn) when pciutils is installed, else C(/sys/bus/pci/devices), and returns the NVIDIA GPUs
    (PCI class 0300 or 0302) and NVSwitches (class 0680) it finds.
  - Says which GPUs run only with NVIDIA's open kernel modules (Blackwell and later, device IDs from 0x2900 on)
    and whether the host needs fabric manager (NVSwitches on the bus, or HGX-only Blackwell boards).
  - With O(devices), classifies the given device IDs instead of reading the bus, for hosts where detection
    cannot see the GPUs (some virtual machines, containers).
  - Reads whether UEFI Secure Boot is on and whether the firmware's Machine Owner Key list holds the key DKMS
    signs the kernel modules with (O(dkms_key)); with Secure Boot on, the kernel loads no NVIDIA module that
    DKMS built until that key is enrolled.
  - With O(ask_driver), also asks the loaded driver for its GPUs (as M(gpufleet.sglang.nvidia_smi_info) does), in
    the same round trip.
author:
  - gpufleet.sglang developers (@gpufleet)
options:
  devices:
    description:
      - PCI device IDs to use instead of reading the bus, one per GPU, as C(10de:2bb5) or C(2bb5).
    type: list
    elements: str
    default: []
  sysfs_root:
    description: Where the PCI devices are in sysfs, read when C(lspci) is not installed.
    type: path
    default: /sys/bus/pci/devices
  firmware_root:
    description: Where the kernel shows the UEFI firmware (C(efivars/), C(mok-variables/)); absent on a BIOS host.
    type: path
    default: /sys/firmware/efi
  dkms_key:
    description: The certificate DKMS signs the modules it builds with (Debian's C(dkms) makes it on first use).
    type: path
    default: /var/lib/dkms/mok.pub
  ask_driver:
    description:
      - Also run C(nvidia-smi) and return what the loaded driver says of its GPUs (RV(driver)); a driver that does
        not answer (none yet, a reboot pending) is reported there, not failed.
    type: bool
    default: false
    version_added: 0.2.2
extends_documentation_fragment:
  - gpufleet.sglang._read_only
"""

EXAMPLES = r"""
- name: Find the GPUs
  gpufleet.sglang.nvidia_pci_info:
  register: pci

- name: Find the GPUs on the bus and ask the loaded driver for them, in one round trip
  gpufleet.sglang.nvidia_pci_info:
    ask_driver: true
  register: pci

- name: A host whose GPUs the bus does not show (eight RTX PRO 6000 Blackwell Server Edition)
  gpufleet.sglang.nvidia_pci_info:
    devices: "{{ ['10de:2bb5'] * 8 }}"
"""

RETURN = r"""
gpus:
  description: The NVIDIA GPUs.
  returned: always
  type: list
  elements: dict
  sample:
    - {slot: "0000:38:00.0", class: "0302", vendor: 10de, device: 2bb5,
       name: "NVIDIA Corporation GB202GL [RTX PRO 6000 Blackwell Server Edition]", open_modules_required: true,
       description: "0000:38:00.0 NVIDIA Corporation GB202GL [RTX PRO 6000 Blackwell Server Edition] [10de:2bb5]"}
nvswitches:
  description: The NVSwitches the host's bus shows.
  returned: always
  type: list
  elements: dict
open_modules_required:
  description: Whether any GPU runs only with the open kernel modules.
  returned: always
  type: bool
open_only_gpus:
  description: Those GPUs, one line each.
  returned: always
  type: list
  elements: str
fabric_manager_recommended:
  description: Whether the host's NVLink switches need NVIDIA fabric manager.
  returned: always
  type: bool
source:
  description: Where the devices came from, C(lspci), C(sysfs) or C(devices) (the option).
  returned: always
  type: str
secure_boot:
  description: >-
    C(efi) whether the host booted with UEFI, C(enabled) whether Secure Boot is on, C(key) O(dkms_key),
    C(key_exists) whether it exists, C(key_enrolled) whether the firmware's Machine Owner Key list holds it.
  returned: always
  type: dict
  sample: {efi: true, enabled: true, key: /var/lib/dkms/mok.pub, key_exists: true, key_enrolled: false}
driver:
  description:
    - What the loaded driver says of its GPUs, as M(gpufleet.sglang.nvidia_smi_info) returns it
      (C(reachable), C(gpus), and C(message) when it did not answer).
  returned: when O(ask_driver) is true
  type: dict
  sample: {reachable: true, gpus: [{index: 0, name: "NVIDIA RTX PRO 6000 Blackwell Server Edition",
           driver_version: "580.105.08", compute_cap: "12.0", memory_total_mib: 97887}]}
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpufleet.sglang.plugins.module_utils._nvidia_hardware import (
    ask_nvidia_smi, inventory, parse_device_ids, parse_lspci, read_sysfs)
from ansible_collections.gpufleet.sglang.plugins.module_utils._secure_boot import secure_boot


def main():
    module = AnsibleModule(
        argument_spec=dict(
            devices=dict(type="list", elements="str", default=[]),
            sysfs_root=dict(type="path", default="/sys/bus/pci/devices"),
            firmware_root=dict(type="path", default="/sys/firmware/efi"),
            dkms_key=dict(type="path", default="/var/lib/dkms/mok.pub"),
            ask_driver=dict(type="bool", default=False),
        ),
        supports_check_mode=True,
    )
    params = module.params
    lspci = module.get_bin_path("lspci")
    try:
        if params["devices"]:
            source, devices = "devices", parse_device_ids(params["devices"])
        elif lspci:
            rc, out, err = module.run_command([lspci, "-Dnn"], check_rc=True)
            source, devices = "lspci", parse_lspci(out)
        else:
            source, devices = "sysfs", read_sysfs(params["sysfs_root"])
    except (ValueError, OSError) as exc:
        module.fail_json(msg="cannot list the PCI devices: %s" % exc)
    result = dict(inventory(devices), source=source, secure_boot=secure_boot(params["firmware_root"], params["dkms_key"]))
    if params["ask_driver"]:
        try:
            result["driver"] = ask_nvidia_smi(module)
        except ValueError as exc:
            module.fail_json(msg=str(exc))
    module.exit_json(changed=False, **result)


if __name__ == "__main__":
    main()
