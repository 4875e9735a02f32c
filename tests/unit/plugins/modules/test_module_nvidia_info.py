"""The nvidia_pci_info and nvidia_smi_info modules, run in-process.

nvidia-smi needs a GPU; here a shell script prints what nvidia-smi prints (the lines of
test_nvidia_hardware.py's samples) and exits with its codes.
"""

import os
import stat

from gpufleet_testlib.modules import run_module
from ansible_collections.gpufleet.sglang.plugins.modules import nvidia_pci_info, nvidia_smi_info


def fake_nvidia_smi(tmp_path, out, rc=0):
    script = tmp_path / "nvidia-smi"
    script.write_text("#!/bin/sh\n"
                      "[ \"$1\" = --query-gpu=name,driver_version,compute_cap,memory.total ] || exit 64\n"
                      "[ \"$2\" = --format=csv,noheader ] || exit 64\n"
                      "cat <<'OUT'\n%sOUT\nexit %d\n" % (out, rc))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def test_given_devices_are_classified():
    result = run_module(nvidia_pci_info, dict(devices=["10de:2bb5"] * 8), check_mode=True)
    assert result["source"] == "devices"
    assert len(result["gpus"]) == 8 and result["open_modules_required"]
    assert not result["changed"]


def test_a_bad_device_id_fails_with_the_fix():
    result = run_module(nvidia_pci_info, dict(devices=["10de-2bb5"]))
    assert result["failed"]
    assert "write it as 10de:2bb5" in result["msg"]


def test_lspci_when_installed(tmp_path, monkeypatch):
    lspci = tmp_path / "lspci"
    lspci.write_text("#!/bin/sh\n[ \"$1\" = -Dnn ] || exit 64\ncat <<'OUT'\n"
                     "0000:02:00.0 VGA compatible controller [0300]: ASPEED Technology, Inc. ASPEED Graphics Family "
                     "[1a03:2000] (rev 52)\n"
                     "0000:38:00.0 3D controller [0302]: NVIDIA Corporation GB202GL [RTX PRO 6000 Blackwell Server "
                     "Edition] [10de:2bb5] (rev a1)\nOUT\n")
    lspci.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path) + os.pathsep + "/usr/bin:/bin")
    result = run_module(nvidia_pci_info, {})
    assert result["source"] == "lspci"
    assert [gpu["slot"] for gpu in result["gpus"]] == ["0000:38:00.0"]
    assert result["open_modules_required"] and not result["fabric_manager_recommended"]


def test_sysfs_when_lspci_is_missing(tmp_path, monkeypatch):
    slot = tmp_path / "0000:18:00.0"
    slot.mkdir()
    for field, value in (("vendor", "0x10de"), ("device", "0x2901"), ("class", "0x030200")):
        (slot / field).write_text(value + "\n")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    result = run_module(nvidia_pci_info, dict(sysfs_root=str(tmp_path)))
    assert result["source"] == "sysfs"
    assert result["fabric_manager_recommended"] and result["open_modules_required"]


def test_secure_boot_and_the_dkms_key_are_read_from_the_firmware(tmp_path):
    efivars = tmp_path / "efi" / "efivars"
    efivars.mkdir(parents=True)
    (efivars / "SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c").write_bytes(b"\x06\x00\x00\x00\x01")
    (tmp_path / "mok.pub").write_bytes(b"\x30\x82 a DER certificate")
    args = dict(devices=["10de:2bb5"], firmware_root=str(tmp_path / "efi"), dkms_key=str(tmp_path / "mok.pub"))
    found = run_module(nvidia_pci_info, args, check_mode=True)["secure_boot"]
    assert found == {"efi": True, "enabled": True, "key": str(tmp_path / "mok.pub"), "key_exists": True,
                     "key_enrolled": False}
    (efivars / "MokListRT-605dab50-e046-4300-abb6-3dd810dd8b23").write_bytes(b"\x06\x00\x00\x00" + b"\xa1" * 28
                                                                             + b"\x30\x82 a DER certificate")
    assert run_module(nvidia_pci_info, args)["secure_boot"]["key_enrolled"]
    bios = run_module(nvidia_pci_info, dict(args, firmware_root=str(tmp_path / "none")))["secure_boot"]
    assert (bios["efi"], bios["enabled"]) == (False, False)


def test_nvidia_smi_answers(tmp_path):
    smi = fake_nvidia_smi(tmp_path, "NVIDIA RTX PRO 6000 Blackwell Server Edition, 580.159.03, 12.0, 97887 MiB\n" * 2)
    result = run_module(nvidia_smi_info, dict(nvidia_smi=smi), check_mode=True)
    assert result["reachable"]
    assert [gpu["index"] for gpu in result["gpus"]] == [0, 1]
    assert result["gpus"][1]["compute_cap"] == "12.0"


def test_nvidia_smi_without_a_driver_is_reported_not_failed(tmp_path):
    smi = fake_nvidia_smi(tmp_path, "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA "
                                    "driver. Make sure that the latest NVIDIA driver is installed and running.\n", 9)
    result = run_module(nvidia_smi_info, dict(nvidia_smi=smi))
    assert not result.get("failed") and not result["reachable"]
    assert "couldn't communicate with the NVIDIA driver" in result["message"]


def test_nvidia_smi_not_installed(tmp_path):
    result = run_module(nvidia_smi_info, dict(nvidia_smi=os.path.join(str(tmp_path), "nvidia-smi")))
    assert not result["reachable"] and "is not installed" in result["message"]


def test_the_pci_read_asks_the_driver_in_the_same_round_trip_when_told(tmp_path, monkeypatch):
    fake_nvidia_smi(tmp_path, "NVIDIA RTX PRO 6000 Blackwell Server Edition, 580.159.03, 12.0, 97887 MiB\n")
    monkeypatch.setenv("PATH", str(tmp_path) + os.pathsep + "/usr/bin:/bin")
    asked = run_module(nvidia_pci_info, dict(devices=["10de:2bb5"], ask_driver=True), check_mode=True)
    assert asked["driver"]["reachable"] and asked["driver"]["gpus"][0]["driver_version"] == "580.159.03"
    assert len(asked["gpus"]) == 1
    assert "driver" not in run_module(nvidia_pci_info, dict(devices=["10de:2bb5"]))


def test_the_pci_read_reports_a_driver_that_does_not_answer(tmp_path, monkeypatch):
    fake_nvidia_smi(tmp_path, "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n", 9)
    monkeypatch.setenv("PATH", str(tmp_path) + os.pathsep + "/usr/bin:/bin")
    result = run_module(nvidia_pci_info, dict(devices=["10de:2bb5"], ask_driver=True))
    assert not result.get("failed") and not result["driver"]["reachable"]
    assert "couldn't communicate" in result["driver"]["message"]


def test_the_pci_read_fails_on_output_nvidia_smi_does_not_print(tmp_path, monkeypatch):
    fake_nvidia_smi(tmp_path, "something else entirely\n")
    monkeypatch.setenv("PATH", str(tmp_path) + os.pathsep + "/usr/bin:/bin")
    result = run_module(nvidia_pci_info, dict(devices=["10de:2bb5"], ask_driver=True))
    assert result["failed"] and "unexpected nvidia-smi line" in result["msg"]
