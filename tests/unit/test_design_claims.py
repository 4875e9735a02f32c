"""docs/design.md's claims that can be read off the code: the `serial:` it names for a playbook is that
playbook's, every playbook that restarts servers batches as it says (hosts and serial from the plan on
localhost), and every filter it lists is one the collection ships."""

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
