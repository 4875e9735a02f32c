"""Batches as Ansible's serial makes them, checked against ansible-core's own batching."""

import pytest
from ansible.executor.playbook_executor import PlaybookExecutor
from ansible.playbook.play import Play

from ansible_collections.gpufleet.sglang.plugins.module_utils._fleet_batches import plan, serial_batches

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


# The plan of a rolling change: the batched plays run hosts=plan["order"], serial=plan["sizes"].
FLEET = ["a", "b", "c", "d", "e"]


def test_a_plan_runs_as_ansible_runs_its_order_and_sizes():
    result = plan(FLEET, dict((host, ["settings"]) for host in FLEET), batch="40%")
    assert result["batches"] == [["a", "b"], ["c", "d"], ["e"]]
    assert ansible_batches(result["order"], result["sizes"]) == result["batches"]


def test_hosts_that_owe_nothing_are_left_out_and_a_percentage_is_of_the_whole_fleet():
    result = plan(FLEET, {"a": ["x"], "c": ["y"], "e": ["z"]}, batch="40%")
    assert result["batches"] == [["a", "c"], ["e"]] and result["units"] == 5


def test_a_multi_node_group_is_one_unit_never_split_and_rank_0_first():
    groups = {"tp": ["d", "b"]}  # the group's order gives the ranks
    result = plan(FLEET, {"a": ["x"], "b": ["y"], "c": ["z"]}, batch=1, tp_groups={"b": "tp", "d": "tp"},
                  groups=groups)
    assert result["batches"] == [["a"], ["d", "b"], ["c"]]
    assert result["owes"]["d"] == ["restarts with its group (d, b)"]
    assert result["units"] == 4
    assert plan(FLEET, {"b": ["y"]}, batch=2, tp_groups={"b": "tp", "d": "tp"}, groups=groups)["sizes"] == [2]


def test_servers_that_serve_nothing_go_first_and_together():
    result = plan(FLEET, {"a": ["x"], "c": ["not running"], "e": ["out of the routers since T"]},
                  serving={"c": False, "e": False}, batch=1)
    assert result["batches"] == [["c", "e"], ["a"]] and result["idle"] == ["c", "e"]
    assert result["text"] == "[c, e] -> [a]"


def test_nothing_owed_is_an_empty_plan():
    result = plan(FLEET, {}, batch=1)
    assert (result["batches"], result["order"], result["sizes"], result["text"]) == ([], [], [], "")


def test_a_host_that_sets_another_batch_is_refused_saying_where_to_set_it():
    with pytest.raises(ValueError, match=r"sglang_batch is 2 for this run, but 1 on b: .*"
                                         r"group_vars/sglang_servers.yml.*-e sglang_batch=N"):
        plan(["a", "b"], {"a": ["x"]}, batch=2, host_batches={"a": 2, "b": 1})
    assert plan(["a", "b"], {"a": ["x"], "b": ["x"]}, batch=2, host_batches={"a": 2})["sizes"] == [2]


def test_a_host_outside_the_group_it_names_is_refused():
    with pytest.raises(ValueError, match="a names sglang_tp_group tp, but is not a host of that group"):
        plan(["a", "b"], {"a": ["x"]}, tp_groups={"a": "tp"}, groups={"tp": ["b"]})
