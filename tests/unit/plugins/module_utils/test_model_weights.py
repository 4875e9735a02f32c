"""Staging weights against a real Hugging Face mirror (olah from PyPI, offline, serving git repositories this
test writes) and the collection's own peer server: resolve, listing, fetch, verification, manifest, disk check,
fan-out, prune, and each bad input with its error."""

import hashlib
import json
import os
import threading
from http.server import ThreadingHTTPServer

import pytest

from ansible_collections.gpufleet.sglang.plugins.module_utils import _model_weights as weights
from ansible_collections.gpufleet.sglang.plugins.module_utils import _revisions as revisions
from ansible_collections.gpufleet.sglang.plugins.module_utils import _weights_peer as peers
from ansible_collections.gpufleet.sglang.plugins.module_utils._weights_http import Hub
from gpufleet_testlib import hf_mirror

REPO = "tiny-org/tiny-model"
FILES = {"config.json": b'{"architectures": ["LlamaForCausalLM"]}\n',
         "model-00001-of-00002.safetensors": os.urandom(300000),
         "model-00002-of-00002.safetensors": os.urandom(200000),
         "sub/tokenizer.json": b'{"version": "1.0"}\n'}
LFS = ("model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors")


@pytest.fixture(scope="module")
def mirror(tmp_path_factory):
    directory = tmp_path_factory.mktemp("olah")
    server = hf_mirror.Mirror(str(directory))
    server.first, server.expected = hf_mirror.commit_files(server.mirrors, REPO, FILES, LFS)
    server.hub = Hub(server.url)
    with server:
        yield server


def stage(mirror, root, commit=None, **kwargs):
    model = {"name": "target", "repo": REPO, "commit": commit or mirror.first}
    state = weights.inspect(model, root, mirror.hub, **kwargs)
    for item in weights.plan_fetches([state]):
        weights.stage_file(item, mirror.hub, root)
    return state


def silently_corrupt(path):
    """A byte changed, the size and mtime kept: only a rehash sees it."""
    info = os.stat(path)
    with open(path, "r+b") as handle:
        first = handle.read(1)
        handle.seek(0)
        handle.write(bytes([first[0] ^ 1]))
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))


def test_a_branch_resolves_to_the_commit_the_mirror_has(mirror):
    assert weights.resolve(mirror.hub, REPO, "main") == mirror.first


def test_the_listing_has_every_file_with_its_size_and_the_lfs_sha256(mirror):
    files = weights.listing(mirror.hub, REPO, mirror.first)
    assert {item["path"]: (item["size"], item["sha256"]) for item in files} == mirror.expected
    config = next(item for item in files if item["path"] == "config.json")
    assert config["oid"] == hashlib.sha1(b"blob %d\0" % len(FILES["config.json"]) + FILES["config.json"]).hexdigest()


def test_staging_fetches_every_file_verified_and_a_second_look_fetches_nothing(mirror, tmp_path):
    state = stage(mirror, str(tmp_path))
    assert state["dir"] == str(tmp_path / "tiny-org--tiny-model" / mirror.first)
    assert state["needed"] == sum(len(data) for data in FILES.values())
    for path, data in FILES.items():
        with open(os.path.join(state["dir"], path), "rb") as handle:
            assert handle.read() == data
    again = weights.inspect({"name": "target", "repo": REPO, "commit": mirror.first}, str(tmp_path), mirror.hub)
    assert again["lacks"] == {} and again["fetch"] == [] and again["files"] == len(FILES)


def test_a_staged_revision_is_verified_without_the_mirror_and_without_rehashing(mirror, tmp_path, monkeypatch):
    state = stage(mirror, str(tmp_path))
    monkeypatch.setattr(weights, "digest", lambda path, wanted: pytest.fail("rehashed " + path))
    again = weights.inspect({"name": "target", "repo": REPO, "commit": mirror.first}, str(tmp_path),
                            Hub("http://127.0.0.1:9"))  # nothing listens there: the listing comes from the manifest
    assert again["lacks"] == {} and again["dir"] == state["dir"]


