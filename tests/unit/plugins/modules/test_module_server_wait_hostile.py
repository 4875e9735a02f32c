"""gpufleet.sglang.server_wait against a server whose answers an attacker writes (a small server on loopback; the
well-behaved answers are SGLang's own, in tests/real_sglang and the molecule scenarios). The unit it watches is
one systemd does not know here (this machine runs no systemd): systemctl answers nothing, which the wait reads
as a unit that has not failed."""

import json
import time

import pytest

from gpufleet_testlib.bounded import MIB, bounded
from gpufleet_testlib.hostile_http import Server, flood, redirect, reply
from gpufleet_testlib.modules import run_module
from ansible_collections.gpufleet.sglang.plugins.modules import server_wait

API_KEY = "server-key-never-elsewhere"


def wait(url, timeout=5):
    return run_module(server_wait, dict(url=url, unit="sglang-hostile.service", api_key=API_KEY, timeout=timeout,
                                        interval=1))


def healthy_then(info_answer):
    def answer(handler):
        if handler.path == "/health_generate":
            reply(b"")(handler)
        else:
            info_answer(handler)
    return answer


def one_sentence(result):
    assert result["failed"] and "Traceback" not in result["msg"] and API_KEY not in json.dumps(result), result
    return result["msg"]


def test_a_server_info_redirected_to_another_origin_gets_no_key():
    with Server(reply(b"{}")) as elsewhere:
        with Server(healthy_then(redirect(elsewhere.url + "/server_info"))) as server:
            msg = one_sentence(wait(server.url))
    assert elsewhere.requests == [] and "another origin; nothing was sent there" in msg


@pytest.mark.parametrize("body, says", [
    (b"<html>hi</html>", "/server_info's answer is not JSON"),
    (b"[1]", "holds a JSON list, not a JSON object"),
    (b'{"a": ' * 50 + b"1" + b"}" * 50, "nested deeper than 32 levels"),
])
def test_a_server_info_of_the_wrong_shape_is_one_sentence(body, says):
    with Server(healthy_then(reply(body))) as server:
        msg = one_sentence(wait(server.url))
    assert "could not be read" in msg and says in msg, msg


def test_a_server_info_without_end_is_cut_at_its_cap():
    with Server(healthy_then(flood(256))) as server:
        msg = one_sentence(bounded(lambda: wait(server.url), seconds=40, memory=16 * MIB))
    assert "answered more than 4 MB" in msg


def test_a_health_probe_that_never_answers_ends_with_the_wait():
    with Server(lambda handler: time.sleep(30)) as server:
        start = time.monotonic()
        msg = one_sentence(bounded(lambda: wait(server.url, timeout=2), seconds=15))
    assert "no healthy answer within 2 s" in msg and time.monotonic() - start < 8
