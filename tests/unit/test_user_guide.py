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
