"""gpufleet.sglang.health_info against answers a test writes (a small server on loopback), as an attacker would
write them. That the real sglang-router's /health answers it is tested where the router role waits for it (the
groups, upgrade and real scenarios); the real SGLang's, in the lifecycle's abort and launch's status (molecule/real
and the demo fleet's status.yml in tests/integration)."""

import json
import socket

from gpufleet_testlib.bounded import MIB, bounded
from gpufleet_testlib.hostile_http import Server, flood, redirect, reply
from gpufleet_testlib.modules import run_module
from ansible_collections.gpufleet.sglang.plugins.modules import health_info


def ask(url, **args):
    return run_module(health_info, dict(dict(url=url, timeout=5), **args))


def answers_in_turn(*answers):
    """Each request gets the next of ``answers``, the last one after."""
    pending = list(answers)

    def answer(handler):
        (pending.pop(0) if len(pending) > 1 else pending[0])(handler)
    return answer


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_200_is_healthy_and_nothing_is_sent_but_the_request():
    with Server(reply(b"")) as server:
        result = ask(server.url)
    assert (result.get("failed"), result["changed"], result["healthy"], result["status"], result["error"],
            result["asks"]) == (None, False, True, 200, "", 1), result
    assert [(request["path"], request["body"], "Authorization" in request["headers"])
            for request in server.requests] == [("/health", b"", False)]


def test_another_status_is_said_and_is_not_a_failure_of_the_task():
    with Server(reply(b"starting", status=503, content_type="text/plain")) as server:
        result = ask(server.url)
    assert (result.get("failed"), result["healthy"], result["status"]) == (None, False, 503), result
    assert result["error"] == "%s/health answered HTTP 503" % server.url


def test_with_wait_it_asks_until_the_answer_is_200():
    with Server(answers_in_turn(reply(b"", status=503), reply(b"", status=503), reply(b""))) as server:
        result = ask(server.url, wait=20, interval=1)
    assert (result["healthy"], result["asks"], len(server.requests)) == (True, 3, 3), result


def test_must_answer_fails_after_the_wait_naming_the_url_and_the_reason():
    with Server(reply(b"", status=503)) as server:
        result = ask(server.url, wait=2, interval=1, must_answer=True)
    assert result["failed"] and result["msg"] == "%s/health did not answer 200 within 2 s: %s/health answered " \
        "HTTP 503" % (server.url, server.url), result
    assert result["asks"] >= 2


def test_nothing_listening_is_not_healthy():
    result = ask("http://127.0.0.1:%d" % free_port())
    assert (result.get("failed"), result["healthy"], result["status"]) == (None, False, 0), result
    assert result["error"], result


def test_a_redirect_to_another_origin_is_not_followed():
    with Server(reply(b"")) as elsewhere:
        with Server(redirect(elsewhere.url + "/health")) as server:
            result = ask(server.url)
    assert elsewhere.requests == [] and result["healthy"] is False, result
    assert "another origin; nothing was sent there" in result["error"], result


def test_an_answer_without_end_is_cut_at_its_cap():
    with Server(flood(256)) as server:
        result = bounded(lambda: ask(server.url), seconds=40, memory=48 * MIB)
    assert result["healthy"] is False and "answered more than 65536 bytes" in result["error"], json.dumps(result)[:300]


def test_an_error_answer_without_end_is_cut_too():
    with Server(flood(256, status=503)) as server:
        result = bounded(lambda: ask(server.url), seconds=40, memory=48 * MIB)
    assert (result["healthy"], result["status"]) == (False, 503), json.dumps(result)[:300]
