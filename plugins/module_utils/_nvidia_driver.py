# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Names in NVIDIA's CUDA apt repositories: the repository path and the driver packages."""

from __future__ import annotations

SUPPORTED_REPOSITORIES = ("ubuntu2204", "ubuntu2404", "debian12", "debian13")
REPOSITORY_ARCHITECTURES = {"x86_64": "x86_64", "aarch64": "sbsa", "arm64": "sbsa"}
# From branch 590 on, NVIDIA's Ubuntu packages drop the branch from their names.
UBUNTU_UNBRANCHED_FROM = 590


def repository_path(distribution, version, architecture):
    """``ubuntu2404/x86_64``, ``debian12/sbsa``...: where the host's packages live under the repository URL."""
    family = distribution.lower()
    if family == "ubuntu":
        name = "ubuntu" + version.replace(".", "")
    elif family == "debian":
        name = "debian" + version.split(".")[0]
    else:
        name = family + version
    if name not in SUPPORTED_REPOSITORIES:
        raise ValueError("NVIDIA publishes no CUDA repository for %s %s here (supported: %s); set "
                         "cuda_repo_path to the repository part to use, such as debian12/x86_64"
                         % (distribution, version, ", ".join(SUPPORTED_REPOSITORIES)))
    if architecture not in REPOSITORY_ARCHITECTURES:
        raise ValueError("no CUDA repository for the %s architecture (supported: x86_64, aarch64)" % architecture)
    return "%s/%s" % (name, REPOSITORY_ARCHITECTURES[architecture])


def driver_packages(repository, branch, flavor, profile):
    """The packages that install driver ``branch`` with the ``open`` or ``proprietary`` kernel modules.

    ``profile`` is ``compute`` (headless: CUDA, NVML, nvidia-smi, persistenced, no display
    stack) or ``full`` (desktop and compute). The first package is the one whose candidate
    version shows whether the branch pin holds.
    """
    branch = int(branch)
    kernel_open = flavor == "open"
    if repository.startswith("debian"):
        if profile == "full":
            return ["nvidia-open" if kernel_open else "cuda-drivers"]
        return ["nvidia-driver-cuda", "nvidia-kernel-open-dkms" if kernel_open else "nvidia-kernel-dkms",
                "nvidia-persistenced"]
    suffix = "" if branch >= UBUNTU_UNBRANCHED_FROM else "-%d" % branch
    if profile == "full":
        return ["nvidia-driver%s%s" % (suffix, "-open" if kernel_open else "")]
    return ["libnvidia-compute%s" % suffix, "nvidia-dkms%s%s" % (suffix, "-open" if kernel_open else ""),
            "nvidia-utils%s" % suffix, "nvidia-compute-utils%s" % suffix]
