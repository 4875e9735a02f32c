"""The alert rules' speculative metrics against what SGLang 0.5.9's own server exports on the EAGLE-3 path (names
and labels), not only against its source: three servers on this machine's CPU, each serving the patched tiny
Kimi-K2.5 target, one with a draft that agrees with it, one with a draft that disagrees, and one started without a
draft although the inventory says EAGLE3 (a unit that lost its speculative arguments). Debian's Prometheus scrapes
them with the monitoring role's prometheus.yml, rules and file-SD labels (gpufleet.sglang.prometheus_targets, the
filter the role writes them with). After two generations each, SGLangAcceptanceLengthLow holds for the
disagreeing draft alone and SGLangSpeculativeOff for the draftless server alone. The gates' and status's read of
the same figure (gpufleet.sglang.server_info, from /server_info) agrees with what the servers export."""

import contextlib
import json
import time
import urllib.parse
import urllib.request

import pytest

from ansible_collections.gpufleet.sglang.plugins.module_utils import _prometheus_targets
from ansible_collections.gpufleet.sglang.plugins.modules import server_info
from gpufleet_testlib import cpu_speculation, prometheus
from gpufleet_testlib.modules import run_module

METRICS = ["--enable-metrics"]  # the collection's unit passes it (roles/launch: sglang_enable_metrics)
DRAFTS = {"agree": "eagle3-agree", "disagree": "eagle3-disagree", "no-draft": None}
SETTINGS = {"sglang_host": "0.0.0.0", "sglang_instance": "kimi-k25", "sglang_version": "0.5.9",
            "sglang_tp_group": "", "sglang_speculative_algorithm": "EAGLE3"}


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    """{host: URL} of the three servers, healthy."""
    work = str(tmp_path_factory.mktemp("alerts"))
    models = cpu_speculation.tiny_models(work)
    venv = cpu_speculation.patched_venv(work)
    with contextlib.ExitStack() as stack:
        started = {}
        for host, draft in DRAFTS.items():
            process, url, when = cpu_speculation.start(venv, models, draft, METRICS)
            stack.callback(cpu_speculation.stop, process)
            started[host] = (process, url, when)
        for process, url, when in started.values():  # the three start side by side
            cpu_speculation.wait_healthy(process, url, when)
        yield dict((host, url) for host, (_process, url, _when) in started.items())


def targets(fleet):
    """The servers' file-SD entries as the role writes them, each labelled with the draft the inventory names."""
    hostvars = {}
    for host, url in fleet.items():
        port = int(urllib.parse.urlsplit(url).port)
        hostvars[host] = {"ansible_host": "127.0.0.1", "sglang_port": port,
                          "sglang_draft_model_path": "/srv/models/" + (DRAFTS[host] or "eagle3-agree")}
    found = _prometheus_targets.targets({"sglang_servers": list(fleet)}, hostvars, SETTINGS, scraper="prometheus")
    assert found["problems"] == []
    return {"servers": found["servers"]}


def generate(url):
    body = json.dumps({"text": "t5 t6 t7", "sampling_params": {
        "max_new_tokens": 16, "temperature": 0, "ignore_eos": True}}).encode()
    request = urllib.request.Request(url + "/generate", data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=600) as answer:
        return json.loads(answer.read())


def wait(what, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = what()
        if found:
            return found
        time.sleep(1)
    return what()


def test_the_alerts_on_acceptance_hold_for_what_sglang_exports(fleet, tmp_path):
    server = prometheus.Prometheus(tmp_path, targets(fleet))
    with server.running():
        assert wait(lambda: len(server.query('up{job="sglang"} == 1')) == 3, 90), server.query("up")
        for _turn in range(2):  # the token counter's series may first appear with the first request's count
            for url in fleet.values():
                generate(url)
            time.sleep(3)

        def exported():
            found = server.query('sglang:spec_accept_length{job="sglang"}')
            return found if len(found) == 3 else None

        samples = wait(exported, 60)
        assert samples, server.query('{job="sglang", __name__=~"up|sglang:spec_accept_length"}')
        by_host = dict((sample["metric"]["host"], float(sample["value"][1])) for sample in samples)
        # SGLang's own figure, by its name and with the target's labels (none of SGLang's own labels collides)
        assert by_host["agree"] >= 3.0 and by_host["disagree"] < 2.0 and by_host["no-draft"] == 0.0, samples
        assert all(sample["metric"]["speculative"] == "EAGLE3" for sample in samples), samples

        def holding():
            alerts = sorted((name, labels["host"]) for name, _state, labels in server.alerts()
                            if name in ("SGLangAcceptanceLengthLow", "SGLangSpeculativeOff"))
            return alerts if len(alerts) >= 2 else None

        assert wait(holding, 90) == [("SGLangAcceptanceLengthLow", "disagree"), ("SGLangSpeculativeOff", "no-draft")]


def test_the_acceptance_length_the_gate_reads_is_the_servers(fleet):
    """gpufleet.sglang.server_info against the real servers: the acceptance length of the lifecycle's gate, the
    rollout's rollback point and status, and the draft each serves."""
    read = {}
    for host, url in fleet.items():
        generate(url)
        result = run_module(server_info, {"url": url})
        assert not result.get("failed"), result
        read[host] = (result["accept_length"], result["draft"].rsplit("/", 1)[-1])
    assert read["agree"][0] >= 3.0 and read["disagree"][0] < 2.0, read
    assert [read[host][1] for host in DRAFTS] == ["eagle3-agree", "eagle3-disagree", ""], read
    assert read["no-draft"][0] is None, read
