"""gpufleet.sglang.router_workers against a router that an attacker controls (a small server on loopback whose
answers each test writes; every well-behaved answer is tested against the real sglang-router in
test_module_router_workers.py): the admin key never leaves the router's origin, a call ends at its deadline, an
answer is capped, and an answer of the wrong shape is one sentence."""

import json
import time

import pytest

from gpufleet_testlib.bounded import MIB, bounded
from gpufleet_testlib.hostile_http import Server, flood, redirect, reply
from gpufleet_testlib.modules import run_module
from ansible_collections.gpufleet.sglang.plugins.modules import router_workers

ADMIN_KEY = "admin-key-never-elsewhere"


def call(url, timeout=3, **args):
    return run_module(router_workers, dict(url=url, api_key=ADMIN_KEY, workers=["http://10.0.0.11:30000"],
                                           timeout=timeout, **args), check_mode=True)


def one_sentence(result):
    assert result["failed"] and "Traceback" not in result["msg"] and ADMIN_KEY not in json.dumps(result), result
    return result["msg"]


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_a_redirect_to_another_origin_gets_no_key_and_fails_the_task(status):
    with Server(reply(b"{}")) as elsewhere:
        with Server(redirect(elsewhere.url + "/workers", status)) as router:
            msg = one_sentence(call(router.url))
    assert elsewhere.requests == []  # nothing at all was sent to the other origin, the key least of all
    assert "redirects to %s/workers, another origin; nothing was sent there" % elsewhere.url in msg
    assert router.requests[0]["headers"]["Authorization"] == "Bearer " + ADMIN_KEY


def test_an_answer_that_drips_ends_at_the_calls_deadline():
    def drip(handler):
        handler.send_response(200)
        handler.send_header("Content-Length", "1000")
        handler.end_headers()
        for _byte in range(1000):
            handler.wfile.write(b" ")
            handler.wfile.flush()
            time.sleep(0.5)
    with Server(drip) as router:
        start = time.monotonic()
        msg = one_sentence(bounded(lambda: call(router.url, timeout=2), seconds=8))
        took = time.monotonic() - start
    assert "did not finish its answer within 2 s" in msg and took < 4, (msg, took)


def test_an_answer_that_never_starts_ends_at_the_calls_deadline():
    with Server(lambda handler: time.sleep(30)) as router:
        start = time.monotonic()
        msg = one_sentence(bounded(lambda: call(router.url, timeout=2), seconds=8))
        assert time.monotonic() - start < 4 and router.url in msg


def test_an_answer_of_256_mib_is_cut_at_its_cap_not_read_whole():
    with Server(flood(256)) as router:
        msg = one_sentence(bounded(lambda: call(router.url, timeout=10), seconds=20, memory=16 * MIB))
    assert "answered more than 4 MB" in msg


@pytest.mark.parametrize("body, content_type, says", [
    (b"<html><body>Welcome to nginx</body></html>", "text/html", "/workers's answer is not JSON"),
    (b"[1, 2]", "application/json", "holds a JSON list, not a JSON object"),
    (b'{"workers": {"a": 1}}', "application/json", 'whose workers is {"a": 1}, not a list'),
    (b'{"workers": [1, "x", null]}', "application/json", "a worker (#0) that is 1, not an object"),
    (b'{"workers": [{"id": "a", "url": 3, "is_healthy": true}]}', "application/json", "whose url is 3"),
    (b'{"workers": [{"id": "a", "url": "http://h:1", "is_healthy": "yes"}]}', "application/json",
     'whose is_healthy is "yes"'),
    (b'{"total": 0}', "application/json", "whose workers is missing, not a list"),
    (b'{"workers": [], "x": NaN}', "application/json", "NaN is not a JSON number"),
])
def test_an_answer_of_the_wrong_shape_is_one_sentence_naming_the_url(body, content_type, says):
    with Server(reply(body, content_type=content_type)) as router:
        msg = one_sentence(call(router.url))
    assert "%s/workers" % router.url in msg and says in msg, msg


def test_an_error_body_without_end_is_cut_and_shown_short():
    with Server(flood(64, status=500, byte=b"e")) as router:
        msg = one_sentence(bounded(lambda: call(router.url, timeout=5), seconds=15, memory=8 * MIB))
    assert "answered GET /workers with 500: eeee" in msg and len(msg) < 600
