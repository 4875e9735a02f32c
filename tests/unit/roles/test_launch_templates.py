"""The launch role's unit, config and env files for settings the container tests do not use:
multi-node tensor parallelism, extra flags, quoting, hardening switched off, secrets."""

import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))


def render(tmp_path, extra, inventory=None):
    inventory_file = tmp_path / "hosts.yml"
    inventory_file.write_text(json.dumps(inventory or {"all": {"hosts": {"gpu-01": {}}}}))
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".collections"), ANSIBLE_NOCOLOR="1")
    extra = dict(extra, render_dir=str(tmp_path / "out"), ansible_python_interpreter=sys.executable)
    # The ansible-playbook of the interpreter running the tests, whatever PATH says.
    ansible_playbook = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")
    result = subprocess.run([ansible_playbook, "-i", str(inventory_file), os.path.join(HERE, "render_unit.yml"),
                             "-e", json.dumps(extra)], capture_output=True, text=True, env=env, check=False)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return lambda host, name: (tmp_path / "out" / host / name).read_text()


def exec_start(unit):
    lines = unit.split("ExecStart=", 1)[1].split("\n")
    joined = []
    for line in lines:
        joined.append(line.rstrip("\\").strip())
        if not line.endswith("\\"):
            break
    return " ".join(joined)


def test_multi_node_group_derives_nnodes_rank_and_rendezvous(tmp_path):
    inventory = {"all": {"children": {"kimi_tp16": {"hosts": {
        "gpu-01": {"ansible_host": "10.40.0.11"}, "gpu-02": {"ansible_host": "10.40.0.12"}}}}}}
    files = render(tmp_path, {"sglang_tp_group": "kimi_tp16", "sglang_tp_size": 16}, inventory)
    first, second = exec_start(files("gpu-01", "sglang.service")), exec_start(files("gpu-02", "sglang.service"))
    assert "--tp-size 16 " in first
    assert "--nnodes 2 --node-rank 0 --dist-init-addr 10.40.0.11:50000" in first
    assert "--nnodes 2 --node-rank 1 --dist-init-addr 10.40.0.11:50000" in second


def test_single_node_has_no_multi_node_flags(tmp_path):
    unit = render(tmp_path, {})("gpu-01", "sglang.service")
    assert "--nnodes" not in unit and "--node-rank" not in unit


def test_extra_args_booleans_lists_and_quoting(tmp_path):
    unit = render(tmp_path, {"sglang_extra_args": {"attention-backend": "triton", "enable-torch-compile": True,
                                                   "disable-radix-cache": False, "cuda-graph-bs": [1, 2, 4]},
                             "sglang_model_path": "/srv/models/Kimi K2.5"})("gpu-01", "sglang.service")
    line = exec_start(unit)
    assert "--attention-backend triton" in line
    assert "--enable-torch-compile" in line and "--disable-radix-cache" not in line
    assert "--cuda-graph-bs 1 2 4" in line
    assert '--model-path "/srv/models/Kimi K2.5"' in line


def test_secrets_go_to_the_config_and_env_files_only(tmp_path):
    files = render(tmp_path, {"sglang_api_key": "k3y\"with'quotes", "sglang_admin_api_key": "adm1n",
                              "sglang_hf_token": "hf_secret"})
    unit = files("gpu-01", "sglang.service")
    for secret in ("k3y", "adm1n", "hf_secret"):
        assert secret not in unit
    assert "--config /etc/sglang/kimi-k25.yaml" in exec_start(unit)
    config = files("gpu-01", "sglang.yaml")
    assert 'api-key: "k3y\\"with\'quotes"' in config
    assert 'admin-api-key: "adm1n"' in config
    assert 'HF_TOKEN="hf_secret"' in files("gpu-01", "sglang.env")


@pytest.mark.parametrize("switch, directive", [
    ("sglang_harden_protect_system", "ProtectSystem=strict"),
    ("sglang_harden_system_call_filter", "SystemCallFilter=@system-service"),
    ("sglang_harden_restrict_namespaces", "RestrictNamespaces=yes"),
])
def test_each_hardening_option_can_be_turned_off(tmp_path, switch, directive):
    assert directive in render(tmp_path, {})("gpu-01", "sglang.service")
    other = tmp_path / "off"
    other.mkdir()
    unit = render(other, {switch: False})("gpu-01", "sglang.service")
    assert directive not in unit
    assert "NoNewPrivileges=yes" in unit or switch == "sglang_harden_no_new_privileges"


def test_never_private_devices_or_memory_deny_write_execute(tmp_path):
    unit = render(tmp_path, {})("gpu-01", "sglang.service")
    directives = [line for line in unit.splitlines() if not line.startswith("#")]
    assert not [line for line in directives if line.startswith(("PrivateDevices=", "MemoryDenyWriteExecute="))]


def test_the_unit_runs_the_staged_directories_offline_and_keeps_the_served_name(tmp_path):
    unit = render(tmp_path, {"sglang_draft_model_revision": "main"})("gpu-01", "sglang.service")
    line = exec_start(unit)
    staged = "/var/lib/sglang/models/weights/%s/" + "0" * 40
    assert "--model-path %s " % (staged % "moonshotai--Kimi-K2.5") in line
    assert "--speculative-draft-model-path %s " % (staged % "AQ-MedAI--Kimi-K25-eagle3") in line
    assert "--served-model-name kimi-k2.5" in line and "--speculative-draft-model-revision" not in line
    assert "Environment=HF_HUB_OFFLINE=1" in unit
