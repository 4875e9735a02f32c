"""The controller-side health probe used by the upgrade tests and bench/rollout.py, on loopback."""

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from gpufleet_testlib.health_probe import HealthProbe


class Healthy(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def serve():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Healthy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_downtime_of_a_server_that_stops_for_a_while():
    up = serve()
    down = serve()
    down_url = "http://127.0.0.1:%d" % down.server_address[1]
    down.shutdown()
    down.server_close()
    probe = HealthProbe({"up": "http://127.0.0.1:%d" % up.server_address[1], "down": down_url},
                        interval=0.05, limit=5)
    probe.start()
    time.sleep(0.6)
    probe.stop()
    up.shutdown()

    assert probe.downtime("up") == 0
    # Down in every sample: its downtime is the whole span the probe watched.
    assert probe.downtime("down") == pytest.approx(probe.samples[-1][0] - probe.samples[0][0])
    assert probe.downtime("down") > 0
    assert probe.most_down_at_once() == 1
    assert probe.capacity().strip() == "50%"
