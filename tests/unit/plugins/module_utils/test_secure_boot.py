"""Secure Boot's state and DKMS's key in the Machine Owner Key list, read from an efivarfs-shaped tree
(4 bytes of attributes, then the data), as the kernel shows them."""

import base64
import os

from ansible_collections.gpufleet.sglang.plugins.module_utils import _secure_boot

ATTRIBUTES = b"\x06\x00\x00\x00"  # boot service + runtime access
CERTIFICATE = os.urandom(700)     # what matters is the bytes: the DER of DKMS's key


def firmware(tmp_path, secure_boot=None, mok_list=None, kernel_copy=None):
    root = tmp_path / "efi"
    (root / "efivars").mkdir(parents=True)
    if secure_boot is not None:
        (root / "efivars" / ("SecureBoot-" + _secure_boot.EFI_GLOBAL)).write_bytes(ATTRIBUTES + secure_boot)
    if mok_list is not None:
        (root / "efivars" / ("MokListRT-" + _secure_boot.SHIM_LOCK)).write_bytes(ATTRIBUTES + mok_list)
    if kernel_copy is not None:
        (root / "mok-variables").mkdir()
        (root / "mok-variables" / "MokListRT").write_bytes(kernel_copy)
    return str(root)


def key(tmp_path, pem=False):
    path = tmp_path / "mok.pub"
    body = base64.encodebytes(CERTIFICATE)
    path.write_bytes(b"-----BEGIN CERTIFICATE-----\n" + body + b"-----END CERTIFICATE-----\n" if pem else CERTIFICATE)
    return str(path)


def signature_list(*certificates):
    return b"".join(b"\xa1\x59\xc0\xa5" + b"\x00" * 24 + certificate for certificate in certificates)


def test_a_host_without_efi_has_no_secure_boot(tmp_path):
    found = _secure_boot.secure_boot(str(tmp_path / "none"), key(tmp_path))
    assert (found["efi"], found["enabled"], found["key_enrolled"]) == (False, False, False)


def test_secure_boot_off_and_on(tmp_path):
    assert not _secure_boot.secure_boot(firmware(tmp_path, b"\x00"), key(tmp_path))["enabled"]
    assert _secure_boot.secure_boot(firmware(tmp_path / "on", b"\x01"), key(tmp_path))["enabled"]
    assert not _secure_boot.secure_boot(firmware(tmp_path / "unset"), key(tmp_path))["enabled"]


def test_the_key_is_enrolled_when_its_der_is_in_the_mok_list(tmp_path):
    other = os.urandom(700)
    found = _secure_boot.secure_boot(firmware(tmp_path, b"\x01", signature_list(other, CERTIFICATE)), key(tmp_path))
    assert found["enabled"] and found["key_exists"] and found["key_enrolled"]
    assert not _secure_boot.secure_boot(firmware(tmp_path / "b", b"\x01", signature_list(other)),
                                        key(tmp_path))["key_enrolled"]


def test_the_kernels_copy_is_read_first_and_a_pem_key_is_decoded(tmp_path):
    root = firmware(tmp_path, b"\x01", mok_list=signature_list(), kernel_copy=signature_list(CERTIFICATE))
    assert _secure_boot.secure_boot(root, key(tmp_path, pem=True))["key_enrolled"]


def test_a_key_dkms_has_not_made_yet_is_not_enrolled(tmp_path):
    found = _secure_boot.secure_boot(firmware(tmp_path, b"\x01", signature_list(CERTIFICATE)),
                                     str(tmp_path / "absent.pub"))
    assert (found["enabled"], found["key_exists"], found["key_enrolled"]) == (True, False, False)


def test_a_key_path_that_names_a_device_or_a_directory_is_read_no_further_than_the_limit(tmp_path):
    root = firmware(tmp_path, b"\x01", signature_list(CERTIFICATE))
    endless = _secure_boot.secure_boot(root, "/dev/zero")
    assert endless["key_exists"] and not endless["key_enrolled"]
    assert not _secure_boot.secure_boot(root, str(tmp_path))["key_exists"]
