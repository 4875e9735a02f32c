"""Batches as Ansible's serial makes them, checked against ansible-core's own batching."""

import pytest
from ansible.executor.playbook_executor import PlaybookExecutor
from ansible.playbook.play import Play

from ansible_collections.gpufleet.sglang.plugins.module_utils._fleet_batches import serial_batches

HOSTS = ["h%d" % number for number in range(1, 8)]


class _Inventory(object):
    def __init__(self, hosts):
        self.hosts = hosts

    def get_hosts(self, pattern, order=None):
        return list(self.hosts)


def ansible_batches(hosts, serial):
    """What ansible-core's PlaybookExecutor makes of serial (the code the plays really run)."""
    executor = PlaybookExecutor.__new__(PlaybookExecutor)
    executor._inventory = _Inventory(hosts)
    play = Play.load({"hosts": "all"})
    play.serial = list(serial) if isinstance(serial, list) else [serial]  # what post_validate makes of it
    return executor._get_serialized_batches(play)


@pytest.mark.parametrize("serial", [1, 2, 3, 7, 10, 0, "1", "25%", "50%", "10%", "100%", [1, 2], [1, "50%"],
                                    ["30%", 1], []])
def test_same_batches_as_ansible(serial):
    assert serial_batches(HOSTS, serial) == ansible_batches(HOSTS, serial)


def test_percentages_never_make_an_empty_batch():
    assert serial_batches(["a", "b", "c"], "10%") == [["a"], ["b"], ["c"]]


@pytest.mark.parametrize("serial", ["one", "25 percent", "-1", True, "1.5"])
def test_bad_values_say_what_to_write(serial):
    with pytest.raises(ValueError, match="a number of hosts .1. or a percentage of the fleet .25%."):
        serial_batches(HOSTS, serial)
