"""Settings given on the command line, as the README shows them and AWX surveys pass them: `-e name=value`
makes every value a string. Every typed option of every role's argument spec, given so at the value the demo
inventory or its default sets, must be read as its type: site.yml in check mode on the converged demo fleet
passes and changes nothing. A value of the wrong type is refused by the spec, naming the option."""

import glob
import os

import yaml

from gpufleet_testlib.demo_fleet import CACHE, HOSTS, INVENTORY
from gpufleet_testlib.playbook import run_playbook
from gpufleet_testlib.typed_settings import extra_vars_as_strings

SITE = "gpufleet.sglang.site"


def inventory_vars():
    values = {}
    for path in sorted(glob.glob(os.path.join(INVENTORY, "group_vars", "*.yml"))):
        values.update(yaml.safe_load(open(path)) or {})
    return values


def site(*extra_vars, args=()):
    return run_playbook(SITE, INVENTORY, extra_vars, args, timeout=1800, env={"GPUFLEET_CACHE": CACHE})


def test_every_typed_setting_given_as_a_string_changes_nothing(demo_fleet):
    converge = site()
    assert converge.returncode == 0, converge.stderr[-3000:]
    strings = extra_vars_as_strings(inventory_vars())
    names = [pair.split("=", 1)[0] for pair in strings]
    for name in ("sglang_speculative_num_steps", "sglang_tp_size", "sglang_speculative_num_draft_tokens",
                 "sglang_mem_fraction_static", "sglang_router_port", "cuda_driver_reboot", "sglang_pip_extra_args"):
        assert name in names
    run = site(*strings, args=["--check", "--diff"])
    assert run.returncode == 0, "\n".join(run.messages[-10:]) + run.stderr[-3000:]
    assert sorted(run.stats) == HOSTS
    assert not any(run.changed(host) for host in HOSTS), dict((host, run.changed(host)) for host in HOSTS)


def test_a_value_of_the_wrong_type_is_refused_naming_the_option(demo_fleet):
    run = site("sglang_tp_size=eight", args=["--check"])
    assert run.returncode != 0
    assert any("sglang_tp_size" in message and "int" in message for message in run.messages), run.messages
