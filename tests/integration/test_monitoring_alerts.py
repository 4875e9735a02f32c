"""The demo fleet's Prometheus and Alertmanager (Debian's packages, inventories/demo/group_vars/prometheus_servers.yml)
and the node exporters on the servers: every target is scraped; rolling changes page no one; a stopped server and
a real crash loop reach a person - here, a webhook receiver this module runs on the controller, at the demo
network's gateway, where the demo's Alertmanager sends every alert. The fleet was converged by
test_execution_environment.py (site.yml, monitoring included); the tests run in this file's order.
"""

import datetime
import http.server
import json
import os
import signal
import subprocess
import threading
import time
import urllib.parse
import urllib.request

import pytest

from gpufleet_testlib import ROOT
from gpufleet_testlib.demo_fleet import CACHE, HOSTS, recap

PROMETHEUS = "http://10.213.0.11:9090"   # inventories/demo: prometheus_servers
RECEIVER = ("0.0.0.0", 19093)            # the demo's webhook receiver (http://10.213.0.1:19093/alerts)
UNIT = "sglang-kimi-k25.service"


class Receiver(http.server.ThreadingHTTPServer):
    """Alertmanager's webhook notifications, as they arrive: (seconds since start, status, labels) per alert."""

    daemon_threads = True

    def __init__(self):
        self.started, self.received = time.monotonic(), []
        super().__init__(RECEIVER, self.Handler)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (http.server's name)
            length = min(int(self.headers.get("Content-Length", 0)), 1 << 20)
            body = json.loads(self.rfile.read(length))
            for alert in body["alerts"]:
                self.server.received.append((time.monotonic() - self.server.started, alert["status"], alert["labels"]))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    def since(self, start, **labels):
        return [(status, got) for at, status, got in list(self.received)
                if at >= start - self.started and all(got.get(k) == v for k, v in labels.items())]


@pytest.fixture(scope="module")
def receiver():
    server = Receiver()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()


def prometheus(path):
    with urllib.request.urlopen(PROMETHEUS + path, timeout=10) as response:
        return json.loads(response.read())["data"]


def wait(what, seconds):
    deadline, seen = time.monotonic() + seconds, None
    while time.monotonic() < deadline:
        seen = what()
        if seen:
            return seen
        time.sleep(1)
    raise AssertionError("not within %d s: %s" % (seconds, seen))


def on(host, *command):
    return subprocess.run(["docker", "exec", host] + list(command), check=True, capture_output=True,
                          text=True).stdout.strip()


def critical_alerts():
    return [(alert["labels"]["alertname"], alert["labels"].get("host"), alert["state"])
            for alert in prometheus("/api/v1/alerts")["alerts"] if alert["labels"].get("severity") == "critical"]


def test_prometheus_scrapes_every_server_its_node_exporter_and_the_router(demo_fleet):
    expected = sorted([("sglang", host) for host in HOSTS] + [("node", host) for host in HOSTS]
                      + [("sglang-router", HOSTS[0])])

    def all_up():
        targets = prometheus("/api/v1/targets")["activeTargets"]
        jobs = sorted((target["labels"]["job"], target["labels"]["host"]) for target in targets
                      if target["health"] == "up" and target["labels"]["job"] != "prometheus")
        return jobs if jobs == expected else None
    wait(all_up, 60)
    labels = [target["labels"] for target in prometheus("/api/v1/targets")["activeTargets"]
              if target["labels"]["job"] == "sglang"]
    assert {label["sglang_version"] for label in labels} == {"0.5.9"}
    assert {label["worker_url"] for label in labels} == {"http://10.213.0.1%d:30000" % n for n in (1, 2, 3)}
    alertmanagers = prometheus("/api/v1/alertmanagers")["activeAlertmanagers"]
    assert [manager["url"] for manager in alertmanagers] == ["http://127.0.0.1:9093/api/v2/alerts"]


ANSIBLE_ENV = dict(os.environ, GPUFLEET_CACHE=CACHE, ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".collections"))


