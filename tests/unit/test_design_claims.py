"""docs/design.md's claims that can be read off the code: the `serial:` it names for a playbook is that
playbook's, every playbook that restarts servers batches as it says (hosts and serial from the plan on
localhost), every filter it lists is one the collection ships, its layout lists the modules, roles and playbooks
there are and site.yml's plays in their order, a server's answers are read through one client, the server's
restart is written once, and no role reads what another role sets."""

import glob
import os
import re

import yaml

from gpufleet_testlib import ROOT

DESIGN = open(os.path.join(ROOT, "docs", "design.md")).read()
PLAN_SERIAL = "{{ hostvars.localhost.gpufleet_restart_plan.sizes | default([]) }}"


def playbook(name):
    with open(os.path.join(ROOT, "playbooks", name)) as handle:
        return yaml.safe_load(handle)


def bullets():
    return [block.replace("\n", " ") for block in re.split(r"\n(?=- |\S)", DESIGN)]


def test_a_serial_the_design_names_for_a_playbook_is_the_playbooks():
    named = 0
    for bullet in bullets():
        for name in re.findall(r"`(?:playbooks/)?(\w+\.yml)`", bullet):
            if not os.path.exists(os.path.join(ROOT, "playbooks", name)):
                continue
            for serial in re.findall(r"`serial: ([^`<]+)`", bullet):
                named += 1
                serials = [str(play.get("serial")) for play in playbook(name) if "serial" in play]
                assert serial.strip() in serials, (name, serial, serials)
    assert named >= 1  # router.yml's


def test_every_playbook_that_restarts_servers_batches_from_the_plan():
    for name in ("sglang.yml", "upgrade_draft.yml", "cuda_driver.yml"):
        batched = [play for play in playbook(name) if "serial" in play]
        assert [play["serial"] for play in batched] == [PLAN_SERIAL], name
        assert "`%s`" % name in DESIGN or "playbooks/%s" % name in DESIGN, name


def test_every_filter_the_design_lists_exists():
    listed = re.search(r"\*\*Algorithms are filters backed by `module_utils`\*\*(.*?)\n- \*\*", DESIGN, re.S).group(1)
    names = set(re.findall(r"`(\w+)`", re.sub(r"\([^)]*\)", "", listed)))
    shipped = set(os.path.basename(path)[:-3] for path in glob.glob(os.path.join(ROOT, "plugins", "filter", "*.py")))
    assert names == shipped, (names - shipped, shipped - names)


def test_the_roles_derive_at_most_54_variables():
    """The design's "at most 54 derived variables": they had grown from 54 to 83 in three rounds, each a name a
    reader follows to another file; a role's computation belongs in a filter with unit tests."""
    derived = {os.path.relpath(path, ROOT): len(re.findall(r"^_\w+:", open(path).read(), re.M))
               for path in glob.glob(os.path.join(ROOT, "roles", "*", "vars", "*.yml"))}
    assert sum(derived.values()) <= int(re.search(r"at most (\d+) derived", DESIGN).group(1)) == 54, derived


def layout():
    """The layout's lines: {path: what the design says is there}, continuation lines joined to theirs."""
    block = re.search(r"## Layout\n\n```\n(.*?)```", DESIGN, re.S).group(1)
    entries, last = {}, None
    for line in block.splitlines():
        if line.startswith(" ") and last:
            entries[last] += " " + line.strip()
        else:
            last, _space, said = line.partition(" ")
            entries[last] = said.strip()
    return entries


def shipped(pattern):
    return set(os.path.splitext(os.path.basename(path.rstrip("/")))[0] for path in glob.glob(os.path.join(ROOT, pattern)))


def test_the_layout_lists_every_module_role_and_playbook_and_nothing_else():
    entries = layout()
    modules = set(re.findall(r"(\w+)", entries["plugins/modules/"].split("(")[0]))
    assert modules == shipped("plugins/modules/*.py"), modules ^ shipped("plugins/modules/*.py")
    fragments = set(re.findall(r"(_\w+)\.py", entries["plugins/doc_fragments/"]))
    assert fragments == shipped("plugins/doc_fragments/*.py")
    roles = set(path.split("/")[1] for path in entries if re.match(r"roles/\w+/$", path))
    assert roles == shipped("roles/*/"), roles ^ shipped("roles/*/")
    playbooks = set(path.split("/")[1][:-4] for path in entries if path.startswith("playbooks/"))
    assert playbooks == shipped("playbooks/*.yml"), playbooks ^ shipped("playbooks/*.yml")


def test_the_layout_says_what_site_yml_imports_in_its_order():
    said = re.findall(r"(\w+)\.yml", layout()["playbooks/site.yml"])
    imported = [play["ansible.builtin.import_playbook"][:-4] for play in playbook("site.yml")]
    assert said == imported


