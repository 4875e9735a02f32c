"""What the cuda_driver role leaves on the two hosts (after converge and the reboot)."""

import hashlib
import os
import re

from gpufleet_testlib.playbook import run_in_scenario


def run_role(target, variables):
    """run_role.yml (the role once more, then its facts) on one host, with a test's variables."""
    return run_in_scenario("run_role.yml", [dict(variables, target=target)])


REPO = os.path.join(os.environ.get("GPUFLEET_CACHE") or os.path.expanduser("~/.cache/gpufleet-sglang"),
                    "nvidia-standin-repo", "debian12", "x86_64")
testinfra_hosts = ["gpufleet-cuda-1", "gpufleet-cuda-2"]


URI = "http://gpufleet-cuda-repo:8080/debian12/x86_64/"


def key_file(url):
    """Where the role puts a key given by URL: a file named by the URL's SHA-256."""
    return "/etc/apt/keyrings/gpufleet-cuda-%s.asc" % hashlib.sha256(url.encode()).hexdigest()[:16]


def assert_signed_by(host, key_url, key_name):
    source = host.file("/etc/apt/sources.list.d/cuda.sources").content_string
    assert "URIs: " + URI in source and "Suites: /" in source
    assert "Signed-By: %s\n" % key_file(key_url) in source, source
    with open(os.path.join(REPO, key_name)) as handle:
        assert host.file(key_file(key_url)).content_string == handle.read()


def test_repository_is_a_deb822_source_signed_by_its_own_key(host):
    assert_signed_by(host, URI + "3bf863cc.pub", "3bf863cc.pub")
    assert not host.file("/etc/apt/sources.list.d/cuda-debian12-x86_64.list").exists


def test_the_pin_holds_while_the_repository_offers_a_newer_branch(host):
    policy = host.check_output("apt-cache policy nvidia-driver-cuda")
    assert "Installed: 580.105.08-1" in policy
    assert "Candidate: 580.105.08-1" in policy
    assert "590.48.01-1" in policy  # offered, and held back


def test_apt_upgrade_does_not_move_the_driver(host):
    simulated = host.check_output("apt-get -s dist-upgrade")
    assert not re.search(r"^Inst (nvidia|libnvidia|libnvsdm)", simulated, re.M), simulated


def test_each_host_uses_its_pinning_mechanism(host):
    pinning_package = host.package("nvidia-driver-pinning-580")
    preferences = host.file("/etc/apt/preferences.d/gpufleet-nvidia-driver")
    if host.backend.get_hostname() == "gpufleet-cuda-1":
        assert pinning_package.is_installed and not preferences.exists
    else:
        assert not pinning_package.is_installed
        assert "Pin: version 580.*\nPin-Priority: 1000" in preferences.content_string


def test_open_kernel_modules_and_dkms(host):
    assert host.package("nvidia-kernel-open-dkms").is_installed
    assert not host.package("nvidia-kernel-dkms").is_installed
    assert host.package("dkms").is_installed


def test_nouveau_is_blacklisted(host):
    blacklist = host.file("/etc/modprobe.d/gpufleet-blacklist-nouveau.conf").content_string
    assert "blacklist nouveau\noptions nouveau modeset=0\n" in blacklist


def test_persistenced_is_enabled_and_running_after_the_reboot(host):
    service = host.service("nvidia-persistenced")
    assert service.is_enabled and service.is_running


def test_fabric_manager_and_dcgm_only_where_wanted(host):
    hgx = host.backend.get_hostname() == "gpufleet-cuda-2"
    assert host.package("nvidia-fabricmanager").is_installed is hgx
    assert host.package("nvlsm").is_installed is hgx
    assert host.package("datacenter-gpu-manager-4-cuda13").is_installed is hgx
    if hgx:
        assert host.service("nvidia-fabricmanager").is_enabled and host.service("nvidia-fabricmanager").is_running
        assert host.service("nvidia-dcgm").is_running


def test_toolkit_on_login_shells_paths(host):
    assert host.package("cuda-toolkit-12-8").is_installed  # the default: the default SGLang release's lane
    assert not host.package("cuda").is_installed
    shell = host.check_output("bash -lc 'echo \"$PATH|$LD_LIBRARY_PATH\"; nvcc --version'")
    assert "/usr/local/cuda-12.8/bin:" in shell
    assert "|/usr/local/cuda-12.8/lib64" in shell
    assert "release 12.8" in shell


def test_gpu_facts(host):
    name = host.backend.get_hostname()
    run = run_role(name, {})
    assert run.returncode == 0, str(run)
    assert run.changed(name) == 0
    facts = run.result("Show the GPU facts", name)["cuda_gpus"]
    assert len(facts) == 8
    expected = ({"name": "NVIDIA RTX PRO 6000 Blackwell Server Edition", "compute_cap": "12.0",
                 "memory_total_mib": 97887} if name == "gpufleet-cuda-1" else
                {"name": "NVIDIA B200", "compute_cap": "10.0", "memory_total_mib": 183359})
    for index, gpu in enumerate(facts):
        assert gpu == dict(expected, index=index, driver_version="580.105.08")


def test_the_role_needs_no_sglang_and_no_router(host):
    """A GPU host with neither (this scenario's inventory names no SGLang setting and no router group): the
    role runs alone, nothing but its own tasks, and no other role of the collection is loaded."""
    name = host.backend.get_hostname()
    run = run_role(name, {})
    assert run.returncode == 0, str(run)
    roles = set(task.split(" : ", 1)[0] for task, _host, _result in run.results() if " : " in task)
    assert roles == {"gpufleet.sglang.cuda_driver"}, roles
    assert not any(task.startswith("gpufleet.sglang.common") for task, _host, _result in run.results())
    with open(os.environ["MOLECULE_INVENTORY_FILE"]) as handle:
        inventory = handle.read()
    assert "sglang_" not in inventory and "routers" not in inventory
