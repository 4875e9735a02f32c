"""gpufleet.sglang.model_weights against a source that lies (tests/gpufleet_testlib/hostile_hub.py stands in for
a mirror an attacker controls, or the network path to a plain-http one): names that leave the revision's
directory, sizes and digests that are not what they say, redirects, pagination links, a listing or a body
without end, bodies cut or reset. The module runs as root on every server: nothing may be written outside the
revision's directory, nothing above it chmod-ed, and every refusal names the entry and the repository."""

import hashlib
import os
import stat
import threading
from http.server import ThreadingHTTPServer

import pytest

from ansible_collections.gpufleet.sglang.plugins.module_utils import _model_weights as weights
from ansible_collections.gpufleet.sglang.plugins.module_utils._http import HttpError
from ansible_collections.gpufleet.sglang.plugins.module_utils import _weights_peer as peers
from ansible_collections.gpufleet.sglang.plugins.module_utils._weights_http import Hub
from ansible_collections.gpufleet.sglang.plugins.modules import model_weights
from gpufleet_testlib.hostile_hub import COMMIT, HostileHub, file_entries
from gpufleet_testlib.modules import run_module

REPO = "evil-org/model"
GOOD = {"config.json": b'{"architectures": ["LlamaForCausalLM"]}\n'}
SHARD = os.urandom(300000)


@pytest.fixture
def hub():
    with HostileHub() as server:
        server.files.update(GOOD, **{"model.safetensors": SHARD})
        yield server


@pytest.fixture
def tree(tmp_path):
    """A weights root inside a directory the test watches: root is tmp_path/a/weights, and tmp_path/a is 0755."""
    above = tmp_path / "a"
    root = above / "weights"
    root.mkdir(parents=True)
    os.chmod(above, 0o755)
    return tmp_path, str(root)


def everything_below(path):
    return sorted(os.path.relpath(os.path.join(base, name), path) for base, dirs, files in os.walk(path)
                  for name in dirs + files)


def stage_all(hub, root, piece_size=0, **hub_options):
    source = Hub(hub.url, **hub_options)
    state = weights.inspect({"name": "target", "repo": REPO, "commit": COMMIT}, root, source)
    results = [weights.stage_file(item, source, root, gid=os.getgid())
               for item in weights.plan_fetches([state], piece_size)]
    return state, results


@pytest.mark.parametrize("name", [
    "../x", "../../../../tmp/x", "/tmp/gpufleet-evil", "a/../../../x", "a/../b", "./config2.json", "a//b", "a/",
    ".", "..", "", "a\\..\\..\\x", "a\x00b", "a\nb", "C:/x", "c:x", "x" * 256, "/".join(["d" * 10] * 100),
    ".gpufleet-manifest.json", ".gpufleet-manifest.json.tmp",
])
def test_a_name_that_leaves_the_revision_directory_refuses_the_whole_revision_and_writes_nothing(hub, tree, name):
    watched, root = tree
    hub.listing = file_entries(GOOD) + [{"type": "file", "path": name, "size": 5, "oid": "0" * 40}]
    hub.files[name] = b"evil\n"
    before = everything_below(str(watched))
    with pytest.raises(weights.WeightsError) as error:
        stage_all(hub, root)
    assert repr(name) in str(error.value) and "%s@%s" % (REPO, COMMIT) in str(error.value)
    assert "nothing was written" in str(error.value)
    assert everything_below(str(watched)) == before
    assert stat.S_IMODE(os.stat(watched / "a").st_mode) == 0o755
    assert not os.path.exists("/tmp/gpufleet-evil") and not os.path.exists("/tmp/x")


@pytest.mark.parametrize("entries, says", [
    ([{"path": "config.json"}, {"path": "config.json"}], "is listed twice"),
    ([{"path": "a"}, {"path": "a/b"}], "lists both 'a' and 'a/b'"),
    ([{"path": "w"}, {"path": "w.part"}], "lists both 'w.part' and 'w'"),
    ([{"path": "w", "size": -1}], "has the size -1"),
    ([{"path": "w", "size": "12"}], "has the size '12'"),
    ([{"path": "w", "size": 1.5}], "has the size 1.5"),
    ([{"path": "w", "size": True}], "has the size True"),
    ([{"path": "w", "size": 2 ** 50}], "has the size %d" % 2 ** 50),
    ([{"path": "w", "oid": "../../x"}], "git blob id that is not 40 hex digits"),
    ([{"path": "w", "lfs": {"oid": "zz"}}], "LFS sha256 that is not 64 hex digits"),
    ([{"path": "w", "oid": None}], "has no digest"),
])
def test_a_listing_with_entries_that_cannot_be_true_is_refused_naming_them(hub, tree, entries, says):
    _watched, root = tree
    hub.listing = [dict({"type": "file", "size": 5, "oid": "1" * 40}, **entry) for entry in entries]
    with pytest.raises(weights.WeightsError, match="evil-org/model") as error:
        stage_all(hub, root)
    assert says in str(error.value)
    assert os.listdir(root) == []


