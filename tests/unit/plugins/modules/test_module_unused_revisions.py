"""gpufleet.sglang.unused_revisions on venvs in a temporary directory: what a unit names is kept (a word, an
--option=value, a path below the revision), the newest are kept, what is not a revision (a link, a name the
pattern does not match, a parent that is no directory of revisions) is never removed, and a unit that cannot be
read (masked, a FIFO, larger than any unit, a damaged ExecStart) removes nothing. The staged weights' layout is
tested in test_module_model_weights.py; the prunes on systemd hosts in the site and weights scenarios."""

import json
import os
import subprocess

import pytest

from gpufleet_testlib import ROOT
from gpufleet_testlib.bounded import MIB, bounded
from gpufleet_testlib.modules import run_module
from ansible_collections.gpufleet.sglang.plugins.modules import unused_revisions


@pytest.fixture
def venvs(tmp_path):
    """(root, units pattern, [oldest .. newest venv]) of four venvs of distinct ages."""
    root = tmp_path / "venvs"
    made = []
    for age, name in enumerate(["sglang-0.5.5", "sglang-0.5.7", "sglang-0.5.8", "sglang-0.5.9"]):
        (root / name / "bin").mkdir(parents=True)
        os.utime(root / name, (1000 + age, 1000 + age))
        made.append(str(root / name))
    (tmp_path / "units").mkdir()
    return str(root), str(tmp_path / "units" / "sglang-*.service"), made


def unit(pattern, exec_start, name="sglang-a.service"):
    with open(os.path.join(os.path.dirname(pattern), name), "w") as handle:
        handle.write("[Service]\nExecStart=%s\n" % exec_start)


def prune(root, units, check_mode=False, diff=False, **args):
    return run_module(unused_revisions, dict(dict(parents=[root], keep=1, units=[units]), **args),
                      check_mode=check_mode, diff=diff)


def test_the_newest_and_what_a_unit_names_are_kept(venvs):
    root, units, made = venvs
    unit(units, "%s/bin/python -m sglang.launch_server --model-path /srv/m" % made[0])
    unit(units, "/usr/bin/env --weights=%s x" % made[1], name="sglang-b.service")
    planned = prune(root, units, check_mode=True, diff=True)
    assert planned["changed"] and planned["removed"] == [made[2]] and os.path.isdir(made[2])
    assert planned["diff"] == {"before": made[2] + "\n", "after": ""}
    done = prune(root, units)
    assert done["removed"] == [made[2]] and sorted(os.listdir(root)) == ["sglang-0.5.5", "sglang-0.5.7", "sglang-0.5.9"]
    assert not prune(root, units)["changed"]


def test_a_name_that_only_begins_like_a_revision_keeps_nothing(venvs):
    root, units, made = venvs
    unit(units, "%s9/bin/python -m sglang.launch_server" % made[2])  # .../sglang-0.5.89, not below .../sglang-0.5.8
    assert prune(root, units, check_mode=True)["removed"] == [made[2], made[1], made[0]]


def test_keep_paths_and_the_pattern_are_honoured(venvs):
    root, units, made = venvs
    result = prune(root, units, check_mode=True, keep_paths=[made[1] + "/"], pattern=r"sglang-0\.5\.[5-8]")
    assert result["removed"] == [made[0]]  # 0.5.9 is no revision, 0.5.8 the newest one, 0.5.7 kept by path


def test_a_link_is_no_revision_and_is_not_followed(venvs, tmp_path):
    root, units, made = venvs
    outside = tmp_path / "precious"
    (outside / "data").mkdir(parents=True)
    os.symlink(str(outside), os.path.join(root, "sglang-0.5.1"))
    os.utime(os.path.join(root, "sglang-0.5.1"), (1, 1), follow_symlinks=False)
    result = prune(root, units, keep=0)
    assert result["removed"] == made[::-1] and os.listdir(root) == ["sglang-0.5.1"]
    assert os.path.isdir(outside / "data")


@pytest.mark.parametrize("parent, says", [
    ("/", "is not a directory of revisions: give an absolute path below /"),
    ("relative/venvs", "is not a directory of revisions"),
])
def test_a_parent_that_is_no_directory_of_revisions_is_refused(venvs, parent, says):
    root, units, made = venvs
    result = run_module(unused_revisions, dict(parents=[root, parent], keep=0, units=[units]))
    assert result["failed"] and says in result["msg"] and result["msg"].startswith("Nothing was removed: ")
    assert sorted(os.listdir(root)) == [os.path.basename(path) for path in made]


def masked(pattern):
    """A unit masked with systemctl mask: a link to /dev/null."""
    os.symlink("/dev/null", os.path.join(os.path.dirname(pattern), "sglang-retired.service"))


def fifo(pattern):
    os.mkfifo(os.path.join(os.path.dirname(pattern), "sglang-fifo.service"))


def oversized(pattern):
    with open(os.path.join(os.path.dirname(pattern), "sglang-big.service"), "wb") as handle:
        handle.truncate(64 * 1024 * 1024)


def damaged(pattern):
    unit(pattern, "/opt/x/bin/python -m 'unbalanced")


@pytest.mark.parametrize("make, says", [
    (masked, "is a symbolic link"), (fifo, "is not a regular file"), (oversized, "more than a server settings file"),
    (damaged, "its ExecStart cannot be split into words"),
])
def test_a_unit_that_cannot_be_read_removes_nothing_and_stops_no_run(venvs, make, says):
    """A unit the prune cannot read may name a revision: nothing is removed, and the batch, whose server is back
    in the routers by then, is not failed for it (before this module, a masked unit of another instance was read
    as empty text by the grep the prune used)."""
    root, units, made = venvs
    make(units)
    result = bounded(lambda: prune(root, units, keep=0), seconds=20, memory=16 * MIB)
    assert not result.get("failed") and not result["changed"] and result["removed"] == [], result
    assert says in result["unreadable"], result  # also a warning, which an in-process run cannot always return
    assert len(os.listdir(root)) == 4


def test_a_pattern_that_is_not_one_and_a_negative_count_are_refused(venvs):
    root, units, _made = venvs
    assert "is not a regular expression" in prune(root, units, pattern="(")["msg"]
    assert "keep is -1" in prune(root, units, keep=-1)["msg"]
    assert len(os.listdir(root)) == 4


def test_a_parent_that_does_not_exist_has_no_revisions(tmp_path):
    result = run_module(unused_revisions, dict(parents=[str(tmp_path / "none")], keep=0))
    assert (result.get("failed"), result["changed"], result["removed"], result["unreadable"]) == (None, False, [], "")


def test_ansible_shows_the_warning_of_a_unit_it_cannot_read(venvs):
    """The warning as Ansible itself prints it (an in-process run cannot always return it)."""
    root, units, _made = venvs
    masked(units)
    args = json.dumps({"parents": [root], "keep": 0, "units": [units]})
    run = subprocess.run([os.path.join(ROOT, ".venv", "bin", "ansible"), "localhost", "-c", "local", "-m",
                          "gpufleet.sglang.unused_revisions", "-a", args], capture_output=True, text=True,
                         check=False, env=dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".collections")))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "No revision was removed: a unit that may name one cannot be read" in run.stderr, run.stderr
    assert "is a symbolic link" in run.stderr and len(os.listdir(root)) == 4
