"""Waiting for a server: healthy, crashed (failed or restarted unit), or too slow."""

import pytest

from ansible_collections.gpufleet.sglang.plugins.module_utils._server_health import ServerFailed, wait_healthy


class FakeClock(object):
    """Stands in for time: the waits in these tests take no real time."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds


def run(probes, states, timeout=60):
    clock = FakeClock()
    probes, states = iter(probes), iter(states)
    return wait_healthy(lambda: next(probes), lambda: next(states), clock, clock.sleep, timeout, 5)


def test_healthy_after_loading():
    assert run(["ConnectionRefusedError", 503, 200], [("activating", 0)] + [("active", 0)] * 3) == 10


def test_a_restart_ends_the_wait_at_once():
    with pytest.raises(ServerFailed, match=r"state activating, 1 restart since"):
        run(["ConnectionRefusedError", "ConnectionRefusedError"], [("active", 0), ("active", 0), ("activating", 1)])


def test_a_failed_unit_ends_the_wait():
    with pytest.raises(ServerFailed, match="state failed"):
        run([503], [("active", 0), ("failed", 0)])


def test_timeout():
    with pytest.raises(ServerFailed, match=r"no healthy answer within 10 s \(last: 503; unit active\)"):
        run([503] * 10, [("active", 0)] * 11, timeout=10)


def test_the_server_must_run_the_speculative_configuration_its_unit_asks_for():
    from ansible_collections.gpufleet.sglang.plugins.module_utils._server_health import speculative_summary
    argv = ["/v/bin/python", "-m", "sglang.launch_server", "--speculative-algorithm", "EAGLE3",
            "--speculative-draft-model-path", "/d/v2", "--port", "30000"]
    served = {"speculative_algorithm": "EAGLE3", "speculative_draft_model_path": "/d/v2"}
    assert speculative_summary("u.service", served, argv) == ("EAGLE3 with /d/v2", None)
    assert speculative_summary("u.service", dict(served, speculative_draft_model_path="/d/v1"), argv)[1] == (
        "u.service is healthy but runs speculative_algorithm=EAGLE3 with draft /d/v1; asked for EAGLE3 with /d/v2.")
    assert speculative_summary("u.service", {}, argv)[1] == (
        "u.service is healthy but runs speculative_algorithm=none with draft none; asked for EAGLE3 with /d/v2.")
    assert speculative_summary("u.service", served, ["/v/bin/python", "-m", "x"])[1].endswith("asked for none with none.")
    assert speculative_summary("u.service", {}, ["/v/bin/python"]) == ("no speculative decoding", None)
    assert speculative_summary("u.service", served) == ("EAGLE3 with /d/v2", None)  # nothing compared
