"""Every real SGLang server the tests start waits on its sockets when idle (--sleep-on-idle). Without the flag an
idle scheduler polls them without pause and takes a whole core for as long as it runs (make bench-idle-cpu, 0.5.9's
CPU engine: 10.1 CPU-seconds in 10 idle seconds, 0.15 with the flag): on CI's two cores, each server left running
would halve what every other test lane gets."""

import glob
import os

import yaml

from gpufleet_testlib import ROOT, cpu_speculation


def cpu_engine_settings(node):
    """Every sglang_extra_args mapping in a YAML tree that starts SGLang's CPU engine (device: cpu)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "sglang_extra_args" and isinstance(value, dict) and value.get("device") == "cpu":
                yield value
            else:
                yield from cpu_engine_settings(value)
    elif isinstance(node, list):
        for item in node:
            yield from cpu_engine_settings(item)


def test_every_scenario_that_runs_the_cpu_engine_sleeps_on_idle():
    found = {}
    for path in glob.glob(os.path.join(ROOT, "molecule", "*", "*.yml")):
        with open(path) as handle:
            for document in yaml.safe_load_all(handle):
                for settings in cpu_engine_settings(document):
                    found.setdefault(os.path.relpath(path, ROOT), []).append(settings.get("sleep-on-idle"))
    assert sorted(found) == ["molecule/real/eagle.yml", "molecule/real/molecule.yml",
                             "molecule/real_rollout/molecule.yml"]
    assert all(flags == [True] for flags in found.values()), found


def test_the_servers_the_tests_start_themselves_sleep_on_idle():
    assert "--sleep-on-idle" in cpu_speculation.FLAGS
