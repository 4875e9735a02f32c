"""Run a call as an attacker's input would meet it: a hang is a failure, and so is memory past a bound.

    result = bounded(lambda: read(path, limit), seconds=5, memory=8 * MIB)

The call runs in a daemon thread (a call that hangs is left there and the test fails at once); the memory
is the peak that Python allocated during the call (tracemalloc), which a whole read of a large file or an
endless body would exceed."""

import threading
import tracemalloc

MIB = 1024 * 1024


class Hung(AssertionError):
    pass


def bounded(call, seconds=10, memory=64 * MIB):
    """call()'s result (or its exception, raised again), failing when it takes more than ``seconds`` or
    allocates more than ``memory`` bytes at its peak."""
    outcome = {}

    def run():
        try:
            outcome["value"] = call()
        except BaseException as exc:  # pylint: disable=broad-except
            outcome["error"] = exc

    tracemalloc.start()
    try:
        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        worker.join(seconds)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    if worker.is_alive():
        raise Hung("the call did not end within %s s" % seconds)
    assert peak <= memory, "the call allocated %d MiB at its peak, more than %d" % (peak // MIB, memory // MIB)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
