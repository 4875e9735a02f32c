"""The patched SGLang 0.5.9 on the test host."""

import json

import pytest

testinfra_hosts = ["gpufleet-patch-1"]
VENV_PYTHON = "/opt/sglang/venv/bin/python"
BEGIN = "# BEGIN gpufleet.sglang delegation_patch"
EAGLE3 = ("get_embed_and_head", "set_eagle3_layers_to_capture", "set_embed_and_head")


@pytest.fixture
def kimi_file(host):
    root = host.check_output(
        VENV_PYTHON + " -c \"import importlib.util; print(importlib.util.find_spec('sglang').submodule_search_locations[0])\"")
    return host.file(root + "/srt/models/kimi_k25.py")


def test_sglang_059_installed(host):
    dist = host.check_output(VENV_PYTHON + " -m pip show sglang")
    assert "Version: 0.5.9" in dist


def test_patched_file_has_one_block_with_the_three_delegations(host, kimi_file):
    text = kimi_file.content_string
    assert text.count(BEGIN) == 1
    for name in EAGLE3:
        assert "    def %s(self, *args, **kwargs):\n        return self.language_model.%s(*args, **kwargs)" % (
            name, name) in text
    assert kimi_file.user == "root" and kimi_file.group == "root"
    assert kimi_file.mode == 0o644


def test_a_patch_in_a_venv_no_server_runs_owes_no_restart(host):
    # No unit runs this venv here; where one does, the patch records the restart it owes
    # (the upgrade scenario's test_without_outage.py sees it done batch by batch).
    assert not host.file("/etc/sglang/staged/kimi-k25.restart").exists


def test_patched_file_compiles_with_the_venv_python(host, kimi_file):
    host.check_output(VENV_PYTHON + " -m py_compile " + kimi_file.path)


def test_no_temporary_files_left(host, kimi_file):
    directory = kimi_file.path.rsplit("/", 1)[0]
    leftovers = host.check_output("ls -A " + directory).split()
    assert not [name for name in leftovers if name.startswith(".kimi_k25")]


def test_the_class_has_every_method_in_its_ast(host, kimi_file):
    script = (
        "import ast, json, sys; t = ast.parse(open(sys.argv[1]).read()); "
        "c = [n for n in t.body if isinstance(n, ast.ClassDef) and n.name == 'KimiK25ForConditionalGeneration'][0]; "
        "print(json.dumps([n.name for n in c.body if isinstance(n, ast.FunctionDef)]))")
    names = json.loads(host.check_output("%s -c \"%s\" %s" % (VENV_PYTHON, script, kimi_file.path)))
    for name in EAGLE3:
        assert names.count(name) == 1