def test_a_listing_of_more_files_than_a_model_has_is_refused(hub, tree, monkeypatch):
    monkeypatch.setattr(weights.names, "MAX_FILES", 50)
    hub.listing = [{"type": "file", "path": "f%d" % number, "size": 1, "oid": "1" * 40} for number in range(51)]
    with pytest.raises(weights.WeightsError, match="lists more than 50 files"):
        stage_all(hub, tree[1])


def test_a_listing_that_never_ends_is_refused(hub, tree, monkeypatch):
    monkeypatch.setattr(weights, "MAX_PAGES", 30)
    hub.pages = lambda page: ([{"type": "file", "path": "f%d" % page, "size": 1, "oid": "1" * 40}],
                              "%s/api/models/%s/tree/%s?page=%d" % (hub.url, REPO, COMMIT, page + 1))
    with pytest.raises(weights.WeightsError, match="does not end the listing .*30 pages"):
        stage_all(hub, tree[1])
    assert len(hub.requests) == 30


def test_a_listing_whose_next_page_is_itself_is_refused(hub, tree):
    hub.pages = lambda page: (file_entries(GOOD), "%s/api/models/%s/tree/%s?page=0" % (hub.url, REPO, COMMIT))
    with pytest.raises(weights.WeightsError, match="does not end the listing"):
        stage_all(hub, tree[1], token="secret")


def test_a_next_page_on_another_origin_is_refused_and_the_token_stays_home(hub, tree):
    with HostileHub() as elsewhere:
        hub.pages = lambda page: (file_entries(GOOD), elsewhere.url + "/api/models/x/tree/y?page=1")
        with pytest.raises(weights.WeightsError, match="points the next page of its listing to another origin"):
            stage_all(hub, tree[1], token="secret")
        assert elsewhere.requests == []


def test_a_listing_body_without_end_is_cut(hub, tree):
    hub.behaviour["tree"] = ("endless",)
    with pytest.raises(weights.WeightsError, match="answered more than 32 MB"):
        stage_all(hub, tree[1])


def test_a_file_body_without_end_is_read_to_its_listed_size_only_and_removed(hub, tree):
    hub.listing = file_entries(dict(GOOD, **{"model.safetensors": SHARD}), lfs=("model.safetensors",))
    hub.behaviour["model.safetensors"] = ("endless",)
    with pytest.raises(weights.WeightsError, match=r"model.safetensors has sha256 .* the copy was removed"):
        stage_all(hub, tree[1])
    assert not os.path.exists(os.path.join(weights.revision_dir(tree[1], REPO, COMMIT), "model.safetensors.part"))


def test_a_body_longer_than_its_listing_is_refused(hub, tree):
    hub.listing = file_entries(dict(GOOD, **{"model.safetensors": SHARD}), lfs=("model.safetensors",))
    hub.listing[1]["size"] = 1000  # the listing says 1000 bytes; the server sends 300000
    with pytest.raises(weights.WeightsError, match="model.safetensors: .* announces 300000 bytes, the listing says 1000"):
        stage_all(hub, tree[1])


def test_a_peer_whose_answer_contradicts_the_listing_is_left_at_once_for_the_source(hub, tree):
    watched, root = tree
    hub.listing = file_entries(GOOD)
    peer_root = watched / "peer"
    wrong = peer_root / REPO.replace("/", "--") / COMMIT / "config.json"
    wrong.parent.mkdir(parents=True)
    wrong.write_bytes(GOOD["config.json"] + b"more")  # the collection's peer server, with another size than listed
    asked = []
    counting = type("Counting", (peers.handler(str(peer_root), "t0ken"),),
                    {"log_message": lambda self, fmt, *args: asked.append(self.path)})
    server = ThreadingHTTPServer(("127.0.0.1", 0), counting)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        source = Hub(hub.url)
        state = weights.inspect({"name": "target", "repo": REPO, "commit": COMMIT}, root, source)
        peer = Hub("http://127.0.0.1:%d" % server.server_address[1], "t0ken")
        result = weights.stage_file(weights.plan_fetches([state])[0], source, root, peer=peer, peer_wait=5)
    finally:
        server.shutdown()
    assert result["source"] == hub.url and "announces %d bytes" % (len(GOOD["config.json"]) + 4) in result["note"]
    assert len(asked) == 1  # not asked again until peer_wait ran out: the same answer would come back


