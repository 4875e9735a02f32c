"""Build the stand-in for NVIDIA's CUDA apt repository that the cuda_driver tests install from.

NVIDIA's repository cannot be reached from CI, and no container has a GPU. This builds a flat
apt repository laid out like NVIDIA's (``debian12/x86_64/``, and ``debian13/x86_64/`` as a link to it, with ``Packages``, ``Release``,
``InRelease``, ``Release.gpg`` and the signing key as ``3bf863cc.pub``), holding packages with
NVIDIA's names and versions for two driver branches, so that installing from it exercises
the same apt paths as the real one: the key and ``Signed-By``, the branch pinning packages,
a newer branch on offer that the pin must hold back.

The packages hold no driver. What they ship instead:
- ``nvidia-smi`` prints what a fleet of 8x RTX PRO 6000 Blackwell Server Edition prints for the
  role's query, with the package's own driver version; ``/etc/nvidia-standin/gpus.csv``
  (``name, compute_cap, memory`` per line) replaces the fleet;
- ``nvidia-persistenced``, ``nv-fabricmanager`` and ``nv-hostengine`` are daemons that wait,
  under the unit names NVIDIA's packages use;
- ``cuda-toolkit-13-0`` holds an ``nvcc`` that prints its release;
- ``nvidia-driver-pinning-<branch>`` ships an apt preferences file that pins the driver
  packages to ``<branch>.*``, as NVIDIA's pinning packages do.

The signing key is made for each build and thrown away. Usage:
``python3 build.py [OUTPUT_DIR]`` (default ``$GPUFLEET_CACHE/nvidia-standin-repo``); a build
whose recipe (this file) is unchanged is kept.
"""

import gzip
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time

BRANCHES = {"580": "580.105.08", "590": "590.48.01"}
# The toolkits of the two CUDA lanes (SGLang up to 0.5.10: 12.8; from 0.5.11: 13.0), as NVIDIA names them.
TOOLKITS = (("cuda-toolkit-12-8", "12.8.1-1", "12.8"), ("cuda-toolkit-13-0", "13.0.2-1", "13.0"))
REPOSITORY = "debian12/x86_64"
ALSO_SERVES = ("debian13/x86_64",)
KEY_FILE = "3bf863cc.pub"
# The key the repository rotates to (signed by both): the cuda_driver scenario's key-rotation case.
ROTATED_KEY_FILE = "rotated-d42d0685.pub"
DEFAULT_FLEET = "NVIDIA RTX PRO 6000 Blackwell Server Edition, 12.0, 97887 MiB\n" * 8
PINNED = ("nvidia-driver-cuda nvidia-kernel-open-dkms nvidia-kernel-dkms nvidia-persistenced nvidia-open "
          "cuda-drivers nvidia-fabricmanager libnvsdm")

NVIDIA_SMI = r"""#!/bin/sh
# Stand-in for nvidia-smi (gpufleet.sglang tests): answers the cuda_driver role's query only.
set -eu
query="--query-gpu=name,driver_version,compute_cap,memory.total"
if [ "$#" -ne 2 ] || [ "$1" != "$query" ] || [ "$2" != "--format=csv,noheader" ]; then
    echo "stand-in nvidia-smi answers only: nvidia-smi $query --format=csv,noheader" >&2
    exit 2
fi
fleet=/etc/nvidia-standin/gpus.csv
[ -r "$fleet" ] || fleet=/usr/share/nvidia-standin/gpus.csv
while IFS=, read -r name cap memory; do
    [ -n "$name" ] || continue
    echo "$name, @VERSION@,$cap,$memory"
done <"$fleet"
"""

DAEMON = "#!/bin/sh\n# Stand-in for {name} (gpufleet.sglang tests): holds no GPU, only waits.\nexec sleep infinity\n"

UNIT = """[Unit]
Description={description} (gpufleet.sglang stand-in)

[Service]
ExecStart=/usr/bin/{program}

[Install]
WantedBy=multi-user.target
"""

NVCC = """#!/bin/sh
# Stand-in for nvcc (gpufleet.sglang tests).
echo "nvcc: NVIDIA (R) Cuda compiler driver (gpufleet.sglang stand-in)"
echo "Cuda compilation tools, release {release}, V{version}"
"""


def log(message):
    print("nvidia-standin-repo: " + message, file=sys.stderr)


def daemon_package(name, version, program, unit, description, depends=""):
    return {"Package": name, "Version": version, "Depends": depends,
            "files": {"usr/bin/" + program: (DAEMON.format(name=program), 0o755),
                      "lib/systemd/system/%s.service" % unit: (UNIT.format(description=description,
                                                                           program=program), 0o644)}}


