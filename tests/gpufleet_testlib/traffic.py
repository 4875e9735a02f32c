"""Client traffic through a router, and a watch on its workers, from the controller.

Both send only to the addresses they are given (loopback or the project's own test containers),
and stop by themselves after their limits.
"""

import json
import threading
import time
import urllib.error
import urllib.request


def _request(url, body=None, key=None, timeout=30):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    if key:
        request.add_header("Authorization", "Bearer " + key)
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return response.status, json.loads(response.read() or b"null")


class ClientLoad(object):
    """``clients`` threads sending varied /generate requests through ``router`` until stopped,
    at most ``limit`` requests or ``seconds`` in all. Records (start, seconds, ok, detail)."""

    def __init__(self, router, key, clients=12, limit=3000, seconds=600):
        self.router, self.key, self.clients, self.limit, self.seconds = router, key, clients, limit, seconds
        self.records = []
        self.lock = threading.Lock()
        self.stop_event = threading.Event()
        self.threads = [threading.Thread(target=self._run, args=(number,), daemon=True) for number in range(clients)]

    def start(self):
        self.began = time.monotonic()
        for thread in self.threads:
            thread.start()
        return self

    def _run(self, number):
        sent = 0
        while not self.stop_event.is_set() and len(self.records) < self.limit \
                and time.monotonic() - self.began < self.seconds:
            sent += 1
            body = {"text": "client %d request %d: tell me about %s" % (number, sent, ["rivers", "gpus", "tea"][sent % 3]),
                    "sampling_params": {"max_new_tokens": 4 + sent % 5, "temperature": 0}}
            start = time.monotonic()
            try:
                status, answer = _request(self.router + "/generate", body, self.key)
                ok, detail = status == 200, answer["meta_info"].get("standin_server")
            except (urllib.error.URLError, OSError, ValueError) as exc:
                ok, detail = False, str(exc)
            with self.lock:
                self.records.append((start - self.began, time.monotonic() - start, ok, detail))
            if not ok:
                time.sleep(0.1)  # a refusing router answers at once: no busy loop

    def stop(self):
        self.stop_event.set()
        for thread in self.threads:
            thread.join()
        return self

    @property
    def failed(self):
        return [record for record in self.records if not record[2]]

    @property
    def servers(self):
        return set(record[3] for record in self.records if record[2])

    def latency(self, quantile):
        times = sorted(record[1] for record in self.records if record[2])
        return times[min(len(times) - 1, int(quantile * len(times)))] if times else None


class WorkerWatch(threading.Thread):
    """Polls a router's GET /workers every ``interval`` s (at most ``limit`` s): the registered URLs over time."""

    def __init__(self, router, key, interval=0.1, limit=900):
        super().__init__(daemon=True)
        self.router, self.key, self.interval, self.limit = router, key, interval, limit
        self.samples = []  # (seconds since start, set of registered URLs)
        self.stop_event = threading.Event()

    def run(self):
        start = time.monotonic()
        while not self.stop_event.is_set() and time.monotonic() - start < self.limit:
            try:
                urls = set(worker["url"] for worker in _request(self.router + "/workers", key=self.key)[1]["workers"])
            except (urllib.error.URLError, OSError, ValueError):
                urls = None  # the router did not answer
            self.samples.append((time.monotonic() - start, urls))
            time.sleep(self.interval)

    def stop(self):
        self.stop_event.set()
        self.join()
        return self

    def fewest_registered(self):
        return min(len(urls) for _moment, urls in self.samples if urls is not None)

    def seen(self, url):
        """Whether the worker was registered at some sample (out_time of a URL never registered is the whole watch)."""
        return any(sample[1] is not None and url in sample[1] for sample in self.samples)

    def out_time(self, url):
        """Seconds the worker was not registered."""
        return sum(later[0] - sample[0] for sample, later in zip(self.samples, self.samples[1:])
                   if sample[1] is not None and url not in sample[1])


def registered(router, key):
    """The router's workers now: [{url, is_healthy, model_id, ...}]."""
    return _request(router + "/workers", key=key)[1]["workers"]