def playbook_command(name, *extra):
    return [os.path.join(ROOT, ".venv", "bin", "ansible-playbook"), "-i", "inventories/demo",
            "gpufleet.sglang." + name] + list(extra)


def playbook(name, *extra):
    run = subprocess.run(playbook_command(name, *extra), cwd=ROOT, capture_output=True, text=True, check=False,
                         timeout=1200, env=ANSIBLE_ENV)
    assert run.returncode == 0, run.stdout[-3000:]
    return run.stdout


def sglang_playbook(*extra):
    playbook("sglang", *extra)


def test_drift_on_the_monitoring_hosts_is_shown_then_put_back_and_prometheus_reloaded(demo_fleet):
    """Each host's monitoring is read in one task and converged only when it differs (a no-op runs no write):
    an edited rule file and node exporter setting are found, shown by --check --diff, written back, and the
    rules reloaded into Prometheus."""
    rules = "/etc/prometheus/rules/gpufleet-sglang.rules.yml"
    on(HOSTS[0], "sh", "-c", "echo '# drift' >> %s" % rules)
    on(HOSTS[1], "sh", "-c", "echo '# drift' >> /etc/default/prometheus-node-exporter")
    reloaded = on(HOSTS[0], "systemctl", "show", "-P", "ExecMainStartTimestampMonotonic", "prometheus")
    checked = playbook("monitoring", "--check", "--diff")
    assert checked.count("-# drift") == 2
    assert [recap(checked)[host]["changed"] > 0 for host in HOSTS] == [True, True, False]
    assert "# drift" in on(HOSTS[0], "cat", rules)  # check mode wrote nothing
    ran = playbook("monitoring")
    assert "RUNNING HANDLER [gpufleet.sglang.monitoring : Reload prometheus]" in ran
    assert "RUNNING HANDLER [gpufleet.sglang.monitoring : Restart the node exporter]" in ran
    assert "# drift" not in on(HOSTS[0], "cat", rules) + on(HOSTS[1], "cat", "/etc/default/prometheus-node-exporter")
    assert on(HOSTS[0], "systemctl", "show", "-P", "ExecMainStartTimestampMonotonic", "prometheus") == reloaded
    again = playbook("monitoring")
    assert "Install Debian's" not in again and "Write the" not in again  # no host ran its converging tasks
    assert [recap(again)[host]["changed"] for host in HOSTS] == [0, 0, 0]


def alertmanager_ready():
    """Whether the demo's Alertmanager answers: systemd reports it started before it listens."""
    try:
        on(HOSTS[0], "python3", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:9093/-/ready', "
           "timeout=5)")
    except subprocess.CalledProcessError:
        return False
    return True


def silences():
    """[(host, state, endsAt)] of the silences gpufleet.sglang made in the demo's Alertmanager (on loopback there)."""
    answer = on(HOSTS[0], "python3", "-c", "import urllib.request; print(urllib.request.urlopen("
                "'http://127.0.0.1:9093/api/v2/silences', timeout=10).read().decode())")
    return [(dict((m["name"], m["value"]) for m in entry["matchers"]).get("host"), entry["status"]["state"],
             entry["endsAt"]) for entry in json.loads(answer) if entry["createdBy"] == "gpufleet.sglang"]


def active_silences(host):
    """The silences of silences() on host that are active."""
    return [entry for entry in silences() if entry[:2] == (host, "active")]


def fired_down_alerts(since_seconds):
    """The hosts on which SGLangServerDown fired in Prometheus in the last since_seconds."""
    query = 'max_over_time(ALERTS{alertname="SGLangServerDown", alertstate="firing"}[%ds])' % since_seconds
    return sorted(result["metric"]["host"] for result in prometheus("/api/v1/query?query=" + urllib.parse.quote(query))["result"])


