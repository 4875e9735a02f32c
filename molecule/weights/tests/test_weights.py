"""Weights staged from a real Hugging Face mirror (olah, offline, on its own host) before any server starts:
the server runs the staged directories offline, the mirror served each file once for the fleet (fan-out),
a no-op asks it for no file, a new revision is staged beside the old one and switched in the batches, and a
repository the mirror does not have fails the run naming it while every server keeps serving."""

import json
import os
import sys
import urllib.request

from gpufleet_testlib import ROOT, containers
from gpufleet_testlib.playbook import run_in_scenario

sys.path.insert(0, os.path.join(ROOT, "tests"))
from gpufleet_testlib import hf_mirror  # noqa: E402

testinfra_hosts = ["gpufleet-weights-mirror"]
SERVERS = ["gpufleet-weights-%d" % number for number in (1, 2, 3)]
UNIT = "/etc/systemd/system/sglang-kimi-k25.service"
WEIGHTS = "/var/lib/sglang/models/weights"
SGLANG = os.path.join(ROOT, "playbooks", "sglang.yml")
MIRRORS = os.path.join(os.environ.get("GPUFLEET_CACHE") or os.path.expanduser("~/.cache/gpufleet-sglang"),
                       "weights-mirror", "mirrors")
MIRROR = "http://10.213.8.10:8090"
DRAFT_CHECK = "Check the draft's context length against the served one"  # the launch role's preflight
LEAVE = "Read whether the server runs, and whether an earlier run left it out of the routers"  # the lifecycle's leave


def commit(repo):
    with urllib.request.urlopen("%s/api/models/%s/revision/main" % (MIRROR, repo), timeout=10) as answer:
        return json.load(answer)["sha"]


def mirror_requests():
    """Every request path olah logged, in order."""
    log = containers.run("gpufleet-weights-mirror", "journalctl", "-u", "olah", "--no-pager", "-o", "cat")
    return [line.split('"GET ')[1].split(" ")[0] for line in log.splitlines() if '"GET ' in line]


def file_requests():
    return [path for path in mirror_requests() if "/resolve/" in path]


def health(server):
    return containers.run(server, "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}",
                          "http://127.0.0.1:30000/health_generate")


def test_each_server_runs_the_staged_revisions_offline():
    target, draft = commit("tiny-org/kimi-k25"), commit("tiny-org/kimi-k25-eagle3")
    for server in SERVERS:
        unit = containers.run(server, "cat", UNIT)
        assert "--model-path %s/tiny-org--kimi-k25/%s" % (WEIGHTS, target) in unit
        assert "--speculative-draft-model-path %s/tiny-org--kimi-k25-eagle3/%s" % (WEIGHTS, draft) in unit
        assert "Environment=HF_HUB_OFFLINE=1" in unit and "--speculative-draft-model-revision" not in unit
        manifest = json.loads(containers.run(server, "cat", "%s/tiny-org--kimi-k25/%s/.gpufleet-manifest.json"
                                             % (WEIGHTS, target)))
        assert sorted(manifest["files"]) == sorted(item["path"] for item in manifest["listing"])
        assert health(server) == "200"
        mode = containers.run(server, "stat", "-c", "%U:%G %a", "%s/tiny-org--kimi-k25/%s/config.json"
                              % (WEIGHTS, target)).strip()
        assert mode == "root:sglang 640"


def test_the_mirror_served_each_file_once_for_the_fleet():
    served = file_requests()
    assert len(served) == 6, served  # the target's 4 files and the draft's 2, once each for three hosts
    assert len(set(served)) == len(served)


def test_a_no_op_asks_the_mirror_for_no_file_and_no_listing():
    before = mirror_requests()
    run = run_in_scenario(SGLANG)
    assert run.returncode == 0, run
    assert all(not run.changed(server) for server in SERVERS), run.stats
    asked = mirror_requests()[len(before):]
    assert [path for path in asked if "/revision/" not in path] == [], asked  # main is resolved, once per model
    assert len(asked) == 2, asked


