"""The event source gpufleet.sglang.alertmanager (extensions/eda/plugins/event_source/alertmanager.py), loaded from
its file as ansible-rulebook loads it, serving on a real socket, asked as an attacker and as Alertmanager would.
tests/eda runs it inside the real ansible-rulebook."""

import asyncio
import importlib.util
import json
import os
import socket

import aiohttp
import pytest

from gpufleet_testlib import ROOT

PATH = os.path.join(ROOT, "extensions", "eda", "plugins", "event_source", "alertmanager.py")
TOKEN = "s3cret-token-for-the-tests"


def load():
    spec = importlib.util.spec_from_file_location("gpufleet_alertmanager_source", PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SOURCE = load()


def alert(name="SGLangAcceptanceLengthLow", status="firing", fingerprint="a1b2c3", starts="2026-12-07T10:00:00Z",
          **labels):
    return {"status": status, "labels": dict(alertname=name, **labels), "annotations": {"summary": "low"},
            "startsAt": starts, "endsAt": "0001-01-01T00:00:00Z", "generatorURL": "http://prom:9090/graph",
            "fingerprint": fingerprint}


def payload(*alerts):
    return {"version": "4", "status": "firing", "receiver": "eda", "groupKey": "{}:{alertname=\"x\"}",
            "externalURL": "http://am:9093", "alerts": list(alerts), "truncatedAlerts": 0}


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def serve_and_ask(requests, **args):
    """Run the source with args, send requests ((path, headers, body bytes)...), return ([(status, json)], events)."""
    async def scenario():
        queue = asyncio.Queue()
        port = free_port()
        task = asyncio.create_task(SOURCE.main(queue, dict({"port": port, "token": TOKEN}, **args)))
        answers = []
        try:
            async with aiohttp.ClientSession() as session:
                for _attempt in range(100):
                    try:
                        async with session.post("http://127.0.0.1:%d/alerts" % port, data=b"{}") as probe:
                            await probe.read()
                        break
                    except aiohttp.ClientConnectionError:
                        await asyncio.sleep(0.05)
                for path, headers, body in requests:
                    async with session.post("http://127.0.0.1:%d%s" % (port, path), headers=headers,
                                            data=body) as answer:
                        answers.append((answer.status, await answer.json()))
        finally:
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        events = []
        while not queue.empty():
            events.append(queue.get_nowait())
        return answers, events
    return asyncio.run(scenario())


BEARER = {"Authorization": "Bearer " + TOKEN}


def test_each_alert_of_a_post_is_one_event():
    body = json.dumps(payload(alert(host="gpu-01"), alert("SGLangCrashLoop", fingerprint="ffee", host="gpu-02")))
    answers, events = serve_and_ask([("/alerts", BEARER, body.encode())])
    assert answers == [(200, {"queued": 2, "repeated": 0})]
    assert [event["alert"]["labels"] for event in events] == [
        {"alertname": "SGLangAcceptanceLengthLow", "host": "gpu-01"}, {"alertname": "SGLangCrashLoop", "host": "gpu-02"}]
    assert events[0]["meta"] == {"receiver": "eda", "group_key": "{}:{alertname=\"x\"}", "external_url": "http://am:9093"}
    assert events[0]["alert"]["status"] == "firing" and events[0]["alert"]["fingerprint"] == "a1b2c3"


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic " + TOKEN},
                                     {"Authorization": "Bearer " + TOKEN + "x"}, {"Authorization": TOKEN}])
def test_without_the_token_nothing_is_queued(headers):
    body = json.dumps(payload(alert())).encode()
    answers, events = serve_and_ask([("/alerts", headers, body), ("/elsewhere", headers, body)])
    assert [status for status, _answer in answers] == [401, 401]  # the path is not told either
    assert events == []


