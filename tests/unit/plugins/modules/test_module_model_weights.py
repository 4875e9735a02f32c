"""gpufleet.sglang.model_weights as Ansible runs it, against a real olah mirror: resolve, inspect (check mode
writes nothing), fetch, a path that lacks a file, and the verification before a switch refusing a staged file
that changed since."""

import os

import pytest

from ansible_collections.gpufleet.sglang.plugins.modules import model_weights
from ansible_collections.gpufleet.sglang.plugins.modules import unused_revisions
from gpufleet_testlib import hf_mirror
from gpufleet_testlib.modules import run_module

REPO = "tiny-org/module-model"
FILES = {"config.json": b'{"architectures": ["DeepseekV3ForCausalLM"]}\n', "model.safetensors": os.urandom(100000)}


@pytest.fixture(scope="module")
def mirror(tmp_path_factory):
    server = hf_mirror.Mirror(str(tmp_path_factory.mktemp("olah")))
    server.first, _expected = hf_mirror.commit_files(server.mirrors, REPO, FILES, lfs=("model.safetensors",))
    with server:
        yield server


def staged(mirror, root):
    resolved = run_module(model_weights, {"state": "resolved", "endpoint": mirror.url,
                                          "models": [{"name": "target", "repo": REPO, "revision": "main"}]})
    assert resolved["models"][0]["commit"] == mirror.first and not resolved["changed"]
    args = {"models": resolved["models"], "root": root, "endpoint": mirror.url}
    os.makedirs(root, exist_ok=True)
    assert os.listdir(root) == [] and run_module(model_weights, args, check_mode=True)["verified"] is False
    assert os.listdir(root) == []  # check mode wrote nothing
    plan = run_module(model_weights, args)
    group = __import__("grp").getgrgid(os.getgid()).gr_name
    for item in plan["fetch"]:
        fetched = run_module(model_weights, {"state": "fetched", "file": item, "endpoint": mirror.url, "group": group,
                                             "root": root})
        assert fetched["changed"] and fetched["source"] == mirror.url
    again = run_module(model_weights, args)
    assert again["verified"] and again["fetch"] == [] and not again["changed"]
    return again["models"]


def test_staged_then_verified_before_the_switch_and_refused_once_a_byte_changed(mirror, tmp_path):
    models = staged(mirror, str(tmp_path))
    assert run_module(model_weights, {"models": models})["verified"]
    with open(os.path.join(models[0]["dir"], "model.safetensors"), "r+b") as handle:
        handle.write(b"\xff")
    refused = run_module(model_weights, {"models": models})
    assert refused["failed"]
    assert refused["msg"].startswith("target %s: model.safetensors has sha256 " % models[0]["dir"])
    assert "Nothing was changed and the server was not touched" in refused["msg"]


def test_each_model_says_the_commit_it_is_at_by_its_name(mirror, tmp_path):
    """What the lifecycle records as the commit the server runs (the revision asked for may be a branch)."""
    models = staged(mirror, str(tmp_path / "root"))
    plain = tmp_path / "draft"
    plain.mkdir()
    (plain / "config.json").write_text('{"architectures": ["LlamaForCausalLMEagle3"]}\n')
    result = run_module(model_weights, {"models": models + [{"name": "draft", "path": str(plain)}]})
    assert result["commits"] == {"target": mirror.first, "draft": ""}, result
    staged_as_path = run_module(model_weights, {"models": [{"name": "draft", "path": models[0]["dir"]}]})
    assert staged_as_path["commits"] == {"draft": mirror.first}, staged_as_path


def test_a_path_without_the_model_fails_naming_it(tmp_path):
    result = run_module(model_weights, {"models": [{"name": "draft", "path": str(tmp_path)}]})
    assert result["failed"] and result["msg"].startswith("draft %s: config.json is missing." % tmp_path)


def test_prune_keeps_what_a_unit_names(mirror, tmp_path):
    """The staged weights' layout as gpufleet.sglang.unused_revisions prunes it (roles/launch/tasks/prune_weights.yml)."""
    models = staged(mirror, str(tmp_path / "root"))
    unit = tmp_path / "sglang-x.service"
    unit.write_text("ExecStart=python -m sglang.launch_server --model-path %s\n" % models[0]["dir"])
    args = {"parents": [os.path.dirname(models[0]["dir"])], "pattern": "[0-9a-f]{40}", "keep": 0,
            "units": [str(tmp_path / "*.service")]}
    kept = run_module(unused_revisions, args)
    assert not kept["changed"] and kept["removed"] == []
    unit.write_text("")
    assert run_module(unused_revisions, args, check_mode=True)["removed"] == [models[0]["dir"]]
    assert os.path.isdir(models[0]["dir"])
    assert run_module(unused_revisions, args)["changed"] and not os.path.exists(models[0]["dir"])


def test_a_peer_server_needs_the_address_it_listens_on(tmp_path):
    """The peer server answers with a bearer token over plain HTTP: no default of every address."""
    result = run_module(model_weights, {"state": "serving", "root": str(tmp_path), "peer_token": "t" * 32})
    assert result["failed"] and "state is serving but all of the following are missing: address" in result["msg"]
    planned = run_module(model_weights, {"state": "serving", "root": str(tmp_path), "peer_token": "t" * 32,
                                         "address": "10.0.0.11"}, check_mode=True)
    assert planned["changed"] and planned["listen"] == "10.0.0.11:18431"
