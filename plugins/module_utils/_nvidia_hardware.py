# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""NVIDIA devices on the PCI bus (lspci -Dnn or sysfs) and GPUs as nvidia-smi reports them."""

from __future__ import annotations

import os
import re

NVIDIA_VENDOR = "10de"
GPU_CLASSES = ("0300", "0302")  # VGA compatible controller, 3D controller
OTHER_BRIDGE_CLASS = "0680"  # where NVSwitches appear (and, long ago, nForce Ethernet)
# NVSwitch device IDs: V100 (gen 1), A100 (gen 2), H100 (gen 3). The gen-4 switches of HGX
# B200 sit behind bridge functions and are not on the host's bus as NVIDIA devices.
NVSWITCH_DEVICES = frozenset(("1ac0", "1ac1", "1ac2", "1af1", "22a3"))
# Blackwell device IDs start at 0x2900 (GB100 B200 is 2901; Ada, the generation before, ends
# in 0x28xx). Blackwell and every later GPU run only with the open kernel modules.
FIRST_OPEN_ONLY_DEVICE = 0x2900
# Blackwell boards sold only as HGX baseboards, whose NVLink switches need fabric manager.
HGX_ONLY_DEVICES = frozenset(("2901", "3182"))  # B200, B300

_LSPCI_LINE = re.compile(
    r"^(?P<slot>[0-9a-fA-F:.]+)\s+(?P<class_name>.*?)\s*\[(?P<class_code>[0-9a-fA-F]{4})\]:\s*"
    r"(?P<name>.*?)\s*\[(?P<vendor>[0-9a-fA-F]{4}):(?P<device>[0-9a-fA-F]{4})\]"
    r"(?:\s*\(rev [0-9a-fA-F]+\))?(?:\s*\(prog-if .*\))?\s*$")
_DEVICE_ID = re.compile(r"^(?:(?P<vendor>[0-9a-fA-F]{4}):)?(?P<device>[0-9a-fA-F]{4})$")


def _device(slot, class_code, vendor, device, name):
    return {"slot": slot, "class": class_code.lower(), "vendor": vendor.lower(),
            "device": device.lower(), "name": name}


def parse_lspci(text):
    """Every device line of ``lspci -Dnn`` (or ``lspci -nn``); lines of other shapes are skipped."""
    devices = []
    for line in text.splitlines():
        match = _LSPCI_LINE.match(line.strip())
        if match:
            devices.append(_device(match.group("slot"), match.group("class_code"), match.group("vendor"),
                                   match.group("device"), match.group("name")))
    return devices


def read_sysfs(root="/sys/bus/pci/devices"):
    """The same devices from sysfs, for hosts without pciutils (no names there)."""
    devices = []
    for slot in sorted(os.listdir(root)):
        values = {}
        for field in ("vendor", "device", "class"):
            with open(os.path.join(root, slot, field)) as handle:
                values[field] = handle.read().strip().lower().replace("0x", "")
        devices.append(_device(slot, values["class"][:4], values["vendor"], values["device"], ""))
    return devices


def parse_device_ids(ids):
    """Devices given by hand as ``10de:2bb5`` or ``2bb5``, for hosts where detection cannot see them."""
    devices = []
    for index, text in enumerate(ids):
        match = _DEVICE_ID.match(str(text).strip())
        if not match:
            raise ValueError("%r is not a PCI device ID: write it as 10de:2bb5 (vendor:device, hexadecimal)"
                             % (text,))
        vendor = (match.group("vendor") or NVIDIA_VENDOR).lower()
        if vendor != NVIDIA_VENDOR:
            raise ValueError("%r is not an NVIDIA device: the vendor ID must be 10de" % (text,))
        devices.append(_device("given-%d" % index, GPU_CLASSES[1], vendor, match.group("device"), ""))
    return devices


def requires_open_modules(device):
    """Blackwell and later GPUs do not run with NVIDIA's proprietary kernel modules."""
    return int(device["device"], 16) >= FIRST_OPEN_ONLY_DEVICE


def describe(device):
    label = device["name"] or "NVIDIA device"
    return "%s %s [10de:%s]" % (device["slot"], label, device["device"])


def inventory(devices):
    """The NVIDIA GPUs and NVSwitches among ``devices``, and what they demand of the driver."""
    gpus = [dict(device, description=describe(device), open_modules_required=requires_open_modules(device))
            for device in devices if device["vendor"] == NVIDIA_VENDOR and device["class"] in GPU_CLASSES]
    nvswitches = [device for device in devices
                  if device["vendor"] == NVIDIA_VENDOR and device["class"] == OTHER_BRIDGE_CLASS
                  and (device["device"] in NVSWITCH_DEVICES or "nvswitch" in device["name"].lower())]
    open_only = [gpu["description"] for gpu in gpus if gpu["open_modules_required"]]
    return {
        "gpus": gpus,
        "nvswitches": nvswitches,
        "open_modules_required": bool(open_only),
        "open_only_gpus": open_only,
        "fabric_manager_recommended": bool(nvswitches) or any(gpu["device"] in HGX_ONLY_DEVICES for gpu in gpus),
    }


SMI_QUERY = ("name", "driver_version", "compute_cap", "memory.total")


def _mib(text):
    number = text.strip().split()[0] if text.strip() else ""
    return int(number) if number.isdigit() else None


def parse_nvidia_smi(text):
    """Rows of ``nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader``."""
    gpus = []
    for line in text.splitlines():
        if not line.strip():
            continue
        fields = [field.strip() for field in line.rsplit(",", len(SMI_QUERY) - 1)]
        if len(fields) != len(SMI_QUERY):
            raise ValueError("unexpected nvidia-smi line (want %s): %r" % (", ".join(SMI_QUERY), line))
        name, driver_version, compute_cap, memory = fields
        gpus.append({"index": len(gpus), "name": name, "driver_version": driver_version,
                     "compute_cap": compute_cap, "memory_total_mib": _mib(memory)})
    return gpus


def ask_nvidia_smi(module, nvidia_smi="nvidia-smi"):
    """What the loaded driver says of its GPUs: {reachable, gpus[, message]}, never a failure for a driver that
    does not answer (none yet, a reboot pending); ValueError for output nvidia-smi does not print."""
    program = module.get_bin_path(nvidia_smi)
    if not program:
        return {"reachable": False, "gpus": [], "message": "%s is not installed" % nvidia_smi}
    rc, out, err = module.run_command([program, "--query-gpu=" + ",".join(SMI_QUERY), "--format=csv,noheader"])
    if rc != 0:
        return {"reachable": False, "gpus": [],
                "message": (out.strip() + " " + err.strip()).strip() or "nvidia-smi exited with %d" % rc}
    return {"reachable": True, "gpus": parse_nvidia_smi(out)}
