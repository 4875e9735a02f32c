"""The checks that keep generated documentation honest fail when it is stale."""

import os
import re
import shutil
import subprocess

import pytest
import yaml

from gpufleet_testlib import ROOT


def docs_check(tree):
    return subprocess.run(["bash", os.path.join(tree, "scripts", "docs.sh"), "--check"],
                          capture_output=True, text=True, check=False)


def test_a_role_readme_that_no_longer_matches_its_spec_fails_the_check(tmp_path):
    tree = str(tmp_path)
    for name in ("scripts", "roles", os.path.join("docs", "templates")):
        shutil.copytree(os.path.join(ROOT, name), os.path.join(tree, name))
    shutil.copy(os.path.join(ROOT, "galaxy.yml"), tree)
    assert docs_check(tree).returncode == 0

    spec = os.path.join(tree, "roles", "install", "meta", "argument_specs.yml")
    with open(spec) as handle:
        text = handle.read()
    with open(spec, "w") as handle:
        handle.write(text.replace("The interpreter that creates the venv.", "The interpreter."))
    stale = docs_check(tree)
    assert stale.returncode != 0
    assert "roles/install/README.md is stale: run scripts/docs.sh" in stale.stderr
    assert "-| sglang_python | The interpreter that creates the venv." in stale.stdout


def test_every_role_readme_keeps_a_hand_written_head():
    for role in os.listdir(os.path.join(ROOT, "roles")):
        with open(os.path.join(ROOT, "roles", role, "README.md")) as handle:
            head = handle.read().split("<!-- BEGIN_ANSIBLE_DOCS -->")[0]
        assert head.startswith("# gpufleet.sglang.%s\n" % role)
        assert "## Example" in head


def role_options():
    names = set()
    for role in os.listdir(os.path.join(ROOT, "roles")):
        with open(os.path.join(ROOT, "roles", role, "meta", "argument_specs.yml")) as handle:
            for entry in yaml.safe_load(handle)["argument_specs"].values():
                names.update(entry.get("options", {}))
    return names


def test_every_setting_a_message_tells_the_user_to_set_exists():
    """A message that says "set cuda_repo_distribution" must name a variable a role really reads."""
    told = set()
    for folder in ("plugins", "roles", "playbooks"):
        for base, _dirs, files in os.walk(os.path.join(ROOT, folder)):
            for name in files:
                if name.endswith((".py", ".yml")):
                    with open(os.path.join(base, name)) as handle:
                        told.update(re.findall(r"\b(?:[Ss]et|[Gg]ive|point|lower|change) ((?:cuda|sglang)_[a-z0-9_]+)",
                                               handle.read()))
    module_options = {"sglang_root"}  # eagle3_audit's and delegation_patch's own option
    assert told, "the scan found no message"
    assert sorted(told - role_options() - module_options) == []


@pytest.mark.parametrize("role", sorted(os.listdir(os.path.join(ROOT, "roles"))))
def test_every_role_readmes_example_playbook_passes_the_syntax_check(role, tmp_path):
    with open(os.path.join(ROOT, "roles", role, "README.md")) as handle:
        readme = handle.read()
    example = re.search(r"## Example Playbook\n\n```yaml\n(.*?)```", readme, re.S).group(1)
    plays = yaml.safe_load(example)
    assert plays[0]["tasks"][0]["ansible.builtin.import_role"]["name"] == "gpufleet.sglang." + role
    playbook = tmp_path / "example.yml"
    playbook.write_text(example)
    check = subprocess.run(["ansible-playbook", "--syntax-check", "-i", "localhost,", str(playbook)],
                           capture_output=True, text=True, check=False,
                           env=dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".collections")))
    assert check.returncode == 0, check.stdout + check.stderr