def packages():
    """Every package of the repository: (control fields, files) for both branches."""
    found = []
    for branch, driver in BRANCHES.items():
        version = driver + "-1"
        pin = "Package: %s\nPin: version %s.*\nPin-Priority: 1000\n" % (PINNED, branch)
        found += [
            {"Package": "nvidia-driver-pinning-" + branch, "Version": version,
             "Provides": "nvidia-driver-pinning", "Conflicts": "nvidia-driver-pinning",
             "files": {"etc/apt/preferences.d/nvidia-driver-pinning-" + branch: (pin, 0o644)}},
            {"Package": "nvidia-driver-cuda", "Version": version, "Depends": "nvidia-persistenced (= %s)" % version,
             "files": {"usr/bin/nvidia-smi": (NVIDIA_SMI.replace("@VERSION@", driver), 0o755),
                       "usr/share/nvidia-standin/gpus.csv": (DEFAULT_FLEET, 0o644)}},
            {"Package": "nvidia-kernel-open-dkms", "Version": version, "Conflicts": "nvidia-kernel-dkms", "files": {}},
            {"Package": "nvidia-kernel-dkms", "Version": version, "Conflicts": "nvidia-kernel-open-dkms", "files": {}},
            {"Package": "nvidia-open", "Version": version,
             "Depends": "nvidia-driver-cuda (= %s), nvidia-kernel-open-dkms (= %s)" % (version, version), "files": {}},
            {"Package": "cuda-drivers", "Version": version,
             "Depends": "nvidia-driver-cuda (= %s), nvidia-kernel-dkms (= %s)" % (version, version), "files": {}},
            daemon_package("nvidia-persistenced", version, "nvidia-persistenced", "nvidia-persistenced",
                           "NVIDIA Persistence Daemon"),
            daemon_package("nvidia-fabricmanager", version, "nv-fabricmanager", "nvidia-fabricmanager",
                           "NVIDIA fabric manager service", depends="libnvsdm (= %s)" % version),
            {"Package": "libnvsdm", "Version": version, "files": {}},
        ]
    found += [
        {"Package": "nvlsm", "Version": "2025.06.1-1", "files": {}},
        daemon_package("datacenter-gpu-manager-4-cuda13", "1:4.4.1-1", "nv-hostengine", "nvidia-dcgm",
                       "NVIDIA DCGM service"),
    ]
    for name, version, release in TOOLKITS:
        found.append({"Package": name, "Version": version, "files": {
            "usr/local/cuda-%s/bin/nvcc" % release: (NVCC.format(release=release, version=version), 0o755),
            "usr/local/cuda-%s/lib64/README.standin" % release: ("stand-in toolkit: no libraries\n", 0o644)}})
    return found


