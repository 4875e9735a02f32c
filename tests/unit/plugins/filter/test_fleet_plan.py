"""The fleet_plan filter's door: what each host owes, given as the mapping the playbooks build from a role's output
(the batching itself: tests/unit/plugins/module_utils/test_fleet_batches.py)."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.sglang.plugins.filter.fleet_plan import fleet_plan

HOSTVARS = {"a": {}, "b": {}, "c": {}, "d": {}}


def test_states_give_the_owes_the_serving_and_the_hosts_not_ready():
    states = {"a": {"owes": ["settings"], "serving": True},
              "b": {"owes": [], "serving": True},
              "c": {"owes": ["a new NVIDIA driver"], "serving": False, "ready": False}}
    plan = fleet_plan(["a", "b", "c", "d"], HOSTVARS, 1, {}, states=states)
    assert plan["order"] == ["c", "a"]  # the one that serves nothing first; d has no state: left out
    assert (plan["owes"], plan["not_ready"]) == ({"a": ["settings"], "c": ["a new NVIDIA driver"]}, ["c"])


def test_without_owes_or_states_it_says_what_it_needs():
    with pytest.raises(AnsibleFilterError, match="fleet_plan needs owes, or states: what each host owes"):
        fleet_plan(["a"], HOSTVARS, 1, {})
