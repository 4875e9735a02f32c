"""The eagle3_audit module, locating sglang through a real venv's interpreter."""

import os
import subprocess
import sys

import pytest

from gpufleet_testlib import sglang_wheels
from gpufleet_testlib.modules import run_module
from ansible_collections.gpufleet.sglang.plugins.modules import eagle3_audit


@pytest.fixture(scope="module")
def venv_059(tmp_path_factory):
    """A venv with the real sglang 0.5.9 wheel installed without its dependencies."""
    venv = str(tmp_path_factory.mktemp("venv-059"))
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    python = os.path.join(venv, "bin", "python")
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                    sglang_wheels.wheel_path("0.5.9")], check=True)
    return python


def test_locates_sglang_without_importing_it(venv_059):
    # Importing sglang would fail here: its dependencies (torch, ...) are not installed.
    assert subprocess.run([venv_059, "-c", "import sglang.srt.models.kimi_k25"], check=False).returncode != 0

    result = run_module(eagle3_audit, dict(python=venv_059), check_mode=True)

    assert result["changed"] is False
    assert result["sglang_version"] == "0.5.9"
    assert result["sglang_root"].endswith("site-packages/sglang")
    assert result["missing"] == ["get_embed_and_head", "set_eagle3_layers_to_capture", "set_embed_and_head"]


def test_python_without_sglang(tmp_path):
    result = run_module(eagle3_audit, dict(python=sys.executable))
    assert result["failed"] is True
    assert "sglang is not installed in the environment of" in result["msg"]


def test_sglang_root_and_python_are_exclusive(pristine_trees):
    result = run_module(eagle3_audit, dict(python=sys.executable, sglang_root=pristine_trees["0.5.9"]))
    assert result["failed"] is True and "mutually exclusive" in result["msg"]


def test_bad_root(tmp_path):
    result = run_module(eagle3_audit, dict(sglang_root=str(tmp_path)))
    assert result["failed"] is True and "not an sglang package directory" in result["msg"]