def test_a_listed_size_beyond_the_disk_is_refused_before_any_download(hub, tree):
    hub.listing = file_entries(GOOD) + [{"type": "file", "path": "huge", "size": 2 ** 41, "oid": "1" * 40}]
    with pytest.raises(weights.WeightsError, match="needs 2199.0 GB more"):
        stage_all(hub, tree[1])
    assert os.listdir(tree[1]) == []


def test_a_body_that_drips_is_cut_and_the_part_kept(hub, tree):
    hub.listing = file_entries(GOOD)
    hub.behaviour["config.json"] = ("drip", 0.4)
    with pytest.raises(weights.WeightsError) as error:
        stage_all(hub, tree[1], timeout=1)
    assert "config.json stopped at" in str(error.value) and "bytes in 1 s" in str(error.value)
    assert hub.url + "/evil-org/model/resolve/" in str(error.value) and "config.json.part is kept" in str(error.value)


def test_a_body_cut_cleanly_is_resumed_where_it_stopped(hub, tree):
    hub.listing = file_entries(dict(GOOD, **{"model.safetensors": SHARD}), lfs=("model.safetensors",))
    hub.behaviour["model.safetensors"] = [("cut", 100000), ("range",)]
    state, results = stage_all(hub, tree[1])
    asked = [request["headers"].get("Range") for request in hub.requests if "model.safetensors" in request["path"]]
    assert asked == [None, "bytes=100000-299999"]
    assert results[1]["bytes"] == len(SHARD)
    with open(os.path.join(state["dir"], "model.safetensors"), "rb") as handle:
        assert handle.read() == SHARD


def test_a_reset_mid_body_is_resumed_and_one_that_keeps_failing_names_the_file_and_the_url(hub, tree):
    hub.listing = file_entries(dict(GOOD, **{"model.safetensors": SHARD}), lfs=("model.safetensors",))
    hub.behaviour["model.safetensors"] = [("reset", 100000), ("range",)]
    state, _results = stage_all(hub, tree[1])
    assert os.path.getsize(os.path.join(state["dir"], "model.safetensors")) == len(SHARD)

    other = os.path.join(tree[0], "other")
    os.makedirs(other)
    hub.behaviour["model.safetensors"] = ("reset", 1000)  # every time, and Range ignored: no progress after the first
    with pytest.raises(weights.WeightsError) as error:
        stage_all(hub, other)
    message = str(error.value)
    assert message.startswith("model.safetensors stopped at 1000 of its 300000 bytes")
    assert "%s/%s/resolve/%s/model.safetensors" % (hub.url, REPO, COMMIT) in message
    assert os.path.getsize(os.path.join(weights.revision_dir(other, REPO, COMMIT), "model.safetensors.part")) == 1000


@pytest.mark.parametrize("location, says", [
    ("file:///etc/passwd", "which is not http(s)"),
    ("ftp://127.0.0.1/x", "which is not http(s)"),
    ("SELF", "redirects more than 5 times"),
])
def test_a_redirect_off_http_or_without_end_is_refused_naming_the_file(hub, tree, location, says):
    hub.listing = file_entries(GOOD)
    target = "%s/%s/resolve/%s/config.json" % (hub.url, REPO, COMMIT)
    hub.behaviour["config.json"] = ("redirect", target if location == "SELF" else location)
    with pytest.raises(weights.WeightsError) as error:
        stage_all(hub, tree[1])
    assert says in str(error.value) and str(error.value).startswith("config.json: ")


def test_the_token_goes_to_its_origin_only_across_redirects(hub, tree):
    with HostileHub() as cdn:
        cdn.files.update(GOOD)
        hub.listing = file_entries(GOOD)
        hub.behaviour["config.json"] = ("redirect", "/%s/resolve/%s/moved.json" % (REPO, COMMIT))
        hub.behaviour["moved.json"] = ("redirect", "%s/%s/resolve/%s/config.json?X-Signature=s3cr3t" % (
            cdn.url, REPO, COMMIT))
        stage_all(hub, tree[1], token="hf_secret")
        assert all(request["headers"].get("Authorization") == "Bearer hf_secret" for request in hub.requests)
        assert [request["headers"].get("Authorization") for request in cdn.requests] == [None]