def test_one_byte_changed_is_caught_and_refetched(mirror, tmp_path):
    state = stage(mirror, str(tmp_path))
    shard = os.path.join(state["dir"], LFS[0])
    with open(shard, "r+b") as handle:
        handle.seek(1000)
        byte = handle.read(1)
        handle.seek(1000)
        handle.write(bytes([byte[0] ^ 1]))
    found = weights.inspect({"name": "target", "repo": REPO, "commit": mirror.first}, str(tmp_path), mirror.hub)
    assert list(found["lacks"]) == [LFS[0]]
    assert "has sha256" in found["lacks"][LFS[0]] and mirror.expected[LFS[0]][1] in found["lacks"][LFS[0]]
    stage(mirror, str(tmp_path))
    with open(shard, "rb") as handle:
        assert handle.read() == FILES[LFS[0]]


def test_a_full_check_rehashes_what_the_manifest_trusts(mirror, tmp_path):
    state = stage(mirror, str(tmp_path))
    silently_corrupt(os.path.join(state["dir"], LFS[1]))
    model = {"name": "target", "repo": REPO, "commit": mirror.first}
    assert weights.inspect(model, str(tmp_path), mirror.hub)["lacks"] == {}
    assert list(weights.inspect(model, str(tmp_path), mirror.hub, full=True)["lacks"]) == [LFS[1]]


def test_a_file_cut_short_on_the_host_is_named_and_refetched(mirror, tmp_path):
    state = stage(mirror, str(tmp_path))
    shard = os.path.join(state["dir"], LFS[0])
    os.truncate(shard, 1000)
    found = weights.inspect({"name": "target", "repo": REPO, "commit": mirror.first}, str(tmp_path), mirror.hub)
    assert found["lacks"] == {LFS[0]: "has 1000 bytes, the listing says %d" % len(FILES[LFS[0]])}
    stage(mirror, str(tmp_path))
    assert os.path.getsize(shard) == len(FILES[LFS[0]])


def test_a_transfer_a_killed_run_left_is_finished_by_a_server_that_ignores_range(mirror, tmp_path):
    state = weights.inspect({"name": "target", "repo": REPO, "commit": mirror.first}, str(tmp_path), mirror.hub)
    item = next(item for item in weights.plan_fetches([state]) if item["path"] == LFS[0])
    with open(os.path.join(state["dir"], LFS[0]) + weights.PARTIAL, "wb") as handle:
        handle.write(FILES[LFS[0]][:1234])
    assert weights.stage_file(item, mirror.hub, str(tmp_path))["bytes"] == len(FILES[LFS[0]])  # olah sends it all (200)
    with open(os.path.join(state["dir"], LFS[0]), "rb") as handle:
        assert handle.read() == FILES[LFS[0]]


def test_a_disk_that_would_fill_is_refused_with_the_numbers_before_any_download(mirror, tmp_path, monkeypatch):
    monkeypatch.setattr(weights, "free_bytes", lambda directory: 1000)
    with pytest.raises(weights.WeightsError) as error:
        weights.inspect({"name": "target", "repo": REPO, "commit": mirror.first}, str(tmp_path), mirror.hub)
    assert "needs 0.0 GB more" in str(error.value) and "4 of its 4 files" in str(error.value)
    assert "Nothing was downloaded" in str(error.value)
    assert not os.path.exists(tmp_path / "tiny-org--tiny-model")


def test_check_mode_writes_nothing(mirror, tmp_path):
    state = weights.inspect({"name": "target", "repo": REPO, "commit": mirror.first}, str(tmp_path), mirror.hub,
                            write=False)
    assert len(state["fetch"]) == len(FILES) and os.listdir(tmp_path) == []


@pytest.mark.parametrize("repo, revision, answer", [
    ("tiny-org/no-such-model", "main", "HTTP 401"),
    (REPO, "no-such-branch", "HTTP 401"),  # olah 0.5.4 answers both as the Hub answers an unknown repository
])
def test_an_unknown_repository_or_revision_is_named(mirror, repo, revision, answer):
    with pytest.raises(weights.WeightsError) as error:
        weights.resolve(mirror.hub, repo, revision)
    assert "%s@%s cannot be resolved at %s" % (repo, revision, mirror.url) in str(error.value)
    assert answer in str(error.value)