def role_tasks():
    """(file, task) of every task in the roles' task files, those of blocks included."""
    for path in sorted(glob.glob(os.path.join(ROOT, "roles", "*", "tasks", "*.yml"))):
        pending = list(yaml.safe_load(open(path)) or [])
        while pending:
            task = pending.pop(0)
            pending += task.get("block", []) + task.get("rescue", []) + task.get("always", [])
            yield os.path.relpath(path, ROOT), task


def test_servers_and_routers_are_read_through_the_collections_client_alone():
    """The design's "the roles read a server's or a router's answer only through the collection's modules":
    ansible.builtin.uri would follow a redirect with an API key to any origin, and read an answer without a cap
    (whole, for a status other than 200, even without return_content)."""
    asks = [(path, task["name"]) for path, task in role_tasks()
            if set(task) & {"ansible.builtin.uri", "uri"}]
    assert not asks, asks


def test_the_servers_restart_is_written_once():
    """The design's "the restart is written once": launch's restart, which apply and the playbooks' rescue run."""
    restarts = [path for path, task in role_tasks()
                if (task.get("ansible.builtin.systemd_service") or {}).get("state") == "restarted"
                and "sglang_layout.unit" in str(task["ansible.builtin.systemd_service"].get("name"))
                or "reset-failed {{ sglang_layout.unit }}" in str(task.get("ansible.builtin.command", ""))]
    assert restarts == ["roles/launch/tasks/restart.yml"] * 2, restarts
    for name in ("sglang.yml", "upgrade_draft.yml", "cuda_driver.yml"):
        batched = [play for play in playbook(name) if "serial" in play][0]
        rescue = [step["ansible.builtin.import_role"] for step in batched["tasks"][0]["rescue"]]
        assert [(step["name"], step["tasks_from"]) for step in rescue] == [
            ("gpufleet.sglang.lifecycle", "rollback"), ("gpufleet.sglang.launch", "restart"),
            ("gpufleet.sglang.lifecycle", "abort")], name


def role_names():
    return sorted(os.path.basename(path) for path in glob.glob(os.path.join(ROOT, "roles", "*")))


def set_by(role):
    """What a role's tasks set on the host: the results they register and the facts they set."""
    names = set()
    for path, task in role_tasks():
        if path.startswith("roles/%s/" % role):
            names |= {task["register"]} if "register" in task else set()
            names |= set(task.get("ansible.builtin.set_fact") or {}) - {"cacheable"}
    return names


def role_text(role):
    """The text of what a role reads variables in (its tasks, vars, defaults, handlers and templates), without the
    lines that are comments."""
    paths = [path for part in ("tasks/*.yml", "vars/*.yml", "defaults/*.yml", "handlers/*.yml", "templates/*")
             for path in glob.glob(os.path.join(ROOT, "roles", role, part))]
    return "".join(line for path in paths for line in open(path) if not line.lstrip().startswith("#"))


def test_no_role_reads_what_another_role_sets():
    """The design's "what one role reads from another is a named, specced input of the reader, passed by the
    playbook" and "no role reads another role's registers": a role names no result or fact another role sets."""
    sets = {role: set_by(role) for role in role_names()}
    read = {(reader, setter, name) for reader in role_names() for setter in role_names() if setter != reader
            for name in sets[setter] if re.search(r"\b%s\b" % re.escape(name), role_text(reader))}
    assert not read, sorted(read)


def launch_main_calls():
    """(playbook, vars) of every place a playbook runs launch's main tasks (as a role, or imported whole)."""
    for path in sorted(glob.glob(os.path.join(ROOT, "playbooks", "*.yml"))):
        for play in playbook(os.path.basename(path)):
            for role in play.get("roles", []):
                if role.get("role") == "gpufleet.sglang.launch":
                    yield os.path.basename(path), role.get("vars", {})
            pending = list(play.get("pre_tasks", []) + play.get("tasks", []) + play.get("post_tasks", []))
            while pending:
                task = pending.pop(0)
                pending += task.get("block", []) + task.get("rescue", []) + task.get("always", [])
                call = task.get("ansible.builtin.import_role") or task.get("ansible.builtin.include_role") or {}
                if call.get("name") == "gpufleet.sglang.launch" and "tasks_from" not in call:
                    yield os.path.basename(path), task.get("vars", {})


def test_the_playbooks_pass_launch_what_the_roles_before_it_found():
    """The other half of "passed by the playbook": every playbook that runs launch hands it the GPUs cuda_driver
    found, and the one that runs the patch role before it, what the patch verified and would delegate."""
    passed = dict(launch_main_calls())
    assert sorted(passed) == ["sglang.yml", "upgrade_draft.yml"]
    assert {name: given.get("sglang_launch_gpus") for name, given in passed.items()} == dict.fromkeys(
        passed, "{{ cuda_gpus | default([]) }}")
    assert [passed["sglang.yml"].get(name) for name in ("sglang_launch_patch_pending", "sglang_launch_patch_verified")] \
        == ["{{ sglang_patch_pending | default([]) }}", "{{ sglang_patch_verified | default([]) }}"]