def test_a_planned_file_whose_name_or_directory_was_changed_on_the_way_is_refused(hub, tree):
    _watched, root = tree
    hub.listing = file_entries(GOOD)
    state = weights.inspect({"name": "target", "repo": REPO, "commit": COMMIT}, root, Hub(hub.url))
    item = weights.plan_fetches([state])[0]
    for changed, says in ((dict(item, path="../../x"), "'../../x'"), (dict(item, dir="/tmp"), "'/tmp' is not the"),
                          (dict(item, repo="../.."), "is not a Hugging Face repository id")):
        result = run_module(model_weights, {"state": "fetched", "file": changed, "endpoint": hub.url, "root": root,
                                            "group": __import__("grp").getgrgid(os.getgid()).gr_name})
        assert result["failed"] and says in result["msg"]
    assert [request for request in hub.requests if "/resolve/" in request["path"]] == []


def test_a_manifest_on_disk_with_a_bad_listing_is_refused(hub, tree):
    _watched, root = tree
    hub.listing = file_entries(GOOD)
    state, _results = stage_all(hub, root)
    manifest = weights.read_manifest(state["dir"])
    manifest["listing"].append({"path": "../../escape", "size": 1, "sha256": None, "oid": "1" * 40})
    weights._write_manifest(state["dir"], manifest)
    with pytest.raises(weights.WeightsError, match=r"\.gpufleet-manifest\.json lists '../../escape'"):
        weights.inspect({"name": "target", "repo": REPO, "commit": COMMIT}, root, Hub(hub.url))
    with pytest.raises(weights.WeightsError, match="'../../escape'"):
        weights.local_problems(state["dir"])


def test_a_repository_id_that_leaves_the_root_is_refused(tree):
    for repo in ("../..", "a/../../b", "/abs", "a/b/c", "a--b/c"):
        with pytest.raises(weights.WeightsError, match="is not a Hugging Face repository id"):
            weights.inspect({"name": "target", "repo": repo, "commit": COMMIT}, tree[1], Hub("http://127.0.0.1:9"))


def test_directories_are_shared_up_to_the_revision_and_nothing_above(hub, tree):
    watched, root = tree
    deep = {"sub/dir/tokenizer.json": b"{}"}
    hub.files.update(deep)
    hub.listing = file_entries(dict(GOOD, **deep))
    state, _results = stage_all(hub, root)
    assert stat.S_IMODE(os.stat(os.path.join(state["dir"], "sub", "dir")).st_mode) == 0o750
    assert stat.S_IMODE(os.stat(state["dir"]).st_mode) == 0o750
    assert stat.S_IMODE(os.stat(root).st_mode) != 0o750 or os.stat(root).st_mode == os.stat(watched).st_mode
    assert stat.S_IMODE(os.stat(watched / "a").st_mode) == 0o755


def test_a_large_file_is_fetched_in_pieces_that_show_progress(hub, tree):
    hub.listing = file_entries(dict(GOOD, **{"model.safetensors": SHARD}), lfs=("model.safetensors",))
    hub.behaviour["model.safetensors"] = [("range",)] * 3
    state, results = stage_all(hub, tree[1], piece_size=128 * 1024)
    plan = weights.plan_fetches([state], 128 * 1024)
    assert [(item["path"], item["piece"], item["pieces"], item["done"]) for item in plan] == [
        ("config.json", 1, 1, len(GOOD["config.json"]))] + [
        ("model.safetensors", piece, 3, len(GOOD["config.json"]) + min(piece * 128 * 1024, len(SHARD)))
        for piece in (1, 2, 3)]
    asked = [request["headers"].get("Range") for request in hub.requests if "model.safetensors" in request["path"]]
    assert asked == ["bytes=0-131071", "bytes=131072-262143", "bytes=262144-299999"]
    assert [result["bytes"] for result in results] == [len(GOOD["config.json"]), 131072, 131072, 300000 - 262144]
    with open(os.path.join(state["dir"], "model.safetensors"), "rb") as handle:
        assert hashlib.sha256(handle.read()).hexdigest() == hashlib.sha256(SHARD).hexdigest()


def test_a_hub_url_that_is_not_http_is_refused():
    with pytest.raises(HttpError, match="is not an http:// or https:// URL"):
        Hub("file:///etc")
