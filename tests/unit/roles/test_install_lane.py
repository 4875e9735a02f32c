"""The install role refuses a PyTorch index of the other CUDA lane than the release's, in both directions,
before it reads or changes anything (the lanes themselves are read from the real wheels in
tests/real_sglang/test_cuda_lanes.py)."""

import json
import os

import pytest

from gpufleet_testlib import ROOT
from gpufleet_testlib.playbook import run_playbook

PLAYBOOK = os.path.join(ROOT, "tests", "unit", "roles", "install_lane.yml")
REFUSALS = "Refuse a version that is not exact"


def refusal(tmp_path, version, index):
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(json.dumps({"all": {"hosts": {"gpu-01": {}}}}))
    run = run_playbook(PLAYBOOK, str(inventory), [{"sglang_version": version, "sglang_torch_index_url": index}],
                       args=["--check"], env={"ANSIBLE_COLLECTIONS_PATH": os.path.join(ROOT, ".collections")})
    result = run.result(REFUSALS, "gpu-01")
    assert result is not None, run.stderr[-2000:]
    return result


@pytest.mark.parametrize("version, index, lane", [
    ("0.5.9", "https://pypi.internal.example/torch/cu130", "CUDA 12"),
    ("0.5.10", "https://download.pytorch.org/whl/cu130/", "CUDA 12"),
    ("0.5.11", "https://download.pytorch.org/whl/cu128", "CUDA 13"),
    ("0.5.23", "https://pypi.internal.example/torch/cu129", "CUDA 13"),
    ("0.5.10.post1", "https://download.pytorch.org/whl/cu130", "CUDA 12"),  # a post release is its release's lane
    ("0.5.11rc1", "https://download.pytorch.org/whl/cu128", "CUDA 13"),
])
def test_an_index_of_the_other_lane_is_refused_naming_the_release_lane(tmp_path, version, index, lane):
    result = refusal(tmp_path, version, index)
    assert result.get("failed"), result
    assert "SGLang %s is built for %s" % (version, lane) in result["msg"], result["msg"]


@pytest.mark.parametrize("version, index", [
    ("0.5.9", "https://download.pytorch.org/whl/cu128"), ("0.5.23", "https://download.pytorch.org/whl/cu130"),
    ("0.5.23", ""), ("0.5.10.post1", "https://download.pytorch.org/whl/cu128"),
])
def test_the_release_lane_passes(tmp_path, version, index):
    assert not refusal(tmp_path, version, index).get("failed")