def test_an_unknown_commit_is_named_by_its_listing(mirror, tmp_path):
    with pytest.raises(weights.WeightsError, match="the files of %s@%s cannot be listed at .*answered HTTP 404" % (REPO, "0" * 40)):
        weights.inspect({"name": "target", "repo": REPO, "commit": "0" * 40}, str(tmp_path), mirror.hub)
    assert os.listdir(tmp_path) == []


def test_a_mirror_that_is_down_is_named():
    with pytest.raises(weights.WeightsError, match="cannot be resolved at http://127.0.0.1:9 .*cannot be reached"):
        weights.resolve(Hub("http://127.0.0.1:9"), REPO, "main")


def test_a_new_revision_is_staged_beside_the_old_and_pruned_after(mirror, tmp_path):
    """Staged revisions are the prune's revisions (gpufleet.sglang.unused_revisions over the repository's directory,
    as roles/launch/tasks/prune_weights.yml runs it)."""
    old = stage(mirror, str(tmp_path))
    second, _expected = hf_mirror.commit_files(mirror.mirrors, REPO, {"config.json": b'{"v": 2}\n'}, message="v2")
    new = stage(mirror, str(tmp_path), commit=second)
    assert os.path.isdir(old["dir"]) and os.path.isdir(new["dir"]) and old["dir"] != new["dir"]
    assert os.path.dirname(old["dir"]) == os.path.dirname(new["dir"])
    os.utime(old["dir"], (1, 1))
    parents, pattern = [os.path.dirname(new["dir"])], "[0-9a-f]{40}"
    assert revisions.unused(parents, pattern, 1, [], set()) == [old["dir"]]
    assert revisions.unused(parents, pattern, 1, [old["dir"]], set()) == []
    assert revisions.unused(parents, pattern, 1, [], {old["dir"] + "/config.json"}) == []
    assert revisions.unused(parents, pattern, 2, [], set()) == []


def test_a_shared_path_is_checked_where_it_is(tmp_path):
    model = tmp_path / "model"
    model.mkdir()
    assert weights.local_problems(str(model)) == {"config.json": "is missing"}
    (model / "config.json").write_text("{}")
    (model / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {"a": "s1.safetensors",
                                                                                   "b": "s2.safetensors"}}))
    (model / "s1.safetensors").write_bytes(b"x")
    assert weights.local_problems(str(model)) == {
        "s2.safetensors": "is missing (model.safetensors.index.json names it)"}
    assert weights.local_problems(str(tmp_path / "absent")) == {"": "is not a directory on this host"}
    absent = weights.inspect({"name": "draft", "path": str(tmp_path / "absent")}, str(tmp_path), Hub("http://127.0.0.1:9"))
    assert weights.unusable([absent]) == "draft %s: is not a directory on this host" % (tmp_path / "absent")


@pytest.fixture
def peer(tmp_path):
    """The collection's peer server on loopback, serving tmp_path/peer-root with a token."""
    root = tmp_path / "peer-root"
    root.mkdir()
    server = ThreadingHTTPServer(("127.0.0.1", 0), peers.handler(str(root), "t0ken"))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    server.root, server.url = str(root), "http://127.0.0.1:%d" % server.server_address[1]
    server.hub = Hub(server.url, "t0ken")
    yield server
    server.shutdown()


def test_a_host_fed_by_a_peer_costs_the_mirror_nothing(mirror, peer, tmp_path):
    fed = stage(mirror, peer.root)  # the peer staged it from the mirror
    before = {path: mirror.served(path) for path in FILES}
    state = weights.inspect({"name": "target", "repo": REPO, "commit": mirror.first}, str(tmp_path / "child"),
                            mirror.hub)
    sources = {weights.stage_file(item, mirror.hub, str(tmp_path / "child"), peer=peer.hub)["source"]
               for item in weights.plan_fetches([state])}
    assert sources == {peer.url}
    assert {path: mirror.served(path) for path in FILES} == before
    assert weights.inspect({"name": "target", "repo": REPO, "commit": mirror.first}, str(tmp_path / "child"),
                           mirror.hub)["lacks"] == {}
    assert fed["dir"] != state["dir"]


