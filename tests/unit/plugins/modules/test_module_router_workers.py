"""gpufleet.sglang.router_workers against the real sglang-router 0.3.2 (PyPI) and two stand-in workers."""

import pytest

from gpufleet_testlib import router
from gpufleet_testlib.modules import run_module
from gpufleet_testlib.standin import eagle_args, free_port, kimi_models, launch
from ansible_collections.gpufleet.sglang.plugins.modules import router_workers

WORKER_KEY = "worker-key-1"
ADMIN_KEY = "admin-key-2"


@pytest.fixture(scope="module")
def fleet(pristine_trees, tmp_path_factory):
    """Two workers and a router that knows neither yet; yields (router URL, [worker URLs])."""
    target, draft = kimi_models(str(tmp_path_factory.mktemp("models")))
    workers, urls = [], []
    for _worker in range(2):
        port = free_port()
        workers.append(launch(pristine_trees["0.5.10"], eagle_args(target, draft, port, "--api-key", WORKER_KEY,
                                                                   "--served-model-name", "kimi-k2.5"),
                              env={"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "1"}))
        urls.append("http://127.0.0.1:%d" % port)
    port = free_port()
    proc = router.start(port, api_key=WORKER_KEY, control_keys=["gpufleet:gpufleet:admin:" + ADMIN_KEY])
    try:
        yield "http://127.0.0.1:%d" % port, urls
    finally:
        for process in workers + [proc]:
            process.kill()
            process.communicate()


def call(url, workers, check_mode=False, **args):
    return run_module(router_workers, dict(url=url, api_key=ADMIN_KEY, workers=workers, worker_api_key=WORKER_KEY,
                                           **args), check_mode=check_mode, diff=True)


def registered(url):
    return sorted(worker["url"] for worker in call(url, [], check_mode=True)["workers"])


def test_register_exclusively_then_idempotent_then_drain_and_restore(fleet):
    url, (first, second) = fleet
    planned = call(url, [first, second], check_mode=True, exclusive=True)
    assert planned["changed"] and sorted(planned["added"]) == sorted([first, second])
    assert registered(url) == []  # check mode changed nothing

    done = call(url, [first, second], exclusive=True, wait_healthy=True)
    assert done["changed"] and done["diff"]["after"] == "\n".join(sorted([first, second])) + "\n"
    listed = dict((worker["url"], worker) for worker in done["workers"])
    assert listed[first]["is_healthy"] and listed[first]["model_id"] == "kimi-k2.5"  # it read /model_info with the key

    again = call(url, [first, second], exclusive=True)
    assert not again["changed"] and again["added"] == [] and again["removed"] == []

    drained = call(url, [first], state="absent", require_registered=True)
    assert drained["changed"] and drained["removed"] == [first]
    assert registered(url) == [second]

    restored = call(url, [first], wait_healthy=True)
    assert restored["changed"] and registered(url) == sorted([first, second])


def test_a_worker_the_router_does_not_know_fails_before_any_change(fleet):
    url, (first, second) = fleet
    call(url, [first, second], exclusive=True, wait_healthy=True)
    result = call(url, [first + "/"], check_mode=True, state="absent", require_registered=True)
    assert result["failed"]
    assert "does not know %s/; it has registered " % first in result["msg"]
    assert "%s (healthy)" % first in result["msg"] and "%s (healthy)" % second in result["msg"]
    assert registered(url) == sorted([first, second])


def test_exclusive_removes_workers_that_are_not_wanted(fleet):
    url, (first, second) = fleet
    call(url, [first, second], exclusive=True, wait_healthy=True)
    result = call(url, [second], exclusive=True)
    assert result["removed"] == [first]
    assert registered(url) == [second]


def test_a_wrong_key_is_refused_with_what_to_give(fleet):
    url, workers = fleet
    result = run_module(router_workers, dict(url=url, api_key="wrong", workers=workers))
    assert result["failed"]
    assert "refuses the key (401 on GET /workers): give the router's control-plane key" in result["msg"]


def test_an_unreachable_router_says_so():
    result = run_module(router_workers, dict(url="http://127.0.0.1:%d" % free_port(), api_key=ADMIN_KEY,
                                             workers=["http://127.0.0.1:1"]))
    assert result["failed"]
    assert "cannot be reached" in result["msg"]
