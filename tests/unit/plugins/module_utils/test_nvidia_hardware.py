"""The lspci, sysfs and nvidia-smi readers, on output copied from public reports.

Where each sample comes from (all found through a public code search, copied verbatim unless
noted):
- RTX_PRO_6000_LSPCI: a Chinese VFIO set-up guide for an 8x RTX PRO 6000 Blackwell Server
  Edition server (ASPEED BMC display first), ``lspci -nn | grep -Ei 'vga|3d|display|audio'``;
  the guide shows four of the eight lines, with the ``0000:`` domain.
- RTX_PRO_6000_OLD_PCI_IDS: an Azure Local GPU how-to, ``lspci -nn | grep -i nvidia`` on a host
  whose pci.ids predates the card (no name, only ``Device [10de:2bb5]``).
- HGX_H100_LSPCI: a RHEL AI H100 passthrough guide (Korean), ``lspci -Dnn | egrep -i
  "nvidia|vga"`` on an HGX H100: four NVSwitches (class 0680) and eight H100 SXM5.
- B200_LSPCI: NVIDIA GPU Operator notes on enabling Blackwell for confidential computing,
  ``lspci -nnk | grep '3D controller' -A3`` on an HGX B200 (the first line).
- NFORCE_LSPCI: an Ubuntu forum thread, ``lspci -nnk | grep -iA2 net``: an nForce MCP61
  Ethernet, an NVIDIA device of class 0680 that is no NVSwitch.
- nvidia-smi rows: an RTX PRO 6000 report (``--query-gpu=name,driver_version,compute_cap``,
  580.159.03, 12.0) with the card's memory.total from another report of the same card
  (97887 MiB), put in this module's query order; an RTX 5060 report that queried
  ``name,driver_version,compute_cap,memory.total,pci.bus_id`` (the bus ID dropped).
- The two failure messages are nvidia-smi's own, as every report of these cases quotes them.
"""

import pytest

from ansible_collections.gpufleet.sglang.plugins.module_utils import _nvidia_hardware as hw

RTX_PRO_6000_LSPCI = """\
0000:02:00.0 VGA compatible controller [0300]: ASPEED Technology, Inc. ASPEED Graphics Family [1a03:2000] (rev 52)
0000:38:00.0 3D controller [0302]: NVIDIA Corporation GB202GL [RTX PRO 6000 Blackwell Server Edition] [10de:2bb5] (rev a1)
0000:49:00.0 3D controller [0302]: NVIDIA Corporation GB202GL [RTX PRO 6000 Blackwell Server Edition] [10de:2bb5] (rev a1)
0000:98:00.0 3D controller [0302]: NVIDIA Corporation GB202GL [RTX PRO 6000 Blackwell Server Edition] [10de:2bb5] (rev a1)
0000:b8:00.0 3D controller [0302]: NVIDIA Corporation GB202GL [RTX PRO 6000 Blackwell Server Edition] [10de:2bb5] (rev a1)
"""
RTX_PRO_6000_OLD_PCI_IDS = "0e:00.0 3D controller [0302]: NVIDIA Corporation Device [10de:2bb5] (rev a1)\n"
HGX_H100_LSPCI = """\
0000:04:00.0 VGA compatible controller [0300]: ASPEED Technology, Inc. ASPEED Graphics Family [1a03:2000] (rev 52)
0000:07:00.0 Bridge [0680]: NVIDIA Corporation GH100 [H100 NVSwitch] [10de:22a3] (rev a1)
0000:08:00.0 Bridge [0680]: NVIDIA Corporation GH100 [H100 NVSwitch] [10de:22a3] (rev a1)
0000:09:00.0 Bridge [0680]: NVIDIA Corporation GH100 [H100 NVSwitch] [10de:22a3] (rev a1)
0000:0a:00.0 Bridge [0680]: NVIDIA Corporation GH100 [H100 NVSwitch] [10de:22a3] (rev a1)
0000:1b:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330] (rev a1)
0000:43:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330] (rev a1)
0000:52:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330] (rev a1)
0000:61:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330] (rev a1)
0000:9d:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330] (rev a1)
0000:c3:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330] (rev a1)
0000:d1:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330] (rev a1)
0000:df:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330] (rev a1)
"""
B200_LSPCI = """\
0000:18:00.0 3D controller [0302]: NVIDIA Corporation GB100 [B200] [10de:2901] (rev a1)
        Subsystem: NVIDIA Corporation Device [10de:1999]
        Kernel driver in use: vfio-pci
        Kernel modules: nvidiafb, nouveau
"""
NFORCE_LSPCI = """\
00:07.0 Bridge [0680]: NVIDIA Corporation MCP61 Ethernet [10de:03ef] (rev a2)
    Subsystem: Giga-byte Technology Device [1458:e000]
    Kernel driver in use: forcedeth
"""


