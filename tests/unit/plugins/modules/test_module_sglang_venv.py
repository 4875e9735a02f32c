"""gpufleet.sglang.sglang_venv against real venvs and real pip, from a local wheelhouse.

The wheels are built here: a package named sglang with nothing in it stands in for the release
(PyPI's sglang pulls torch and GBs of CUDA libraries); pip, the venv and the checks are the real ones.
"""

import base64
import hashlib
import os
import subprocess
import sys
import zipfile

import pytest

from gpufleet_testlib.modules import run_module
from ansible_collections.gpufleet.sglang.plugins.modules import sglang_venv


def build_wheel(directory, version, requires_python=""):
    """sglang-<version>-py3-none-any.whl: its metadata, one module, a RECORD with hashes."""
    files = {
        "sglang/__init__.py": "",
        "sglang-%s.dist-info/METADATA" % version: "Metadata-Version: 2.1\nName: sglang\nVersion: %s\n%s" % (
            version, "Requires-Python: %s\n" % requires_python if requires_python else ""),
        "sglang-%s.dist-info/WHEEL" % version: "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                                               "Tag: py3-none-any\n",
    }
    record = "sglang-%s.dist-info/RECORD" % version
    lines = []
    for name, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        lines.append("%s,sha256=%s,%d" % (name, digest, len(text.encode())))
    files[record] = "\n".join(lines + [record + ",,"]) + "\n"
    with zipfile.ZipFile(os.path.join(directory, "sglang-%s-py3-none-any.whl" % version), "w") as wheel:
        for name, text in files.items():
            wheel.writestr(name, text)


@pytest.fixture
def wheelhouse(tmp_path):
    directory = tmp_path / "wheelhouse"
    directory.mkdir()
    build_wheel(str(directory), "0.0.1")
    build_wheel(str(directory), "0.0.2", requires_python=">=3.99")
    return str(directory)


def args(tmp_path, wheelhouse, version, **extra):
    return dict(dict(version=version, venv=str(tmp_path / "venvs" / ("sglang-" + version)), python=sys.executable,
                     pip_args=["--no-index", "--find-links", wheelhouse], min_free_gb=0), **extra)


def installed(venv):
    out = subprocess.run([os.path.join(venv, "bin", "python"), "-c",
                          "import importlib.metadata as m; print(m.version('sglang'))"], capture_output=True, text=True, check=False)
    return out.stdout.strip()


def test_a_new_venv_is_created_and_installed_once(tmp_path, wheelhouse):
    params = args(tmp_path, wheelhouse, "0.0.1")
    checked = run_module(sglang_venv, params, check_mode=True)
    assert checked["changed"] and checked["created"] and not os.path.exists(params["venv"])
    result = run_module(sglang_venv, params)
    assert result["changed"] and result["created"] and result["previous"] == ""
    assert result["cmd"][-1] == "sglang==0.0.1" and installed(params["venv"]) == "0.0.1"
    again = run_module(sglang_venv, params)
    assert not again["changed"] and again["previous"] == "0.0.1" and "cmd" not in again


def test_a_release_this_python_cannot_run_is_refused_before_pip_installs(tmp_path, wheelhouse):
    params = args(tmp_path, wheelhouse, "0.0.1")
    run_module(sglang_venv, params)
    params["version"] = "0.0.2"  # Requires-Python >=3.99, into the venv that has 0.0.1
    result = run_module(sglang_venv, params)
    assert result["failed"] and result["msg"].startswith("pip refuses sglang==0.0.2 in %s (Python %d.%d." % (
        params["venv"], sys.version_info[0], sys.version_info[1]))
    assert "not in '>=3.99'" in result["msg"] and "Use an older SGLang release" in result["msg"]
    assert installed(params["venv"]) == "0.0.1"


def test_a_disk_without_room_is_refused_before_the_venv_is_created(tmp_path, wheelhouse):
    params = args(tmp_path, wheelhouse, "0.0.1", min_free_gb=1e9)
    result = run_module(sglang_venv, params)
    assert result["failed"] and "%s on " % os.path.dirname(params["venv"]) in result["msg"]
    assert "a new venv for SGLang 0.0.1 needs sglang_venv_min_free_gb=1000000000.0 GB" in result["msg"]
    assert not os.path.exists(params["venv"])
