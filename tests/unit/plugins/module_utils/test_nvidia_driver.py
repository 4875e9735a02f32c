"""Repository paths and driver package names, as NVIDIA's driver installation guide gives them."""

import pytest

from ansible_collections.gpufleet.sglang.plugins.module_utils._nvidia_driver import driver_packages, repository_path


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