def test_rtx_pro_6000_server_needs_the_open_modules():
    found = hw.inventory(hw.parse_lspci(RTX_PRO_6000_LSPCI))
    assert [gpu["slot"] for gpu in found["gpus"]] == ["0000:38:00.0", "0000:49:00.0", "0000:98:00.0", "0000:b8:00.0"]
    assert found["gpus"][0]["name"] == "NVIDIA Corporation GB202GL [RTX PRO 6000 Blackwell Server Edition]"
    assert found["gpus"][0]["device"] == "2bb5"
    assert found["open_modules_required"]
    assert found["open_only_gpus"][0] == \
        "0000:38:00.0 NVIDIA Corporation GB202GL [RTX PRO 6000 Blackwell Server Edition] [10de:2bb5]"
    assert found["nvswitches"] == []
    assert not found["fabric_manager_recommended"]


def test_a_host_whose_pci_ids_predates_the_card_is_still_recognised_by_its_device_id():
    found = hw.inventory(hw.parse_lspci(RTX_PRO_6000_OLD_PCI_IDS))
    assert found["gpus"][0]["name"] == "NVIDIA Corporation Device"
    assert found["open_modules_required"]


def test_hgx_h100_has_nvswitches_and_allows_either_flavour():
    found = hw.inventory(hw.parse_lspci(HGX_H100_LSPCI))
    assert len(found["gpus"]) == 8
    assert len(found["nvswitches"]) == 4
    assert not found["open_modules_required"]
    assert found["fabric_manager_recommended"]


def test_hgx_b200_needs_fabric_manager_though_its_switches_are_not_on_the_bus():
    found = hw.inventory(hw.parse_lspci(B200_LSPCI))
    assert [gpu["name"] for gpu in found["gpus"]] == ["NVIDIA Corporation GB100 [B200]"]
    assert found["nvswitches"] == []
    assert found["open_modules_required"]
    assert found["fabric_manager_recommended"]


def test_an_nforce_bridge_is_neither_gpu_nor_nvswitch():
    found = hw.inventory(hw.parse_lspci(NFORCE_LSPCI))
    assert found["gpus"] == [] and found["nvswitches"] == []
    assert not found["fabric_manager_recommended"]


def test_sysfs_gives_the_same_classification(tmp_path):
    for slot, vendor, device, pci_class in (("0000:02:00.0", "0x1a03", "0x2000", "0x030000"),
                                            ("0000:38:00.0", "0x10de", "0x2bb5", "0x030200"),
                                            ("0000:07:00.0", "0x10de", "0x22a3", "0x068000")):
        path = tmp_path / slot
        path.mkdir()
        (path / "vendor").write_text(vendor + "\n")
        (path / "device").write_text(device + "\n")
        (path / "class").write_text(pci_class + "\n")
    found = hw.inventory(hw.read_sysfs(str(tmp_path)))
    assert [(gpu["slot"], gpu["device"]) for gpu in found["gpus"]] == [("0000:38:00.0", "2bb5")]
    assert [switch["device"] for switch in found["nvswitches"]] == ["22a3"]
    assert found["open_modules_required"] and found["fabric_manager_recommended"]


def test_devices_given_by_hand():
    found = hw.inventory(hw.parse_device_ids(["10de:2bb5", "2330"]))
    classified = [(gpu["device"], gpu["open_modules_required"]) for gpu in found["gpus"]]
    assert classified == [("2bb5", True), ("2330", False)]


@pytest.mark.parametrize("text, message", [("10de-2bb5", "write it as 10de:2bb5"),
                                           ("1002:74a1", "not an NVIDIA device")])
def test_devices_given_by_hand_are_checked(text, message):
    with pytest.raises(ValueError, match=message):
        hw.parse_device_ids([text])


@pytest.mark.parametrize("device, open_only", [("2882", False),   # Ada AD107, the last before Blackwell
                                               ("2330", False),   # Hopper H100 SXM5
                                               ("2901", True),    # Blackwell B200
                                               ("2b85", True),    # Blackwell RTX 5090
                                               ("3182", True)])   # Blackwell Ultra B300
def test_open_module_boundary(device, open_only):
    assert hw.requires_open_modules({"device": device}) is open_only


def test_nvidia_smi_rows():
    out = ("NVIDIA RTX PRO 6000 Blackwell Server Edition, 580.159.03, 12.0, 97887 MiB\n"
           "NVIDIA GeForce RTX 5060, 610.74, 12.0, 8151 MiB\n")
    assert hw.parse_nvidia_smi(out) == [
        {"index": 0, "name": "NVIDIA RTX PRO 6000 Blackwell Server Edition", "driver_version": "580.159.03",
         "compute_cap": "12.0", "memory_total_mib": 97887},
        {"index": 1, "name": "NVIDIA GeForce RTX 5060", "driver_version": "610.74", "compute_cap": "12.0",
         "memory_total_mib": 8151}]


def test_nvidia_smi_memory_not_available():
    gpus = hw.parse_nvidia_smi("NVIDIA B200, 580.105.08, 10.0, [N/A]\n")
    assert gpus[0]["memory_total_mib"] is None and gpus[0]["compute_cap"] == "10.0"


@pytest.mark.parametrize("message", [
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest "
    "NVIDIA driver is installed and running.",
    "Failed to initialize NVML: Driver/library version mismatch"])
def test_nvidia_smi_failure_text_is_not_taken_for_a_gpu(message):
    with pytest.raises(ValueError, match="unexpected nvidia-smi line"):
        hw.parse_nvidia_smi(message)
