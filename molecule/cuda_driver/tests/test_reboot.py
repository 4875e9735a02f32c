"""cuda_driver_reboot: true reboots a host whose driver changed, then verifies; an unchanged run does not."""

from conftest import run_role

testinfra_hosts = ["gpufleet-cuda-2"]
HOST = "gpufleet-cuda-2"


def boot(host):
    """PID 1's start time: it changes when the container restarts (a reboot here)."""
    return host.check_output("cut -d' ' -f22 /proc/1/stat")


def test_a_run_that_changes_nothing_does_not_reboot(host):
    before = boot(host)
    rc, out, changed = run_role(HOST, {})
    assert rc == 0 and changed == 0, out
    assert boot(host) == before


def test_a_driver_change_reboots_then_verifies(host):
    host.run("apt-get remove -y nvidia-kernel-open-dkms")
    before = boot(host)
    rc, out, changed = run_role(HOST, {})
    assert rc == 0, out
    assert "RUNNING HANDLER [gpufleet.sglang.cuda_driver : Reboot for the new NVIDIA driver]" in out
    assert "REBOOT PENDING" not in out
    assert "8 GPUs, driver 580.105.08: 0 NVIDIA B200 10.0; 1 NVIDIA B200 10.0;" in out
    assert boot(host) != before
    assert host.service("nvidia-fabricmanager").is_running
