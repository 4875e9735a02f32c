"""Repository paths and driver package names, as NVIDIA's driver installation guide gives them."""

import hashlib

import pytest
from ansible.modules.deb822_repository import format_multiline

from ansible_collections.gpufleet.sglang.plugins.module_utils._nvidia_driver import (
    driver_packages, repository_path, stack_wanted)


@pytest.mark.parametrize("distribution, version, machine, path", [
    ("Ubuntu", "22.04", "x86_64", "ubuntu2204/x86_64"),
    ("Ubuntu", "24.04", "aarch64", "ubuntu2404/sbsa"),
    ("Debian", "12.8", "x86_64", "debian12/x86_64"),
    ("Debian", "13", "x86_64", "debian13/x86_64")])
def test_repository_path(distribution, version, machine, path):
    assert repository_path(distribution, version, machine) == path


@pytest.mark.parametrize("distribution, version, machine, message", [
    ("Ubuntu", "20.04", "x86_64", "set cuda_repo_path to the repository part"),
    ("Rocky", "9.4", "x86_64", "no CUDA repository for Rocky 9.4"),
    ("Debian", "12", "ppc64le", "ppc64le architecture")])
def test_unsupported_hosts_say_what_to_do(distribution, version, machine, message):
    with pytest.raises(ValueError, match=message):
        repository_path(distribution, version, machine)


@pytest.mark.parametrize("repository, branch, flavor, profile, packages", [
    ("debian12", "580", "open", "compute", ["nvidia-driver-cuda", "nvidia-kernel-open-dkms", "nvidia-persistenced"]),
    ("debian12", "590", "proprietary", "compute", ["nvidia-driver-cuda", "nvidia-kernel-dkms", "nvidia-persistenced"]),
    ("debian13", "580", "open", "full", ["nvidia-open"]),
    ("ubuntu2404", "580", "open", "compute",
     ["libnvidia-compute-580", "nvidia-dkms-580-open", "nvidia-utils-580", "nvidia-compute-utils-580"]),
    ("ubuntu2404", "580", "open", "full", ["nvidia-driver-580-open"]),
    ("ubuntu2204", "570", "proprietary", "full", ["nvidia-driver-570"]),
    ("ubuntu2404", "590", "open", "compute",
     ["libnvidia-compute", "nvidia-dkms-open", "nvidia-utils", "nvidia-compute-utils"]),
    ("ubuntu2404", "595", "open", "full", ["nvidia-driver-open"])])
def test_driver_packages(repository, branch, flavor, profile, packages):
    assert driver_packages(repository, branch, flavor, profile) == packages


DEFAULTS = {"repo_url": "https://developer.download.nvidia.com/compute/cuda/repos", "repo_path": "", "repo_key": "",
            "driver_branch": "580", "driver_flavor": "open", "driver_profile": "compute", "driver_pin": "package",
            "driver_packages": [], "kernel_headers_package": "linux-headers-6.1.0-28-amd64", "fabricmanager": "auto",
            "fabricmanager_packages": ["nvidia-fabricmanager", "nvlsm", "libnvsdm"], "dcgm": False,
            "dcgm_package": "datacenter-gpu-manager-4-cuda13", "toolkit_version": "12.8"}
DEBIAN = {"distribution": "Debian", "distribution_version": "12.8", "architecture": "x86_64"}


def wanted(facts=None, recommended=False, **settings):
    return stack_wanted(dict(DEFAULTS, **settings), facts or DEBIAN, recommended)


def test_the_role_defaults_on_debian_12():
    uri = "https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/"
    key_file = "/etc/apt/keyrings/gpufleet-cuda-%s.asc" % hashlib.sha256((uri + "3bf863cc.pub").encode()).hexdigest()[:16]
    assert wanted() == {
        "repo_uri": uri, "repo_key": uri + "3bf863cc.pub", "key_file": key_file, "signed_by": key_file,
        "files": [{"path": "/etc/apt/sources.list.d/cuda.sources", "mode": "0644",
                   "lines": ["Types: deb", "URIs: " + uri, "Suites: /", "Signed-By: " + key_file]},
                  {"path": key_file, "mode": "0644", "owner": "root", "group": "root"}],
        "legacy_sources": ["/etc/apt/sources.list.d/cuda-debian12-x86_64.list", "/etc/apt/sources.list.d/cuda.list"],
        "driver_packages": ["nvidia-driver-cuda", "nvidia-kernel-open-dkms", "nvidia-persistenced"],
        "fabricmanager": False,
        "packages": ["python3-debian", "dkms", "linux-headers-6.1.0-28-amd64", "nvidia-driver-pinning-580",
                     "nvidia-driver-cuda", "nvidia-kernel-open-dkms", "nvidia-persistenced", "cuda-toolkit-12-8"],
        "toolkit_package": "cuda-toolkit-12-8",
        "daemons": ["nvidia-persistenced"]}


