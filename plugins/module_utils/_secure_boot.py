# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether UEFI Secure Boot is on, and whether the firmware trusts the key DKMS signs kernel modules with.

With Secure Boot on, the kernel loads only modules signed by a key it trusts; the NVIDIA modules DKMS
builds are signed with DKMS's own key (Debian: /var/lib/dkms/mok.pub), which an operator enrolls in shim's
Machine Owner Key list (mokutil --import, a reboot, a confirmation at the console). The list the kernel
saw at boot is in /sys/firmware/efi/mok-variables/MokListRT (the kernel's copy of shim's table), else in
the runtime variable MokListRT; it holds the enrolled X.509 certificates as DER, so an enrolled key's DER
is in it. efivarfs prefixes each variable's data with its 4 bytes of attributes."""

from __future__ import annotations

import base64
import os
import re

EFI_GLOBAL = "8be4df61-93ca-11d2-aa0d-00e098032b8c"
SHIM_LOCK = "605dab50-e046-4300-abb6-3dd810dd8b23"
DKMS_KEY = "/var/lib/dkms/mok.pub"
# More than any certificate or MOK list holds: a key path that names something else (a device, a huge
# file) is read this far and no further.
READ_LIMIT = 1 << 20
_PEM = re.compile(rb"-----BEGIN CERTIFICATE-----(.+?)-----END CERTIFICATE-----", re.S)


def _read(path):
    try:
        with open(path, "rb") as handle:
            return handle.read(READ_LIMIT)
    except OSError:
        return None


def _efi_variable(firmware, name, guid):
    data = _read(os.path.join(firmware, "efivars", "%s-%s" % (name, guid)))
    return None if data is None else data[4:]


def _der(certificate):
    """A certificate file's DER (DKMS writes DER; a PEM file is decoded)."""
    match = _PEM.search(certificate)
    return base64.b64decode(b"".join(match.group(1).split())) if match else certificate


def secure_boot(firmware="/sys/firmware/efi", key=DKMS_KEY):
    """{efi, enabled, key, key_exists, key_enrolled} of this host."""
    found = {"efi": os.path.isdir(firmware), "enabled": False, "key": key, "key_exists": False, "key_enrolled": False}
    if not found["efi"]:
        return found
    state = _efi_variable(firmware, "SecureBoot", EFI_GLOBAL)
    found["enabled"] = bool(state) and state[-1:] == b"\x01"
    certificate = _read(key)
    found["key_exists"] = certificate is not None
    if certificate:
        enrolled = _read(os.path.join(firmware, "mok-variables", "MokListRT"))
        if enrolled is None:
            enrolled = _efi_variable(firmware, "MokListRT", SHIM_LOCK) or b""
        found["key_enrolled"] = _der(certificate) in enrolled
    return found