def test_a_peer_without_the_file_is_waited_for_then_the_source_serves_it(mirror, peer, tmp_path):
    state = weights.inspect({"name": "target", "repo": REPO, "commit": mirror.first}, str(tmp_path), mirror.hub)
    item = weights.plan_fetches([state])[0]
    result = weights.stage_file(item, mirror.hub, str(tmp_path), peer=peer.hub, peer_wait=0)
    assert result["source"] == mirror.url and "HTTP 404" in result["note"]


@pytest.mark.parametrize("path, authorization", [
    ("/tiny-org--tiny-model/c/config.json", "Bearer wrong"),
    ("/../etc/passwd", "Bearer t0ken"),
    ("/tiny-org--tiny-model/c/model.safetensors.part", "Bearer t0ken"),
    ("/", "Bearer t0ken"),
])
def test_the_peer_serves_only_complete_files_below_its_root_to_the_token(tmp_path, path, authorization):
    (tmp_path / "tiny-org--tiny-model" / "c").mkdir(parents=True)
    for name in ("config.json", "model.safetensors.part"):
        (tmp_path / "tiny-org--tiny-model" / "c" / name).write_text("{}")
    assert peers.resolve(str(tmp_path), "t0ken", path, authorization) is None
    assert peers.resolve(str(tmp_path), "t0ken", "/tiny-org--tiny-model/c/config.json", "Bearer t0ken")


def test_a_transfer_resumes_where_it_stopped_and_a_wrong_start_is_removed(mirror, peer, tmp_path):
    stage(mirror, peer.root)
    state = weights.inspect({"name": "target", "repo": REPO, "commit": mirror.first}, str(tmp_path), mirror.hub)
    item = next(item for item in weights.plan_fetches([state]) if item["path"] == LFS[0])
    partial = os.path.join(state["dir"], LFS[0]) + weights.PARTIAL
    with open(partial, "wb") as handle:
        handle.write(FILES[LFS[0]][:1234])
    result = weights.stage_file(item, mirror.hub, str(tmp_path), peer=peer.hub)
    assert result == {"source": peer.url, "note": "", "bytes": len(FILES[LFS[0]]) - 1234}
    os.unlink(os.path.join(state["dir"], LFS[0]))
    with open(partial, "wb") as handle:
        handle.write(b"x" * 1234)  # not the start of this file: resumed, it is wrong as a whole
    with pytest.raises(weights.WeightsError, match="has sha256 .*: the copy was removed"):
        weights.fetch(peer.hub, weights.peer_url(peer.url, item), os.path.join(state["dir"], LFS[0]), item)
    assert not os.path.exists(partial) and not os.path.exists(os.path.join(state["dir"], LFS[0]))


def test_a_new_revision_links_the_files_it_shares_with_the_staged_one_and_fetches_the_rest(mirror, tmp_path):
    old = stage(mirror, str(tmp_path))
    second, _expected = hf_mirror.commit_files(mirror.mirrors, REPO, {"sub/tokenizer.json": b'{"version": "2"}\n'},
                                               message="tokenizer v2")
    state = weights.inspect({"name": "target", "repo": REPO, "commit": second}, str(tmp_path), mirror.hub)
    results = {item["path"]: weights.stage_file(item, mirror.hub, str(tmp_path)) for item in weights.plan_fetches([state])}
    assert results["sub/tokenizer.json"]["source"] == mirror.url
    assert {path: results[path]["source"] for path in LFS} == {path: old["dir"] for path in LFS}
    assert all(results[path]["bytes"] == 0 for path in LFS)
    assert os.stat(os.path.join(state["dir"], LFS[0])).st_ino == os.stat(os.path.join(old["dir"], LFS[0])).st_ino
    assert weights.inspect({"name": "target", "repo": REPO, "commit": second}, str(tmp_path), mirror.hub)["lacks"] == {}