LONG_LOAD = '{"SGLANG_STANDIN_LOAD_DELAY":"50"}'  # longer than the demo's down_for (30s) and a scrape
GRACE = 20  # inventories/demo/group_vars/sglang_servers.yml: sglang_planned_absence_grace_seconds


def test_two_rolling_changes_whose_load_outlasts_the_alerts_window_page_no_one(demo_fleet, receiver):
    """Two rolling changes in a row (a setting, then the inventory's back), each restarting every server once,
    batch by batch, the first with a load that outlasts SGLangServerDown's for window as a real Kimi-K2.5 load
    (20-30 minutes) does.
    - up changes four times on every host, which the rule the collection had before (changes(up[15m]) >= 4)
      took for a crash loop, and systemd counts no restart of its own: no crash-loop alert;
    - SGLangServerDown fires in Prometheus on every host, and Alertmanager sends nothing: each host is marked
      as a planned absence (a silence) from before it stops until its grace after it is back (20 s here), in
      which the alert resolves (a silence expired at the server's return let the alert still firing page).
    No critical alert reaches the receiver, and no silence is left afterwards."""
    started = {host: on(host, "systemctl", "show", "-P", "ExecMainStartTimestampMonotonic", UNIT) for host in HOSTS}
    start = time.monotonic()
    try:
        sglang_playbook("-e", "sglang_env=" + LONG_LOAD)
    finally:
        sglang_playbook()
    restarted = {host: on(host, "systemctl", "show", "-P", "ExecMainStartTimestampMonotonic", UNIT) for host in HOSTS}
    assert all(restarted[host] != started[host] for host in HOSTS), (started, restarted)
    time.sleep(GRACE + 15)  # the last silence's grace, then Alertmanager's group_wait and more
    seen = prometheus("/api/v1/query?query=" + urllib.parse.quote('changes(up{job="sglang"}[15m])'))["result"]
    print("changes of up in 15 min, which the rule before counted: %s" % {
        result["metric"]["host"]: result["value"][1] for result in seen})
    fired = fired_down_alerts(int(time.monotonic() - start) + 60)
    print("SGLangServerDown fired in Prometheus on %s" % fired)
    assert fired == sorted(HOSTS)  # the window was outlasted on every host: without the silences, three pages
    assert critical_alerts() == []
    assert [got for status, got in receiver.since(start) if got.get("severity") == "critical"] == []
    assert [on(host, "systemctl", "show", "-P", "NRestarts", UNIT) for host in HOSTS] == ["0", "0", "0"]
    assert [state for _host, state, _ends in silences() if state != "expired"] == []


def test_a_controller_killed_mid_batch_leaves_no_silence_beyond_its_end(demo_fleet, receiver):
    """The run is killed while a server it stopped loads: the silence it made ends by itself at its end time
    (sglang_planned_absence_seconds, 40 s here), and the next run finishes the batch."""
    command = playbook_command("sglang", "-e", "sglang_env=" + LONG_LOAD, "-e", "sglang_planned_absence_seconds=40")
    run = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           start_new_session=True, env=ANSIBLE_ENV)
    try:
        live = wait(lambda: [entry for entry in silences() if entry[1] == "active"], 300)
        os.killpg(run.pid, signal.SIGKILL)
        run.wait()
        killed_at = datetime.datetime.now(datetime.timezone.utc)
        (host, _state, ends), = live
        ends_at = datetime.datetime.strptime(ends.replace("Z", "+0000"), "%Y-%m-%dT%H:%M:%S.%f%z")
        assert ends_at <= killed_at + datetime.timedelta(seconds=40), (ends_at, killed_at)
        wait(lambda: all(state == "expired" for _host, state, _ends in silences()), 90)
        print("the silence of %s, made by the killed run, ended by itself at %s" % (host, ends))
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
        sglang_playbook()  # finishes what the killed run began, and puts the inventory's settings back


