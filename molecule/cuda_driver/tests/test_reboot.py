"""cuda_driver_reboot: true reboots a host whose driver changed, then verifies; an unchanged run does not."""

from gpufleet_testlib.playbook import run_in_scenario


def run_role(target, variables):
    """run_role.yml (the role once more, then its facts) on one host, with a test's variables."""
    return run_in_scenario("run_role.yml", [dict(variables, target=target)])


testinfra_hosts = ["gpufleet-cuda-2"]
HOST = "gpufleet-cuda-2"


def boot(host):
    """PID 1's start time: it changes when the container restarts (a reboot here)."""
    return host.check_output("cut -d' ' -f22 /proc/1/stat")


def test_a_run_that_changes_nothing_does_not_reboot(host):
    before = boot(host)
    run = run_role(HOST, {})
    assert run.returncode == 0 and run.changed(HOST) == 0, str(run)
    assert boot(host) == before


def test_a_driver_change_reboots_then_verifies(host):
    host.run("apt-get remove -y nvidia-kernel-open-dkms")
    before = boot(host)
    run = run_role(HOST, {})
    assert run.returncode == 0, str(run)
    assert run.ran("Reboot for the new NVIDIA driver", HOST)
    assert not run.says("REBOOT PENDING")
    assert run.says("8 GPUs, driver 580.105.08: 0 NVIDIA B200 10.0; 1 NVIDIA B200 10.0;")
    assert boot(host) != before
    assert host.service("nvidia-fabricmanager").is_running
