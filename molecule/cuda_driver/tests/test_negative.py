"""Runs that must fail, or warn, for the right reason and with a message that says so."""

from gpufleet_testlib.playbook import run_in_scenario


def run_role(target, variables):
    """run_role.yml (the role once more, then its facts) on one host, with a test's variables."""
    return run_in_scenario("run_role.yml", [dict(variables, target=target)])


testinfra_hosts = ["gpufleet-cuda-1"]
HOST = "gpufleet-cuda-1"


def test_proprietary_modules_on_blackwell_fail_before_any_change(host):
    run = run_role(HOST, {"cuda_driver_flavor": "proprietary"})
    assert run.returncode != 0, str(run)
    assert run.says("cuda_driver_flavor is proprietary, but NVIDIA's proprietary kernel modules do not support "
                    "Blackwell and later GPUs")
    assert run.says("this host has 8: given-0 NVIDIA device [10de:2bb5]; given-1")
    assert run.says("Set cuda_driver_flavor: open. Nothing was changed.")
    assert run.changed(HOST) == 0 and not run.ran("Add NVIDIA's CUDA repository")
    assert host.package("nvidia-kernel-open-dkms").is_installed


def test_a_branch_older_than_blackwell_fails_before_any_change(host):
    run = run_role(HOST, {"cuda_driver_branch": "565"})
    assert run.returncode != 0, str(run)
    assert run.says("cuda_driver_branch 565 cannot drive Blackwell GPUs, which need branch 570 or newer")
    assert run.says('Set cuda_driver_branch: "580" (the long-term branch) or newer.')
    assert run.changed(HOST) == 0 and not run.ran("Add NVIDIA's CUDA repository")


def test_a_gpu_count_mismatch_fails_verification_with_both_lists(host):
    run = run_role(HOST, {"cuda_expected_gpu_count": 4})
    assert run.returncode != 0, str(run)
    assert run.says("cuda_expected_gpu_count is 4 but nvidia-smi sees 8 GPUs: 0 NVIDIA RTX PRO 6000 Blackwell Server "
                    "Edition 12.0; 1 NVIDIA RTX PRO 6000")
    assert run.says("The PCI bus (devices) shows 8: given-0 NVIDIA device [10de:2bb5];")
    assert run.changed(HOST) == 0


def test_a_gpu_the_driver_does_not_see_fails_with_both_lists(host):
    run = run_role(HOST, {"cuda_gpu_devices": ["10de:2bb5"] * 9, "cuda_expected_gpu_count": 0})
    assert run.returncode != 0, str(run)
    assert run.says("The PCI bus (devices) shows 9 NVIDIA GPUs but nvidia-smi sees 8. PCI: given-0 NVIDIA device "
                    "[10de:2bb5];")
    assert run.says("given-8 NVIDIA device [10de:2bb5]. nvidia-smi: 0 NVIDIA RTX PRO 6000 Blackwell Server Edition 12.0;")


def test_a_compute_capability_below_the_minimum_fails(host):
    run = run_role(HOST, {"cuda_min_compute_cap": "12.1"})
    assert run.returncode != 0, str(run)
    assert run.says("cuda_min_compute_cap is 12.1, and not every GPU has it")


def test_a_driver_change_without_reboot_says_so_and_skips_verification(host):
    host.run("apt-get remove -y nvidia-kernel-open-dkms")
    run = run_role(HOST, {})
    assert run.returncode == 0, str(run)
    assert run.changed(HOST) >= 1
    assert run.says("REBOOT PENDING: the NVIDIA driver (branch 580) was installed or changed in this run")
    assert not run.ran("Reboot for the new NVIDIA driver")
    assert host.package("nvidia-kernel-open-dkms").is_installed
