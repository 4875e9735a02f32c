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
    # The whole stack read in one task: none of the converging steps ran.
    assert run.result("Read what the host lacks", HOST)["owes"] == []
    assert not run.ran("Install the NVIDIA driver") and not run.ran("Add NVIDIA's CUDA repository")
    assert run.says("8 GPUs, driver 580.105.08")


def test_drift_in_a_file_or_a_daemon_is_found_and_put_back_without_a_reboot(host):
    pin = "/etc/apt/preferences.d/gpufleet-nvidia-driver"
    wanted = host.file(pin).content_string
    host.run("sed -i 's/Pin-Priority: 1000/Pin-Priority: 500/' %s && systemctl stop nvidia-fabricmanager" % pin)
    before = boot(host)
    run = run_role(HOST, {})
    assert run.returncode == 0, str(run)
    assert sorted(run.result("Read what the host lacks", HOST)["owes"]) == [
        "%s differs from its template" % pin, "nvidia-fabricmanager is not running"]
    assert run.changed(HOST) == 2  # the pin file, the daemon
    assert host.file(pin).content_string == wanted
    assert host.service("nvidia-fabricmanager").is_running
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
