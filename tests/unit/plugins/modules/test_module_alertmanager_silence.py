"""gpufleet.sglang.alertmanager_silence against Debian's Alertmanager 0.25, running on loopback
(tests/gpufleet_testlib/prometheus.py): a planned absence made, kept when asked again at once, made longer,
expired, reported in check mode without a change, and silences that others made left alone. Then against an
Alertmanager that an attacker controls (tests/gpufleet_testlib/hostile_http.py): a redirect to another origin,
an answer without end and answers of the wrong shape each fail the task in one sentence."""

import json
import urllib.request

import pytest

from gpufleet_testlib import prometheus
from gpufleet_testlib.hostile_http import Server, flood, redirect, reply
from gpufleet_testlib.modules import run_module
from ansible_collections.gpufleet.sglang.plugins.modules import alertmanager_silence

HOST = {"host": "gpu-01"}


@pytest.fixture(scope="module")
def alertmanager(tmp_path_factory):
    with prometheus.alertmanager(tmp_path_factory.mktemp("alertmanager")) as url:
        yield url


def silence(url, check_mode=False, **args):
    return run_module(alertmanager_silence, dict(dict(url=url, labels=HOST), **args), check_mode=check_mode)


def live(url, labels=None):
    """{id: (createdBy, endsAt)} of the live silences Alertmanager lists for the labels."""
    query = "&".join('filter=%s%%3D%%22%s%%22' % item for item in sorted((labels or HOST).items()))
    with urllib.request.urlopen(url + "/api/v2/silences?" + query, timeout=10) as answer:
        return dict((entry["id"], (entry["createdBy"], entry["endsAt"])) for entry in json.loads(answer.read())
                    if entry["status"]["state"] == "active")


def test_a_planned_absence_is_one_silence_kept_lengthened_and_expired(alertmanager):
    made = silence(alertmanager, seconds=1800)
    assert made["changed"] and made["silence_id"] and not made.get("failed"), made
    assert list(live(alertmanager)) == [made["silence_id"]]
    again = silence(alertmanager, seconds=1800)
    assert not again["changed"] and again["silence_id"] == made["silence_id"]  # run again at once: nothing
    longer = silence(alertmanager, seconds=7200)
    assert longer["changed"] and longer["ends_at"] > made["ends_at"]
    assert list(live(alertmanager)) == [longer["silence_id"]]  # one silence, never two
    ended = silence(alertmanager, state="absent")
    assert ended["changed"] and ended["expired"] == [longer["silence_id"]] and live(alertmanager) == {}
    assert not silence(alertmanager, state="absent")["changed"]


def test_an_absence_may_end_within_a_grace_so_that_the_alerts_it_covered_resolve_first(alertmanager):
    """At a server's return its alerts still fire until Prometheus scrapes it and evaluates the rules again: expired
    at once, the silence would let them page. absent with end_within: the silence ends that soon, not at once."""
    host = {"host": "gpu-05"}
    made = silence(alertmanager, labels=host, seconds=1800)
    ending = silence(alertmanager, labels=host, state="absent", end_within=60)
    assert ending["changed"] and ending["ends_at"] < made["ends_at"], (made, ending)
    (ends,) = [ends for _by, ends in live(alertmanager, host).values()]
    assert ends == ending["ends_at"]  # the one live silence now ends within the minute
    assert not silence(alertmanager, labels=host, state="absent", end_within=60)["changed"]  # at once again: nothing
    assert not silence(alertmanager, labels=host, state="absent", end_within=600)["changed"]  # never made longer
    assert silence(alertmanager, labels=host, state="absent")["changed"] and live(alertmanager, host) == {}
    assert not silence(alertmanager, labels=host, state="absent", end_within=60)["changed"]  # none to end: none made


def test_check_mode_reports_and_changes_nothing(alertmanager):
    would = silence(alertmanager, check_mode=True, labels={"host": "gpu-02"})
    assert would["changed"] and would["silence_id"] is None and live(alertmanager, {"host": "gpu-02"}) == {}


def test_a_silence_someone_else_made_is_left_alone(alertmanager):
    theirs = silence(alertmanager, labels={"host": "gpu-03"}, created_by="oncall")["silence_id"]
    ours = silence(alertmanager, labels={"host": "gpu-03"})["silence_id"]
    assert sorted(live(alertmanager, {"host": "gpu-03"})) == sorted([theirs, ours])
    silence(alertmanager, labels={"host": "gpu-03"}, state="absent")
    assert list(live(alertmanager, {"host": "gpu-03"})) == [theirs]


def test_a_silence_of_more_labels_is_another_one(alertmanager):
    """A silence of {host: gpu-04, alertname: X} is not the host's planned absence."""
    narrow = silence(alertmanager, labels={"host": "gpu-04", "alertname": "SGLangServerDown"})["silence_id"]
    broad = silence(alertmanager, labels={"host": "gpu-04"})
    assert broad["changed"] and broad["silence_id"] != narrow


def test_no_labels_and_no_time_are_refused_saying_what_to_give(alertmanager):
    assert "labels is empty" in silence(alertmanager, labels={})["msg"]
    assert "seconds must be positive" in silence(alertmanager, seconds=0)["msg"]
    assert "end_within must not be negative" in silence(alertmanager, state="absent", end_within=-1)["msg"]


def one_sentence(result):
    assert result["failed"] and "Traceback" not in result["msg"], result
    return result["msg"]


def test_a_redirect_to_another_origin_is_refused():
    with Server(reply(b"[]")) as elsewhere:
        with Server(redirect(elsewhere.url + "/api/v2/silences")) as hostile:
            msg = one_sentence(silence(hostile.url))
    assert elsewhere.requests == [] and "another origin; nothing was sent there" in msg


def test_an_answer_without_end_is_cut_at_its_cap():
    with Server(flood(8)) as hostile:
        msg = one_sentence(silence(hostile.url, timeout=20))
    assert "answered more than 4 MB" in msg


@pytest.mark.parametrize("body, says", [
    (b'{"silences": []}', "not a JSON list"),
    (b'["x"]', "is not an object"),
    (b'[{"id": "a", "createdBy": "gpufleet.sglang", "status": {"state": "active"}, "matchers": "host=gpu-01",'
     b' "endsAt": "2026-12-07T03:00:00.000Z"}]', "matchers that are not name/value objects"),
    (b'[{"id": "a", "createdBy": "gpufleet.sglang", "status": {"state": "active"}, "matchers": [],'
     b' "endsAt": "tomorrow"}]', "endsAt that is not an RFC 3339 time"),
])
def test_an_answer_of_the_wrong_shape_is_one_sentence_naming_it(body, says):
    with Server(reply(body)) as hostile:
        msg = one_sentence(silence(hostile.url))
    assert says in msg and hostile.url in msg, msg