@pytest.mark.parametrize("body, says", [
    (b"not json", "not JSON"),
    (b"\xff\xfe", "not JSON"),
    (b"[" * 100000, "not JSON"),  # nested past Python's recursion limit: 400, not the server's 500
    (b"[]", "version 4"),
    (json.dumps({"version": "3", "alerts": [alert()]}).encode(), "version 4"),
    (json.dumps(payload()).encode(), "1 to 1000 alerts"),
    (json.dumps(payload(*[alert(fingerprint=str(n)) for n in range(1001)])).encode(), "1 to 1000 alerts"),
    (json.dumps(payload("alert")).encode(), "alerts[0] is not an object"),
    (json.dumps(payload(alert(status="pending"))).encode(), "alerts[0].status"),
    (json.dumps(payload(dict(alert(), fingerprint=""))).encode(), "no fingerprint"),
    (json.dumps(payload(dict(alert(), startsAt=7))).encode(), "no startsAt"),
    (json.dumps(payload(dict(alert(), labels={"alertname": ["x"]}))).encode(), "alerts[0].labels"),
    (json.dumps(payload(alert(), dict(alert(fingerprint="b"), annotations=[]))).encode(), "alerts[1].annotations")])
def test_a_malformed_body_queues_nothing_and_says_why(body, says):
    answers, events = serve_and_ask([("/alerts", BEARER, body)])
    assert answers[0][0] == 400 and says in answers[0][1]["error"], answers
    assert events == []


def test_a_body_over_the_cap_is_refused_unread_or_cut_off():
    big = json.dumps(payload(alert(), dict(alert(fingerprint="b"), annotations={"x": "y" * 5000}))).encode()

    async def chunks():
        for start in range(0, len(big), 1000):
            yield big[start:start + 1000]
    answers, events = serve_and_ask([("/alerts", BEARER, big)], max_body=4096)
    assert answers[0][0] == 413 and events == []
    answers, events = serve_and_ask([("/alerts", BEARER, chunks())], max_body=4096)  # no Content-Length
    assert answers[0][0] == 413 and events == []


def test_an_alert_sent_again_is_not_queued_again_but_its_resolution_and_a_new_start_are():
    once = json.dumps(payload(alert())).encode()
    resolved = json.dumps(payload(alert(status="resolved"))).encode()
    again = json.dumps(payload(alert(starts="2026-12-07T11:00:00Z"))).encode()
    answers, events = serve_and_ask([("/alerts", BEARER, once), ("/alerts", BEARER, once),
                                     ("/alerts", BEARER, resolved), ("/alerts", BEARER, again)])
    assert [answer for _status, answer in answers] == [{"queued": 1, "repeated": 0}, {"queued": 0, "repeated": 1},
                                                       {"queued": 1, "repeated": 0}, {"queued": 1, "repeated": 0}]
    assert [(event["alert"]["status"], event["alert"]["startsAt"]) for event in events] == [
        ("firing", "2026-12-07T10:00:00Z"), ("resolved", "2026-12-07T10:00:00Z"), ("firing", "2026-12-07T11:00:00Z")]


def test_the_replay_window_forgets_and_its_memory_is_bounded():
    now = [0.0]
    replays = SOURCE.Replays(60, clock=lambda: now[0])
    assert replays.first_time(alert()) and not replays.first_time(alert())
    now[0] = 61.0
    assert replays.first_time(alert())
    for number in range(SOURCE.MAX_REMEMBERED + 5):
        replays.first_time(alert(fingerprint=str(number)))
    assert len(replays.seen) <= SOURCE.MAX_REMEMBERED


def test_it_never_listens_without_a_token(tmp_path):
    with pytest.raises(ValueError, match="never listens without one"):
        asyncio.run(SOURCE.main(asyncio.Queue(), {"port": free_port()}))
    empty = tmp_path / "empty"
    empty.write_text("\n")
    with pytest.raises(ValueError, match="never listens without one"):
        SOURCE.read_token({"token_file": str(empty)})
    huge = tmp_path / "huge"
    huge.write_text("x" * 5000)
    with pytest.raises(ValueError, match="larger than 4096 bytes"):
        SOURCE.read_token({"token_file": str(huge)})
    good = tmp_path / "token"
    good.write_text(TOKEN + "\n")
    assert SOURCE.read_token({"token_file": str(good)}) == TOKEN


def test_it_listens_on_loopback_unless_told_otherwise():
    assert "default: 127.0.0.1" in open(PATH).read()
    answers, _events = serve_and_ask([("/alerts", BEARER, json.dumps(payload(alert())).encode())], host="127.0.0.1")
    assert answers[0][0] == 200
