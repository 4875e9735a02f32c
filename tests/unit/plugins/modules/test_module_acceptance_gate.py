"""gpufleet.sglang.acceptance_gate against a server whose answers a test writes (a small server on loopback). The
real SGLang's answer to the gate's batch is tested in molecule/real (gate.yml), its acceptance length in
tests/real_sglang/test_speculative_alerts.py; the gate against the stand-in's drafts in the upgrade scenario."""

import json

import pytest

from gpufleet_testlib.bounded import MIB, bounded
from gpufleet_testlib.hostile_http import Server, flood, redirect, reply
from gpufleet_testlib.modules import run_module
from ansible_collections.gpufleet.sglang.plugins.module_utils._server_health import gate_failure
from ansible_collections.gpufleet.sglang.plugins.modules import acceptance_gate

API_KEY = "gate-key-never-elsewhere"


def sglang(accept_length, answers=None):
    """SGLang's two answers the gate reads: a list for /generate (one per prompt), /server_info's object."""
    def answer(handler):
        if handler.path == "/generate":
            prompts = json.loads(handler.body)["text"]
            body = [{"text": "one two", "meta_info": {}}] * (len(prompts) if answers is None else answers)
        else:
            body = {"internal_states": [{"avg_spec_accept_length": accept_length}]}
        reply(json.dumps(body).encode())(handler)
    return answer


def gate(url, **args):
    return run_module(acceptance_gate, dict(dict(url=url, api_key=API_KEY, requests=4, timeout=5), **args))


def one_sentence(result):
    assert result["failed"] and "Traceback" not in result["msg"] and API_KEY not in json.dumps(result), result
    return result["msg"]


def test_the_prompts_go_as_one_batch_with_the_key_then_the_length_is_read():
    with Server(sglang(3.3)) as server:
        result = gate(server.url, max_new_tokens=8, previous_accept_length=3.2)
    assert not result.get("failed"), result
    assert (result["changed"], result["accept_length"], result["answered"]) == (False, 3.3, 4)
    assert [request["path"] for request in server.requests] == ["/generate", "/server_info"]
    assert {request["headers"].get("Authorization") for request in server.requests} == {"Bearer " + API_KEY}
    batch = json.loads(server.requests[0]["body"])
    assert len(batch["text"]) == len(set(batch["text"])) == 4
    assert batch["sampling_params"] == {"max_new_tokens": 8, "temperature": 0}


def test_without_requests_only_the_length_is_read():
    with Server(sglang(2.5)) as server:
        result = gate(server.url, requests=0)
    assert result["accept_length"] == 2.5 and [request["path"] for request in server.requests] == ["/server_info"]


def test_a_draft_below_the_minimum_or_the_previous_fails_saying_by_how_much():
    with Server(sglang(1.1)) as server:
        msg = one_sentence(gate(server.url, previous_accept_length=3.3))
    assert msg == ("acceptance gate: the new draft's average acceptance length is 1.1 after 4 requests; "
                   "required at least 2.0 and at least 2.97 (0.90 x the previous draft's 3.3).")


@pytest.mark.parametrize("measured, previous, passes", [
    (2.0, None, True),        # the minimum itself
    (1.99, None, False),
    (2.97, 3.3, True),        # 0.9 x the previous
    (2.9, 3.3, False),        # above the minimum, too far below the previous
    (2.5, 1.0, True),         # a better draft than the previous
    (None, None, False),      # a server that reports none counts as 0
])
def test_the_gates_rule(measured, previous, passes):
    assert (gate_failure(measured, 16, 2.0, previous, 0.10) is None) == passes


def test_a_server_that_answers_fewer_prompts_than_sent_fails():
    with Server(sglang(3.5, answers=3)) as server:
        msg = one_sentence(gate(server.url))
    assert msg == "acceptance gate: %s/generate answered 3 of the 4 prompts sent to it as one batch." % server.url


def test_a_redirect_to_another_origin_gets_no_key_and_no_prompt():
    with Server(reply(b"[]")) as elsewhere:
        with Server(redirect(elsewhere.url + "/generate")) as server:
            msg = one_sentence(gate(server.url))
    assert elsewhere.requests == [] and "another origin; nothing was sent there" in msg


@pytest.mark.parametrize("answer, says", [
    (reply(b"<html>busy</html>"), "/generate's answer is not JSON"),
    (reply(b'{"text": "one"}'), "holds a JSON object, not a JSON list"),
    (reply(b"overloaded", status=503), "/generate answered HTTP 503"),
])
def test_an_answer_of_the_wrong_shape_is_one_sentence(answer, says):
    with Server(answer) as server:
        msg = one_sentence(gate(server.url))
    assert msg.startswith("acceptance gate: the batch of 4 prompts failed: ") and says in msg, msg


def test_an_answer_without_end_is_cut_at_its_cap():
    with Server(flood(256)) as server:
        msg = one_sentence(bounded(lambda: gate(server.url, requests=2), seconds=40, memory=16 * MIB))
    assert "answered more than" in msg


def test_a_negative_count_is_refused_before_anything_is_sent():
    with Server(sglang(3.0)) as server:
        msg = one_sentence(gate(server.url, requests=-1))
    assert server.requests == [] and "requests must be 0 or more" in msg
