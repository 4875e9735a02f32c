"""Every variable the example inventory sets for a group acts there: some role or play that runs on that group's
hosts reads it, or it is read across hosts (through hostvars, or by a filter that reads other hosts' variables).
A setting placed where nothing reads it is silently ignored, the default acts instead (the example once set
sglang_drain_timeout for the routers, while the drain wait runs as each server host).

Which roles run on which group is read from the playbooks: each play's hosts (a group, or the plan of a
rolling play, which orders sglang_servers), its roles and the roles its tasks import, and their dependencies."""

import glob
import os
import re

import pytest
import yaml

from gpufleet_testlib import ROOT

EXAMPLE = os.path.join(ROOT, "inventories", "example", "group_vars")
READ_IN = ("tasks", "vars", "templates", "handlers")


def play_groups(play):
    """The inventory groups a play runs on."""
    hosts = str(play.get("hosts", ""))
    if "gpufleet_restart_plan" in hosts or "'sglang_servers' if" in hosts:
        return {"sglang_servers"}  # the rolling plays' plan orders the servers; monitoring's node exporters
    if "gpufleet_facts_hosts" in hosts:
        return set(re.split(r"[:,]", play["vars"]["gpufleet_facts_hosts"])) if "vars" in play else set()
    return set(re.split(r"[:,]", hosts))


def role_names(node):
    """Every role a play or task list imports or includes, by short name."""
    found = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("ansible.builtin.import_role", "ansible.builtin.include_role", "import_role", "include_role"):
                found.add(value["name"].split(".")[-1])
            elif key == "roles":
                found.update((entry["role"] if isinstance(entry, dict) else entry).split(".")[-1] for entry in value)
            else:
                found |= role_names(value)
    elif isinstance(node, list):
        for item in node:
            found |= role_names(item)
    return found


def with_dependencies(roles):
    roles, todo = set(roles), list(roles)
    while todo:
        meta = os.path.join(ROOT, "roles", todo.pop(), "meta", "main.yml")
        for dependency in (yaml.safe_load(open(meta)) or {}).get("dependencies") or []:
            name = (dependency["role"] if isinstance(dependency, dict) else dependency).split(".")[-1]
            if name not in roles:
                roles.add(name)
                todo.append(name)
    return roles


def runs_on():
    """{group: (roles that run there, text of the plays that run there)}."""
    found = {}
    for path in glob.glob(os.path.join(ROOT, "playbooks", "*.yml")):
        plays = yaml.safe_load(open(path)) or []
        for play in plays:
            if "hosts" not in play:
                continue
            facts_vars = play if "gpufleet_facts_hosts" in str(play.get("vars", "")) else None
            for group in play_groups(facts_vars or play):
                roles, text = found.setdefault(group, (set(), []))
                roles |= with_dependencies(role_names(play))
                text.append(yaml.safe_dump(play))
    return found


def role_text(role):
    paths = [path for part in READ_IN for path in glob.glob(os.path.join(ROOT, "roles", role, part, "*"))]
    return "\n".join(open(path).read() for path in paths)


def cross_host_text():
    """What reads other hosts' variables: files that go through hostvars, and the plugins that read them."""
    texts = [open(path).read() for path in glob.glob(os.path.join(ROOT, "plugins", "*", "*.py"))]
    for path in glob.glob(os.path.join(ROOT, "roles", "*", "*", "*")):
        if os.path.isfile(path) and "/defaults/" not in path and "/meta/" not in path:
            text = open(path).read()
            if "hostvars" in text:
                texts.append(text)
    return "\n".join(texts)


def unread(group, names, plan, cross_host):
    roles, plays = plan.get(group, (set(), []))
    here = "\n".join([role_text(role) for role in sorted(roles)] + plays)
    return [name for name in names if not re.search(r"\b%s\b" % name, here)
            and not re.search(r"\b%s\b" % name, cross_host)]


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(EXAMPLE, "*.yml"))), ids=os.path.basename)
def test_every_variable_the_example_sets_for_a_group_is_read_on_that_groups_hosts(path):
    group = os.path.basename(path)[:-len(".yml")]
    names = sorted(yaml.safe_load(open(path)) or {})
    assert names
    assert unread(group, names, runs_on(), cross_host_text()) == []


def test_a_server_setting_given_only_to_the_routers_is_found():
    plan = runs_on()
    assert "router" in plan["sglang_routers"][0] and "lifecycle" not in plan["sglang_routers"][0]
    assert unread("sglang_routers", ["sglang_drain_timeout", "sglang_router_port"], plan, cross_host_text()) == [
        "sglang_drain_timeout"]
