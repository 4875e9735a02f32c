# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Names in NVIDIA's CUDA apt repositories: the repository path and the driver packages, and what the cuda_driver
role's settings ask of a host."""

from __future__ import annotations

import hashlib
import re

from ansible.module_utils.parsing.convert_bool import boolean

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


# Where apt finds NVIDIA's repository, and where cuda-keyring and older install guides left their own source
# for it (apt refuses two sources that disagree on Signed-By).
SOURCE_FILE = "/etc/apt/sources.list.d/cuda.sources"
KEYRINGS = "/etc/apt/keyrings"
KEY_NAME = "3bf863cc.pub"


def _signed_by_lines(signed_by):
    """The Signed-By field as ansible.builtin.deb822_repository writes it: one line, or the key's text indented
    below it (an empty line as ``.``)."""
    lines = signed_by.splitlines()
    if len(lines) < 2:
        return ["Signed-By: " + signed_by]
    return ["Signed-By:"] + ["    " + (line.strip() or ".") for line in lines]


def stack_wanted(settings, facts, fabric_manager_recommended=None):
    """What gpufleet.sglang.cuda_driver's settings ask of a host: NVIDIA's repository (its URI, its key and the
    source file that names both), the packages, the daemons, and the sources to remove.

    ``settings`` holds the role's variables without their ``cuda_`` prefix, read as their types (lists, a bool for
    ``dcgm``; ``fabricmanager`` is ``auto`` or a boolean); ``facts`` the host's distribution,
    version and architecture; ``fabric_manager_recommended`` what the PCI bus says (needed when ``fabricmanager``
    is ``auto``). A key given by URL is fetched to a file named by the URL's SHA-256, which Signed-By names: a new
    key URL is a new file and a new source. A key given as text (or a path on the host) goes into the source.
    """
    path = settings["repo_path"] or repository_path(facts["distribution"], facts["distribution_version"],
                                                    facts["architecture"])
    uri = "%s/%s/" % (settings["repo_url"].rstrip("/"), path)
    key = settings["repo_key"] or uri + KEY_NAME
    by_url = re.match(r"^https?://", key) is not None
    key_file = "%s/gpufleet-cuda-%s.asc" % (KEYRINGS, hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]) \
        if by_url else ""
    signed_by = key_file or key.strip()

    fabricmanager = settings["fabricmanager"]
    if str(fabricmanager).lower() == "auto":
        if fabric_manager_recommended is None:
            raise ValueError("cuda_fabricmanager is auto, and the PCI bus was not read yet to decide it")
        fabricmanager = bool(fabric_manager_recommended)
    else:
        fabricmanager = boolean(fabricmanager, strict=False)
    dcgm = bool(settings["dcgm"])
    toolkit = str(settings["toolkit_version"])

    driver = list(settings["driver_packages"]) or driver_packages(
        path.split("/")[0], settings["driver_branch"], settings["driver_flavor"], settings["driver_profile"])
    packages = ["python3-debian", "dkms", settings["kernel_headers_package"]]
    packages += ["nvidia-driver-pinning-%s" % settings["driver_branch"]] if settings["driver_pin"] == "package" else []
    packages += driver
    packages += list(settings["fabricmanager_packages"]) if fabricmanager else []
    packages += [settings["dcgm_package"]] if dcgm else []
    toolkit_package = "cuda-toolkit-" + toolkit.replace(".", "-") if toolkit else ""
    packages += [toolkit_package] if toolkit else []
    daemons = ["nvidia-persistenced"] + (["nvidia-fabricmanager"] if fabricmanager else []) + (["nvidia-dcgm"] if dcgm else [])

    source = {"path": SOURCE_FILE, "mode": "0644",
              "lines": ["Types: deb", "URIs: " + uri, "Suites: /"] + _signed_by_lines(signed_by)}
    key_entry = [{"path": key_file, "mode": "0644", "owner": "root", "group": "root"}] if key_file else []
    return {
        "repo_uri": uri,
        "repo_key": key,
        "key_file": key_file,
        "signed_by": signed_by,
        "files": [source] + key_entry,
        "legacy_sources": ["/etc/apt/sources.list.d/cuda-%s.list" % path.replace("/", "-"),
                           "/etc/apt/sources.list.d/cuda.list"],
        "driver_packages": driver,
        "fabricmanager": fabricmanager,
        "packages": packages,
        "toolkit_package": toolkit_package,
        "daemons": daemons,
    }
