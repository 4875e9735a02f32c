"""A probe that polls servers' /health from the controller while something happens to them.

Used by the upgrade scenario's tests and by bench/rollout.py. It only talks to the addresses
it is given (loopback or the project's own test containers), and stops by itself after `limit`.
"""

import threading
import time
import urllib.error
import urllib.request


class HealthProbe(threading.Thread):
    def __init__(self, urls, interval=0.1, limit=1800):
        """urls: {name: base URL}; polls <base>/health every `interval` s for at most `limit` s."""
        super().__init__(daemon=True)
        self.urls, self.interval, self.limit = urls, interval, limit
        self.samples = []  # (seconds since start, {name: healthy})
        self.started = None  # start's time.monotonic(): systemd's *TimestampMonotonic count on the same clock
        self.stop_event = threading.Event()

    def run(self):
        start = self.started = time.monotonic()
        while not self.stop_event.is_set() and time.monotonic() - start < self.limit:
            state = {}
            for name, base in self.urls.items():
                try:
                    with urllib.request.urlopen(base + "/health", timeout=1) as response:
                        state[name] = response.status == 200
                except (urllib.error.URLError, OSError):
                    state[name] = False
            self.samples.append((time.monotonic() - start, state))
            time.sleep(self.interval)

    def stop(self):
        self.stop_event.set()
        self.join()
        return self.samples

    def downtime(self, name):
        return sum(later[0] - sample[0] for sample, later in zip(self.samples, self.samples[1:])
                   if not sample[1][name])

    def most_down_at_once(self):
        return max(sum(1 for healthy in sample[1].values() if not healthy) for sample in self.samples)

    def capacity(self, bucket=5.0):
        """Mean fraction of healthy servers per `bucket` seconds, as text."""
        buckets = {}
        for moment, state in self.samples:
            buckets.setdefault(int(moment // bucket), []).append(sum(state.values()) / float(len(state)))
        return " ".join("%3.0f%%" % (100 * sum(buckets[key]) / len(buckets[key])) for key in sorted(buckets))