def test_a_switch_that_changes_one_file_needs_only_that_file_on_disk(mirror, tmp_path, monkeypatch):
    old = stage(mirror, str(tmp_path))
    second, _expected = hf_mirror.commit_files(mirror.mirrors, REPO, {"sub/tokenizer.json": b'{"version": "3"}\n'},
                                               message="tokenizer v3")
    monkeypatch.setattr(weights, "free_bytes", lambda directory: 1000)  # far less than the revision, enough for one file
    state = weights.inspect({"name": "target", "repo": REPO, "commit": second}, str(tmp_path), mirror.hub)
    before = weights.read_manifest(old["dir"])["listing"]
    changed = [item for item in weights.read_manifest(state["dir"])["listing"] if item not in before]
    assert "sub/tokenizer.json" in [item["path"] for item in changed] and LFS[0] not in [item["path"] for item in changed]  # (the mirror's
    # main may have moved config.json too, in an earlier test)
    assert state["needed"] == sum(item["size"] for item in changed)
    assert state["linked"] == state["bytes"] - state["needed"] >= len(FILES[LFS[0]]) + len(FILES[LFS[1]])


def test_a_full_check_never_trusts_a_link_and_repairs_every_revision_that_shared_the_bad_copy(mirror, tmp_path):
    old = stage(mirror, str(tmp_path))
    second, _expected = hf_mirror.commit_files(mirror.mirrors, REPO, {"sub/tokenizer.json": b'{"version": "4"}\n'},
                                               message="tokenizer v4")
    new = stage(mirror, str(tmp_path), commit=second)
    shard_old, shard_new = (os.path.join(state["dir"], LFS[0]) for state in (old, new))
    assert os.stat(shard_old).st_ino == os.stat(shard_new).st_ino  # linked, one copy on disk
    silently_corrupt(shard_new)
    served = mirror.served(LFS[0])

    model = {"name": "target", "repo": REPO, "commit": second}
    state = weights.inspect(model, str(tmp_path), mirror.hub, full=True)
    assert list(state["lacks"]) == [LFS[0]] and state["needed"] == len(FILES[LFS[0]])  # the shared copy is no source
    results = [weights.stage_file(item, mirror.hub, str(tmp_path)) for item in weights.plan_fetches([state])]
    assert results[0]["bytes"] == len(FILES[LFS[0]]) and results[0]["source"] == mirror.url
    assert old["dir"] in results[0]["note"] and "each now links the verified file" in results[0]["note"]
    assert mirror.served(LFS[0]) == served + 1
    for path in (shard_old, shard_new):
        with open(path, "rb") as handle:
            assert handle.read() == FILES[LFS[0]]
    assert os.stat(shard_old).st_ino == os.stat(shard_new).st_ino
    for commit in (mirror.first, second):
        checked = weights.inspect({"name": "target", "repo": REPO, "commit": commit}, str(tmp_path), mirror.hub, full=True)
        assert checked["lacks"] == {}


def test_a_full_check_hashes_a_shared_file_before_it_links_it(mirror, tmp_path):
    old = stage(mirror, str(tmp_path))
    silently_corrupt(os.path.join(old["dir"], LFS[1]))  # the old revision's record still trusts it
    third, _expected = hf_mirror.commit_files(mirror.mirrors, REPO, {"sub/tokenizer.json": b'{"version": "5"}\n'},
                                              message="tokenizer v5")
    state = weights.inspect({"name": "target", "repo": REPO, "commit": third}, str(tmp_path), mirror.hub, full=True)
    results = {item["path"]: weights.stage_file(item, mirror.hub, str(tmp_path)) for item in weights.plan_fetches([state])}
    assert results[LFS[1]]["source"] == mirror.url and results[LFS[0]]["source"] == old["dir"]
    with open(os.path.join(state["dir"], LFS[1]), "rb") as handle:
        assert handle.read() == FILES[LFS[1]]


def test_hashing_in_parallel_finds_the_same_as_one_at_a_time(mirror, tmp_path):
    state = stage(mirror, str(tmp_path))
    with open(os.path.join(state["dir"], LFS[0]), "r+b") as handle:
        handle.write(b"\1")
    files = weights.read_manifest(state["dir"])["listing"]
    stats = {}
    one = weights.lacking(state["dir"], files, full=True, record=False, workers=1)
    many = weights.lacking(state["dir"], files, full=True, record=False, workers=4, stats=stats)
    assert one == many and list(many) == [LFS[0]]
    assert stats["files"] == len(FILES) and stats["bytes"] == sum(len(data) for data in FILES.values())