def test_an_alertmanager_down_at_rejoin_fails_no_healthy_server(demo_fleet):
    """The fleet's Alertmanager stops while a batch's server loads: the server, healthy, rejoins and the run passes,
    saying which Alertmanager kept the silence; the operator expires it with the module once it is back."""
    command = playbook_command("sglang", "--limit", HOSTS[2], "-e", 'sglang_env={"SGLANG_STANDIN_LOAD_DELAY":"20"}')
    run = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           env=ANSIBLE_ENV)
    try:
        wait(lambda: active_silences(HOSTS[2]), 300)
        on(HOSTS[0], "systemctl", "stop", "prometheus-alertmanager")
        output = run.communicate(timeout=600)[0]
        assert run.returncode == 0, output[-3000:]
        assert "Say which Alertmanager kept the silence" in output and "cannot be reached" in output, output[-3000:]
    finally:
        if run.poll() is None:
            run.kill()
        on(HOSTS[0], "systemctl", "start", "prometheus-alertmanager")
        wait(alertmanager_ready, 60)
    wait(lambda: active_silences(HOSTS[2]), 60)  # kept across the restart
    subprocess.run([os.path.join(ROOT, ".venv", "bin", "ansible"), "-i", "inventories/demo", HOSTS[0], "-m",
                    "gpufleet.sglang.alertmanager_silence", "-a", json.dumps(
                        {"url": "http://127.0.0.1:9093", "labels": {"host": HOSTS[2]}, "state": "absent"})],
                   cwd=ROOT, check=True, capture_output=True, env=ANSIBLE_ENV)
    assert active_silences(HOSTS[2]) == []
    sglang_playbook()  # the inventory's settings back
    wait(lambda: not active_silences(HOSTS[2]), GRACE + 30)


def test_a_stopped_servers_alert_reaches_the_receiver(demo_fleet, receiver):
    """sglang_monitoring_down_for is 30s in the demo, scraped every 5s; Alertmanager waits 5s to group."""
    left = active_silences(HOSTS[2])
    assert left == [], "a test before this one left %s silenced: no alert of it can reach the receiver" % HOSTS[2]
    on(HOSTS[2], "systemctl", "stop", UNIT)
    start = time.monotonic()
    try:
        got = wait(lambda: receiver.since(start, alertname="SGLangServerDown", host=HOSTS[2]), 150)
        print("SGLangServerDown reached the receiver %.0f s after the stop" % (time.monotonic() - start))
        assert got[0][0] == "firing" and got[0][1]["severity"] == "critical"
        assert time.monotonic() - start >= 30
        assert {labels["host"] for status, labels in receiver.since(start, alertname="SGLangServerDown")} == {HOSTS[2]}
    finally:
        on(HOSTS[2], "systemctl", "start", UNIT)

    def resolved():
        return [status for status, labels in receiver.since(start, alertname="SGLangServerDown", host=HOSTS[2])
                if status == "resolved"]
    wait(resolved, 120)


def test_a_real_crash_loop_still_fires(demo_fleet, receiver):
    """The server dies three times (SIGKILL), systemd restarts it each time (Restart=on-failure): a crash loop,
    at the receiver, for that host only."""
    start = time.monotonic()
    for kill in range(3):
        print("kill %d of 3" % (kill + 1))
        pid = on(HOSTS[1], "systemctl", "show", "-P", "MainPID", UNIT)
        on(HOSTS[1], "systemctl", "kill", "-s", "KILL", UNIT)
        wait(lambda: on(HOSTS[1], "systemctl", "show", "-P", "MainPID", UNIT) not in ("0", pid), 60)
    assert on(HOSTS[1], "systemctl", "show", "-P", "NRestarts", UNIT) == "3"
    got = wait(lambda: receiver.since(start, alertname="SGLangServerRestartLoop"), 120)
    print("SGLangServerRestartLoop reached the receiver %.0f s after the first kill" % (time.monotonic() - start))
    assert [(status, labels["host"], labels["severity"]) for status, labels in got] == [
        ("firing", HOSTS[1], "critical")]
