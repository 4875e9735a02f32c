"""What the README's user guide promises about the fleet stays true of the roles: every port an argument spec
opens is in its ports table."""

import os
import re

from gpufleet_testlib import ROOT
from gpufleet_testlib.typed_settings import typed_options

README = open(os.path.join(ROOT, "README.md")).read()
# A port the collection scrapes but does not open: NVIDIA's DCGM exporter, which the operator runs.
NOT_OPENED = {"sglang_monitoring_dcgm_port"}


def test_every_port_the_roles_open_is_in_the_ports_table():
    table = README[README.index("**Ports**"):README.index("**Disk**")]
    named = set(re.findall(r"^\| [0-9]+/tcp \| `(\w+)`", table, re.M))
    ports = set(name for name, (kind, _default) in typed_options().items() if kind == "int" and name.endswith("_port"))
    assert "sglang_weights_peer_port" in ports
    assert ports - NOT_OPENED == named, (ports - NOT_OPENED - named, named - ports)
    for name in named:
        default = typed_options()[name][1]
        assert re.search(r"^\| %d/tcp \| `%s`" % (default, name), table, re.M), name


LANE_DOCS = ["README.md", "docs/design.md", "inventories/example/group_vars/sglang_servers.yml"] + [
    os.path.join(folder, name) for folder, names in (
        ("roles", [os.path.join(role, "README.md") for role in sorted(os.listdir(os.path.join(ROOT, "roles")))]),
        ("plugins/modules", sorted(os.listdir(os.path.join(ROOT, "plugins", "modules"))))) for name in names]


def test_every_document_shows_one_pytorch_index_per_cuda_lane():
    indexes = set()
    for path in LANE_DOCS:
        indexes.update(re.findall(r"\bcu1[0-9]{2}\b", open(os.path.join(ROOT, path)).read()))
    assert indexes == {"cu128", "cu130"}, indexes


def release_lane(version):
    import yaml
    from ansible_collections.gpufleet.sglang.plugins.filter.sglang_cuda_major import sglang_cuda_major
    last12 = yaml.safe_load(open(os.path.join(ROOT, "roles", "install", "vars", "main.yml")))[
        "_sglang_last_cuda12_release"]
    return sglang_cuda_major(version, last12)


def test_the_example_inventory_is_in_its_releases_lane():
    import yaml
    example = yaml.safe_load(open(os.path.join(ROOT, "inventories", "example", "group_vars", "sglang_servers.yml")))
    cuda12 = release_lane(example["sglang_version"]) == 12
    assert example["sglang_torch_index_url"].endswith("/cu128" if cuda12 else "/cu130")
    assert example["cuda_toolkit_version"] == ("12.8" if cuda12 else "13.0")


def test_the_default_toolkit_is_the_default_releases_lane():
    """A fleet that sets neither gets a toolkit of its SGLang's CUDA (nvcc for the kernels SGLang compiles)."""
    import yaml
    defaults = dict((role, yaml.safe_load(open(os.path.join(ROOT, "roles", role, "defaults", "main.yml"))))
                    for role in ("common", "cuda_driver"))
    toolkit = defaults["cuda_driver"]["cuda_toolkit_version"]
    assert int(toolkit.split(".")[0]) == release_lane(defaults["common"]["sglang_version"]), toolkit


def test_the_example_inventory_has_every_group_the_guide_names_and_its_secrets_from_a_vault():
    import yaml
    example = os.path.join(ROOT, "inventories", "example")
    hosts = yaml.safe_load(open(os.path.join(example, "hosts.yml")))
    guide = README[README.index("## Using it on your fleet"):README.index("**Ports**")]
    named = set(re.findall(r"`(sglang_servers|sglang_routers|prometheus_servers|\w+_servers|\w+_routers)`", guide))
    assert named and named <= set(hosts), (named, set(hosts))
    secrets = yaml.safe_load(open(os.path.join(example, "group_vars", "all", "main.yml")))
    vault = yaml.safe_load(open(os.path.join(example, "group_vars", "all", "vault.yml")))
    assert secrets == dict((name, "{{ vault_%s }}" % name) for name in secrets)
    assert set(vault) == set("vault_" + name for name in secrets) and not any(vault.values())
    assert {"sglang_api_key", "sglang_router_admin_key"} <= set(secrets)


def test_the_example_prometheus_reaches_every_target(tmp_path):
    import json
    import subprocess
    import sys
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".collections"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_STDOUT_CALLBACK="ansible.posix.json")
    run = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i",
                          os.path.join(ROOT, "inventories", "example"),
                          os.path.join(ROOT, "tests", "unit", "roles", "example_targets.yml"),
                          "-e", "role_path=" + os.path.join(ROOT, "roles", "monitoring")],
                         capture_output=True, text=True, env=env, check=False)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    targets = json.loads(run.stdout)["plays"][0]["tasks"][0]["hosts"]["mon-01"]["_sglang_monitoring_targets"]
    assert targets["problems"] == []
    assert len(targets["servers"]) == 4 and len(targets["routers"]) == 2, targets


def test_the_awx_project_imports_every_playbook_by_name_and_requires_this_version():
    """docs/awx-project, the layout the README gives AWX/AAP users (scripts/ee.sh runs it in the execution
    environment): a job template playbook per playbook of the collection, and a requirement this version meets."""
    from ansible.galaxy.dependency_resolution.versioning import meets_requirements
    import yaml
    project = os.path.join(ROOT, "docs", "awx-project")
    playbooks = sorted(name for name in os.listdir(os.path.join(ROOT, "playbooks")) if name != "facts.yml")
    assert sorted(name for name in os.listdir(project) if name.endswith(".yml")) == playbooks
    for name in playbooks:
        with open(os.path.join(project, name)) as handle:
            plays = yaml.safe_load(handle)
        assert plays == [{"name": "Playbook gpufleet.sglang." + name[:-4],
                          "ansible.builtin.import_playbook": "gpufleet.sglang." + name[:-4]}], name
    with open(os.path.join(project, "collections", "requirements.yml")) as handle:
        (requirement,) = yaml.safe_load(handle)["collections"]
    with open(os.path.join(ROOT, "galaxy.yml")) as handle:
        version = yaml.safe_load(handle)["version"]
    assert requirement["name"] == "gpufleet.sglang"
    assert meets_requirements(version, requirement["version"]), (version, requirement["version"])