def test_a_new_key_url_is_a_new_key_file_and_a_new_source():
    one = wanted(repo_key="https://mirror.example/cuda/key-1.pub")
    two = wanted(repo_key="https://mirror.example/cuda/key-2.pub")
    assert one["key_file"] != two["key_file"]
    assert one["files"][0]["lines"][-1] == "Signed-By: " + one["key_file"]
    assert two["files"][1]["path"] == two["key_file"]


@pytest.mark.parametrize("key", [
    "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQINBF\n  abc  \n-----END PGP PUBLIC KEY BLOCK-----\n",
    "\n  -----BEGIN PGP PUBLIC KEY BLOCK-----\r\nmQINBF\r\n\r\n-----END PGP PUBLIC KEY BLOCK-----  \n\n"])
def test_a_key_given_as_text_is_read_as_deb822_repository_writes_it(key):
    """Its lines are those ansible.builtin.deb822_repository writes (its own format_multiline), so that the read
    of a host that has the source finds it (0.2.1 expected the text unindented, found it missing on every run, and
    went through every step of the role's converge each time)."""
    lines = wanted(repo_key=key)["files"]
    written = "Signed-By:" + format_multiline(key)
    assert lines == [lines[0]] and lines[0]["lines"][3:] == written.splitlines()
    assert wanted(repo_key=key)["key_file"] == ""


def test_a_key_given_as_a_path_on_the_host_is_named_as_it_is():
    assert wanted(repo_key="/usr/share/keyrings/cuda.gpg")["files"][0]["lines"][-1] == \
        "Signed-By: /usr/share/keyrings/cuda.gpg"


def test_fabric_manager_auto_follows_the_pci_bus_and_needs_it_read():
    with pytest.raises(ValueError, match="the PCI bus was not read"):
        wanted(recommended=None)
    nvswitch = wanted(recommended=True, dcgm=True)
    assert nvswitch["fabricmanager"] is True
    assert nvswitch["daemons"] == ["nvidia-persistenced", "nvidia-fabricmanager", "nvidia-dcgm"]
    assert nvswitch["packages"][-5:] == ["nvidia-fabricmanager", "nvlsm", "libnvsdm", "datacenter-gpu-manager-4-cuda13",
                                         "cuda-toolkit-12-8"]
    assert wanted(recommended=True, fabricmanager="false")["fabricmanager"] is False
    assert wanted(recommended=None, fabricmanager="yes")["fabricmanager"] is True


def test_driver_packages_given_replace_the_branchs_and_no_toolkit_means_none():
    given = wanted(driver_packages=["nvidia-a", "nvidia-b"], fabricmanager="true", fabricmanager_packages=["fm1"],
                   toolkit_version="")
    assert given["driver_packages"] == ["nvidia-a", "nvidia-b"]
    assert given["packages"] == ["python3-debian", "dkms", "linux-headers-6.1.0-28-amd64", "nvidia-driver-pinning-580",
                                 "nvidia-a", "nvidia-b", "fm1"]
    assert given["toolkit_package"] == ""


def test_a_repository_path_set_by_hand_wins_over_the_facts():
    mirror = wanted(facts={"distribution": "Rocky", "distribution_version": "9.4", "architecture": "x86_64"},
                    repo_path="ubuntu2404/sbsa", repo_url="https://mirror.example/cuda//", driver_pin="none")
    assert mirror["repo_uri"] == "https://mirror.example/cuda/ubuntu2404/sbsa/"
    assert mirror["legacy_sources"][0] == "/etc/apt/sources.list.d/cuda-ubuntu2404-sbsa.list"
    assert mirror["driver_packages"][0] == "libnvidia-compute-580" and "nvidia-driver-pinning-580" not in mirror["packages"]
    with pytest.raises(ValueError, match="set cuda_repo_path"):
        wanted(facts={"distribution": "Rocky", "distribution_version": "9.4", "architecture": "x86_64"})
