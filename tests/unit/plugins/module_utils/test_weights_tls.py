"""The weights over Ansible's own HTTP transport, as an on-prem mirror is reached: the real olah mirror over
https with a CA the test makes (refused without it, trusted with ca_path, or with validate_certs off), a
server that asks for a client certificate, and the proxy the environment names."""

import os

import pytest

from ansible_collections.gpufleet.sglang.plugins.module_utils import _model_weights as weights
from ansible_collections.gpufleet.sglang.plugins.module_utils._weights_http import Hub
from ansible_collections.gpufleet.sglang.plugins.modules import model_weights
from gpufleet_testlib import hf_mirror
from gpufleet_testlib.hostile_hub import COMMIT, HostileHub, file_entries
from gpufleet_testlib.modules import run_module
from gpufleet_testlib.private_ca import PrivateCA

REPO = "tiny-org/tls-model"
FILES = {"config.json": b'{"architectures": ["LlamaForCausalLM"]}\n', "model.safetensors": os.urandom(200000)}


@pytest.fixture(scope="module")
def ca(tmp_path_factory):
    return PrivateCA(str(tmp_path_factory.mktemp("ca")))


@pytest.fixture(scope="module")
def mirror(tmp_path_factory, ca):
    server = hf_mirror.Mirror(str(tmp_path_factory.mktemp("olah-tls")), tls=ca)
    server.first, _expected = hf_mirror.commit_files(server.mirrors, REPO, FILES, lfs=("model.safetensors",))
    with server:
        yield server


def test_the_mirror_serves_https(mirror):
    assert mirror.url.startswith("https://127.0.0.1:")


def test_a_private_ca_is_refused_without_ca_path_naming_the_certificate(mirror):
    with pytest.raises(weights.WeightsError) as error:
        weights.resolve(Hub(mirror.url), REPO, "main")
    assert "CERTIFICATE_VERIFY_FAILED" in str(error.value) and mirror.url in str(error.value)


def test_with_ca_path_the_module_stages_the_revision_verified(mirror, ca, tmp_path):
    tls = {"endpoint": mirror.url, "ca_path": ca.ca}
    resolved = run_module(model_weights, dict(tls, state="resolved",
                                              models=[{"name": "target", "repo": REPO, "revision": "main"}]))
    assert resolved["models"][0]["commit"] == mirror.first
    plan = run_module(model_weights, dict(tls, models=resolved["models"], root=str(tmp_path)))
    group = __import__("grp").getgrgid(os.getgid()).gr_name
    for item in plan["fetch"]:
        assert not run_module(model_weights, dict(tls, state="fetched", file=item, root=str(tmp_path),
                                                  group=group)).get("failed")
    assert run_module(model_weights, dict(tls, models=resolved["models"], root=str(tmp_path)))["verified"]


def test_validate_certs_off_trusts_any_certificate(mirror):
    assert weights.resolve(Hub(mirror.url, validate_certs=False), REPO, "main") == mirror.first


def test_a_mirror_that_asks_for_a_client_certificate_gets_one(ca, tmp_path):
    with HostileHub(tls=ca.server_context(require_client=True)) as hub:
        hub.files.update(FILES)
        hub.listing = file_entries(FILES, lfs=("model.safetensors",))
        with pytest.raises(weights.WeightsError):
            weights.resolve(Hub(hub.url, ca_path=ca.ca), REPO, "main")
        source = Hub(hub.url, ca_path=ca.ca, client_cert=ca.client, client_key=ca.client_key)
        assert weights.resolve(source, REPO, "main") == COMMIT
        state = weights.inspect({"name": "target", "repo": REPO, "commit": COMMIT}, str(tmp_path), source)
        for item in weights.plan_fetches([state]):
            weights.stage_file(item, source, str(tmp_path))
        assert weights.inspect({"name": "target", "repo": REPO, "commit": COMMIT}, str(tmp_path), source)["lacks"] == {}


def test_the_proxy_of_the_environment_is_used_unless_use_proxy_is_off(monkeypatch):
    with HostileHub() as proxy:  # a forward proxy sees the absolute URL; this one answers it itself
        monkeypatch.setenv("http_proxy", proxy.url)
        monkeypatch.delenv("no_proxy", raising=False)
        monkeypatch.delenv("NO_PROXY", raising=False)
        assert weights.resolve(Hub("http://mirror.gpufleet.invalid"), REPO, "main") == COMMIT
        assert proxy.requests[0]["path"] == "/api/models/%s/revision/main" % REPO
        with pytest.raises(weights.WeightsError, match="mirror.gpufleet.invalid .*cannot be reached"):
            weights.resolve(Hub("http://mirror.gpufleet.invalid", use_proxy=False), REPO, "main")