def build_deb(spec, workdir, outdir):
    root = os.path.join(workdir, spec["Package"] + "_" + spec["Version"])
    os.makedirs(os.path.join(root, "DEBIAN"))
    for path, (content, mode) in spec["files"].items():
        target = os.path.join(root, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w") as handle:
            handle.write(content)
        os.chmod(target, mode)
    conffiles = ["/" + path for path in spec["files"] if path.startswith("etc/")]
    if conffiles:
        with open(os.path.join(root, "DEBIAN", "conffiles"), "w") as handle:
            handle.write("\n".join(conffiles) + "\n")
    fields = [(key, spec[key]) for key in ("Package", "Version", "Provides", "Depends", "Conflicts") if spec.get(key)]
    fields += [("Architecture", "all"), ("Maintainer", "gpufleet.sglang tests <noreply@example.invalid>"),
               ("Section", "NVIDIA"), ("Priority", "optional"),
               ("Description", "stand-in for NVIDIA's %s (gpufleet.sglang tests, holds no driver)" % spec["Package"])]
    control = "".join("%s: %s\n" % field for field in fields)
    with open(os.path.join(root, "DEBIAN", "control"), "w") as handle:
        handle.write(control)
    filename = "%s_%s_all.deb" % (spec["Package"], spec["Version"].split(":")[-1])
    deb = os.path.join(outdir, filename)
    subprocess.run(["dpkg-deb", "--root-owner-group", "-Zgzip", "--build", root, deb], check=True,
                   stdout=subprocess.DEVNULL)
    with open(deb, "rb") as handle:
        data = handle.read()
    return control + "Filename: ./%s\nSize: %d\nMD5sum: %s\nSHA256: %s\n" % (
        filename, len(data), hashlib.md5(data).hexdigest(), hashlib.sha256(data).hexdigest())


def release_file(outdir, names):
    lines = ["Origin: NVIDIA", "Label: NVIDIA CUDA (gpufleet.sglang stand-in)", "Architecture: all",
             "Date: " + time.strftime("%a, %d %b %Y %H:%M:%S UTC", time.gmtime())]
    for title, digest in (("MD5Sum", hashlib.md5), ("SHA256", hashlib.sha256)):
        lines.append(title + ":")
        for name in names:
            with open(os.path.join(outdir, name), "rb") as handle:
                data = handle.read()
            lines.append(" %s %d %s" % (digest(data).hexdigest(), len(data), name))
    return "\n".join(lines) + "\n"


def sign(outdir):
    """InRelease and Release.gpg signed by two keys: the repository's (KEY_FILE) and the one it rotates to
    (ROTATED_KEY_FILE), so that a host trusting either verifies the repository, as during NVIDIA's rotations."""
    home = tempfile.mkdtemp(prefix="gpufleet-gpg-")
    gpg = ["gpg", "--homedir", home, "--batch", "--quiet", "--pinentry-mode", "loopback", "--passphrase", ""]
    try:
        fingerprints = []
        for name in (KEY_FILE, ROTATED_KEY_FILE):
            subprocess.run(gpg + ["--quick-gen-key", "gpufleet.sglang stand-in CUDA repository %s (throwaway)" % name,
                                  "ed25519", "sign", "never"], check=True)
            listing = subprocess.run(gpg + ["--list-secret-keys", "--with-colons"], check=True, capture_output=True,
                                     text=True).stdout
            fingerprints.append([line.split(":")[9] for line in listing.splitlines() if line.startswith("fpr:")
                                 and line.split(":")[9] not in fingerprints][0])
        signers = [word for fingerprint in fingerprints for word in ("--local-user", fingerprint)]
        release = os.path.join(outdir, "Release")
        subprocess.run(gpg + signers + ["--clearsign", "-o", os.path.join(outdir, "InRelease"), release], check=True)
        subprocess.run(gpg + signers + ["--armor", "--detach-sign", "-o", os.path.join(outdir, "Release.gpg"),
                                        release], check=True)
        for name, fingerprint in zip((KEY_FILE, ROTATED_KEY_FILE), fingerprints):
            key = subprocess.run(gpg + ["--armor", "--export", fingerprint], check=True, capture_output=True).stdout
            with open(os.path.join(outdir, name), "wb") as handle:
                handle.write(key)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def build(output):
    with open(__file__, "rb") as handle:
        recipe = hashlib.sha256(handle.read()).hexdigest()[:16]
    stamp = os.path.join(output, "recipe")
    if os.path.exists(stamp) and open(stamp).read().strip() == recipe:
        log("%s is current (recipe %s)" % (output, recipe))
        return
    log("building %s (recipe %s)" % (output, recipe))
    shutil.rmtree(output, ignore_errors=True)
    outdir = os.path.join(output, REPOSITORY)
    os.makedirs(outdir)
    workdir = tempfile.mkdtemp(prefix="gpufleet-debs-")
    try:
        stanzas = [build_deb(spec, workdir, outdir) for spec in packages()]
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    index = "\n".join(stanzas)
    with open(os.path.join(outdir, "Packages"), "w") as handle:
        handle.write(index)
    with gzip.open(os.path.join(outdir, "Packages.gz"), "wt") as handle:
        handle.write(index)
    with open(os.path.join(outdir, "Release"), "w") as handle:
        handle.write(release_file(outdir, ["Packages", "Packages.gz"]))
    sign(outdir)
    # The same packages serve Debian 13 hosts: nothing in them depends on the release.
    for other in ALSO_SERVES:
        os.makedirs(os.path.join(output, os.path.dirname(other)), exist_ok=True)
        os.symlink(os.path.relpath(outdir, os.path.join(output, os.path.dirname(other))), os.path.join(output, other))
    with open(stamp, "w") as handle:
        handle.write(recipe + "\n")
    log("%d packages in %s" % (len(stanzas), outdir))


if __name__ == "__main__":
    cache = os.environ.get("GPUFLEET_CACHE") or os.path.expanduser("~/.cache/gpufleet-sglang")
    build(sys.argv[1] if len(sys.argv) > 1 else os.path.join(cache, "nvidia-standin-repo"))
