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
