"""gpufleet.sglang.server_info against a server whose answers a test writes (a small server on loopback). What a
real SGLang answers, and the acceptance length read from it, is tested against SGLang itself
(tests/real_sglang/test_speculative_alerts.py)."""

import json

import pytest

from gpufleet_testlib.bounded import MIB, bounded
from gpufleet_testlib.hostile_http import Server, flood, redirect, reply
from gpufleet_testlib.modules import run_module
from ansible_collections.gpufleet.sglang.plugins.module_utils._server_health import accept_length
from ansible_collections.gpufleet.sglang.plugins.modules import server_info

API_KEY = "server-key-never-elsewhere"


def read(url, check_mode=False):
    return run_module(server_info, dict(url=url, api_key=API_KEY, timeout=5), check_mode=check_mode)


def one_sentence(result):
    assert result["failed"] and "Traceback" not in result["msg"] and API_KEY not in json.dumps(result), result
    return result["msg"]


def test_what_the_server_says_it_runs_with_its_key_masked_and_sent_to_it_alone():
    info = {"api_key": API_KEY, "speculative_draft_model_path": "/srv/models/draft",
            "internal_states": [{"avg_spec_accept_length": 2.75}]}
    with Server(reply(json.dumps(info).encode())) as server:
        result = read(server.url, check_mode=True)  # a read: the same in check mode
    assert [request["headers"].get("Authorization") for request in server.requests] == ["Bearer " + API_KEY]
    assert (result["changed"], result["accept_length"], result["draft"]) == (False, 2.75, "/srv/models/draft")
    assert API_KEY not in json.dumps(result) and result["server_info"]["api_key"] != API_KEY


@pytest.mark.parametrize("info", [
    {},                                                       # no speculative decoding
    {"internal_states": []},
    {"internal_states": [{"avg_spec_accept_length": None}]},  # nothing decoded yet
    {"internal_states": [{"avg_spec_accept_length": "3"}]},
    {"internal_states": [{"avg_spec_accept_length": True}]},
    {"internal_states": "x"},
    {"internal_states": [7]},
])
def test_an_acceptance_length_the_answer_lacks_is_none(info):
    assert accept_length(info) is None


def test_a_draft_path_that_is_not_a_string_is_no_draft():
    with Server(reply(json.dumps({"speculative_draft_model_path": ["/etc"]}).encode())) as server:
        result = read(server.url)
    assert (result["draft"], result["accept_length"]) == ("", None)


def test_the_first_ranks_acceptance_length_is_read():
    assert accept_length({"internal_states": [{"avg_spec_accept_length": 3}, {"avg_spec_accept_length": 1.5}]}) == 3.0


def test_a_redirect_to_another_origin_gets_no_key():
    with Server(reply(b"{}")) as elsewhere:
        with Server(redirect(elsewhere.url + "/server_info")) as server:
            msg = one_sentence(read(server.url))
    assert elsewhere.requests == [] and "another origin; nothing was sent there" in msg


@pytest.mark.parametrize("answer, says", [
    (reply(b"<html>hi</html>"), "/server_info's answer is not JSON"),
    (reply(b"[1]"), "holds a JSON list, not a JSON object"),
    (reply(b'{"a": ' * 50 + b"1" + b"}" * 50), "nested deeper than 32 levels"),
    (reply(b"denied", status=401), "/server_info answered HTTP 401"),
])
def test_an_answer_of_the_wrong_shape_is_one_sentence(answer, says):
    with Server(answer) as server:
        msg = one_sentence(read(server.url))
    assert msg.startswith("The server's /server_info could not be read: ") and says in msg, msg


def test_an_answer_without_end_is_cut_at_its_cap():
    with Server(flood(256)) as server:
        msg = one_sentence(bounded(lambda: read(server.url), seconds=40, memory=16 * MIB))
    assert "answered more than 4 MB" in msg


def test_a_server_that_is_not_there_is_one_sentence():
    with Server(reply(b"{}")) as server:
        url = server.url
    assert "cannot be reached" in one_sentence(read(url))