def test_a_repository_the_mirror_lacks_fails_naming_it_and_every_server_keeps_serving():
    units = {server: containers.run(server, "cat", UNIT) for server in SERVERS}
    run = run_in_scenario(SGLANG, ["sglang_model_path=tiny-org/no-such-model"])
    assert run.returncode != 0
    assert run.says("tiny-org/no-such-model@main cannot be resolved at %s" % MIRROR), run
    for server in SERVERS:
        assert containers.run(server, "cat", UNIT) == units[server] and health(server) == "200"


def test_a_new_revision_is_staged_beside_the_old_one_switched_in_the_batches_and_old_ones_pruned():
    first = commit("tiny-org/kimi-k25")
    revisions = [first]
    for number in (2, 3):
        revisions.append(hf_mirror.commit_files(MIRRORS, "tiny-org/kimi-k25", {
            "model-00002-of-00002.safetensors": hf_mirror.shard("target-2-v%d" % number, 4 * 1024 * 1024)},
            message="v%d" % number)[0])
        before = len(file_requests())
        run = run_in_scenario(SGLANG)
        assert run.returncode == 0, run
        assert len(file_requests()) - before == 1  # only the changed shard, once for the fleet
        # The fan-out's root serves the others on the address the fleet reaches it at (molecule.yml's), not on
        # every address.
        assert run.result("Serve this host's complete files", SERVERS[0])["listen"] == "10.213.8.11:18431"
        for server in SERVERS:
            unit = containers.run(server, "cat", UNIT)
            assert "--model-path %s/tiny-org--kimi-k25/%s" % (WEIGHTS, revisions[-1]) in unit
            assert health(server) == "200"
    for server in SERVERS:
        kept = containers.run(server, "ls", "%s/tiny-org--kimi-k25" % WEIGHTS).split()
        assert sorted(kept) == sorted(revisions[1:]), kept  # sglang_weights_keep 2: the first one was pruned


def test_a_draft_rollout_stages_and_checks_everywhere_first_and_leaves_the_moved_target_alone():
    target = containers.run(SERVERS[0], "cat", UNIT).split("--model-path ")[1].split()[0]
    moved = hf_mirror.commit_files(MIRRORS, "tiny-org/kimi-k25", {
        "model-00001-of-00002.safetensors": hf_mirror.shard("target-1-moved", 4 * 1024 * 1024)}, message="moved")[0]
    draft = hf_mirror.commit_files(MIRRORS, "tiny-org/kimi-k25-eagle3", {"config.json": json.dumps(
        dict(hf_mirror.DRAFT_CONFIG, standin_accept_length=3.3), indent=2).encode() + b"\n"}, message="v2")[0]
    before = len(mirror_requests())
    run = run_in_scenario(os.path.join(ROOT, "playbooks", "upgrade_draft.yml"),
                          ["sglang_draft_model_path=tiny-org/kimi-k25-eagle3", "sglang_draft_model_revision=main"])
    assert run.returncode == 0, run
    asked = mirror_requests()[before:]
    assert not [path for path in asked if "tiny-org/kimi-k25/" in path], asked  # the target: not resolved, not fetched
    assert len([path for path in asked if "/resolve/" in path]) == 1, asked  # the draft's new config.json, once
    assert moved not in target
    for server in SERVERS:
        unit = containers.run(server, "cat", UNIT)
        assert "--model-path %s " % target in unit
        assert "--speculative-draft-model-path %s/tiny-org--kimi-k25-eagle3/%s" % (WEIGHTS, draft) in unit
        assert health(server) == "200"
        # The record says the branch asked for and the commit it was at, which runs.
        recorded = json.loads(containers.run(server, "cat", "/etc/ansible/facts.d/gpufleet_sglang.fact"))["draft"]
        assert (recorded["revision"], recorded["commit"]) == ("main", draft), recorded
    order = [(task, host) for task, host, _result in run.results()]
    first_leave = next(index for index, (task, _host) in enumerate(order) if task.endswith(LEAVE))
    checked = [host for task, host in order[:first_leave] if task.endswith(DRAFT_CHECK)]
    assert sorted(checked) == SERVERS  # every host staged and checked the draft before the first left
    assert run.says("Restarting 3 of 3 host(s), 1 at a time: gpufleet-weights-1 (draft %s/tiny-org--kimi-k25-eagle3/"
                    % WEIGHTS), run
