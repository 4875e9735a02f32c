"""gpufleet.sglang.server_drain against a server whose /metrics a test writes (a small server on loopback). That
the real SGLang's /metrics carries the gauges it reads is tested in molecule/real (test_real_server.py); the drain
of a request in flight through the real router in the upgrade scenario (test_via_router.py)."""

import json

import pytest

from gpufleet_testlib.bounded import MIB, bounded
from gpufleet_testlib.hostile_http import Server, flood, redirect, reply
from gpufleet_testlib.modules import run_module
from ansible_collections.gpufleet.sglang.plugins.module_utils._server_health import in_flight
from ansible_collections.gpufleet.sglang.plugins.modules import server_drain

# As SGLang 0.5.9 writes them: one sample per rank, labels first.
METRICS = """# HELP sglang:num_running_reqs The number of running requests.
# TYPE sglang:num_running_reqs gauge
sglang:num_running_reqs{engine_type="unified",model_name="kimi-k2.5",pp_rank="0",tp_rank="0"} %s
sglang:num_running_reqs{engine_type="unified",model_name="kimi-k2.5",pp_rank="0",tp_rank="1"} %s
sglang:num_queue_reqs{engine_type="unified",model_name="kimi-k2.5",pp_rank="0",tp_rank="0"} %s
"""


def metrics_in_turn(*counts):
    """/metrics saying (running on rank 0, running on rank 1, queued) of ``counts`` in turn, the last one after."""
    answers = list(counts)

    def answer(handler):
        now = answers.pop(0) if len(answers) > 1 else answers[0]
        reply((METRICS % now).encode(), content_type="text/plain")(handler)
    return answer


def drain(url, **args):
    return run_module(server_drain, dict(dict(url=url, timeout=10, interval=1), **args))


def test_waits_until_no_rank_runs_or_queues_a_request():
    with Server(metrics_in_turn((1, 0, 0), (0, 0, 2), (0, 0, 0))) as server:
        result = drain(server.url)
    assert not result.get("failed"), result
    assert (result["changed"], result["metrics"], result["polls"], result["samples"]) == (False, True, 3, 3)
    assert result["waited"] >= 2


def test_requests_still_in_flight_after_the_timeout_fail_naming_the_server():
    with Server(metrics_in_turn((0, 1, 0))) as server:
        result = drain(server.url, timeout=1)
    assert result["failed"] and "%s still has 1 requests in flight after 1 s" % server.url in result["msg"], result


def test_a_server_without_metrics_is_said_at_once():
    with Server(reply(b"Not Found", status=404, content_type="text/plain")) as server:
        result = drain(server.url)
    assert (result.get("failed"), result["metrics"], len(server.requests)) == (None, False, 1)


def test_samples_of_other_metrics_count_nothing():
    assert in_flight('sglang:num_running_reqs_total{a="1"} 9\nx_sglang:num_queue_reqs{a="1"} 5\n'
                     'sglang:num_queue_reqs{a="1"} 1.5e+1\n') == (15, 1)


@pytest.mark.parametrize("answer, says", [
    (reply(b"down", status=503), "/metrics answered HTTP 503"),
])
def test_an_answer_of_another_status_is_one_sentence(answer, says):
    with Server(answer) as server:
        result = drain(server.url)
    assert result["failed"] and result["msg"].startswith("The requests in flight could not be waited for") \
        and says in result["msg"], result


def test_a_redirect_to_another_origin_is_not_followed():
    with Server(reply(b"")) as elsewhere:
        with Server(redirect(elsewhere.url + "/metrics")) as server:
            result = drain(server.url)
    assert elsewhere.requests == [] and "another origin; nothing was sent there" in result["msg"]


def test_an_answer_without_end_is_cut_at_its_cap():
    with Server(flood(256)) as server:
        result = bounded(lambda: drain(server.url), seconds=40, memory=48 * MIB)
    assert result["failed"] and "answered more than 16 MB" in result["msg"], json.dumps(result)[:300]
