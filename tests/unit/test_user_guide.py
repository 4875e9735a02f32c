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


def test_the_example_inventory_is_in_its_releases_lane():
    import yaml
    example = yaml.safe_load(open(os.path.join(ROOT, "inventories", "example", "group_vars", "sglang_servers.yml")))
    last12 = yaml.safe_load(open(os.path.join(ROOT, "roles", "install", "vars", "main.yml")))[
        "_sglang_last_cuda12_release"]
    version = tuple(int(part) for part in example["sglang_version"].split("."))
    cuda12 = version <= tuple(int(part) for part in last12.split("."))
    assert example["sglang_torch_index_url"].endswith("/cu128" if cuda12 else "/cu130")
    assert example["cuda_toolkit_version"] == ("12.8" if cuda12 else "13.0")
