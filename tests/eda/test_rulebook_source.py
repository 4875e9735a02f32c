"""The event source gpufleet.sglang.alertmanager inside the real ansible-rulebook (requirements-eda.txt, on Debian's
Java), found by its collection name as a user's rulebook names it: what reaches the rules, and what never does
(a request without the token, a malformed body, a replay); and Debian's Alertmanager posting to it with the
receiver the README shows. Run by make test-eda, which makes .venv-eda (and installs Java and Alertmanager)."""

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from gpufleet_testlib import ROOT

TOKEN = "rulebook-test-token-0123456789"
RULEBOOK = """
- name: What reaches the rules
  hosts: localhost
  sources:
    - gpufleet.sglang.alertmanager:
        port: {port}
        token_file: {token_file}
  rules:
    - name: A firing alert
      condition: event.alert.status == "firing"
      action:
        debug:
          msg: "ACTED {{{{ event.alert.labels.alertname }}}} {{{{ event.alert.labels.host }}}} {{{{ event.alert.fingerprint }}}}"
    - name: A resolved alert
      condition: event.alert.status == "resolved"
      action:
        debug:
          msg: "RESOLVED {{{{ event.alert.fingerprint }}}}"
"""


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def post(port, body, token=TOKEN):
    request = urllib.request.Request("http://127.0.0.1:%d/alerts" % port, data=body, method="POST",
                                     headers={"Content-Type": "application/json",
                                              **({"Authorization": "Bearer " + token} if token else {})})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


def alert(fingerprint, status="firing", host="gpu-01"):
    return {"status": status, "labels": {"alertname": "SGLangAcceptanceLengthLow", "host": host},
            "annotations": {}, "startsAt": "2026-12-07T10:00:00Z", "endsAt": "0001-01-01T00:00:00Z",
            "generatorURL": "", "fingerprint": fingerprint}


def payload(*alerts):
    return json.dumps({"version": "4", "status": "firing", "receiver": "eda", "groupKey": "g",
                       "alerts": list(alerts)}).encode()


@pytest.fixture
def rulebook(tmp_path):
    """ansible-rulebook running the test rulebook; yields (port, a function that stops it and returns its output)."""
    port = free_port()
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    path = tmp_path / "rulebook.yml"
    path.write_text(RULEBOOK.format(port=port, token_file=token_file))
    java_home = subprocess.run(["bash", os.path.join(ROOT, "scripts", "eda-venv.sh")], check=True,
                               capture_output=True, text=True).stdout.strip()
    env = dict(os.environ, JAVA_HOME=java_home, ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".collections"),
               PATH=os.pathsep.join([os.path.join(ROOT, ".venv-eda", "bin"), os.environ["PATH"]]))
    process = subprocess.Popen([os.path.join(ROOT, ".venv-eda", "bin", "ansible-rulebook"), "-r", str(path), "-i",
                                os.path.join(ROOT, "tests", "eda", "inventory.yml")], cwd=tmp_path, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def stop():
        process.terminate()
        return process.communicate(timeout=60)[0]
    deadline = time.time() + 120
    while time.time() < deadline and process.poll() is None:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.5)
    else:
        pytest.fail("ansible-rulebook did not listen on %d:\n%s" % (port, stop()))
    try:
        yield port, stop
    finally:
        if process.poll() is None:
            stop()


def test_only_authenticated_well_formed_new_alerts_reach_the_rules(rulebook):
    port, stop = rulebook
    assert post(port, payload(alert("f-1")), token=None) == 401
    assert post(port, payload(alert("f-2")), token="wrong") == 401
    assert post(port, b'{"version": "4", "alerts": "everything"}') == 400
    assert post(port, b"x" * 300000) == 413
    assert post(port, payload(alert("f-3"), alert("f-4", host="gpu-02"))) == 200
    assert post(port, payload(alert("f-3"))) == 200  # Alertmanager repeating the group, or a replay
    assert post(port, payload(alert("f-3", status="resolved"))) == 200
    time.sleep(3)  # the rules run after the answer
    output = stop()
    lines = output.splitlines()
    assert sorted(line for line in lines if line.startswith("ACTED ")) == [
        "ACTED SGLangAcceptanceLengthLow gpu-01 f-3", "ACTED SGLangAcceptanceLengthLow gpu-02 f-4"], output
    assert [line for line in lines if line.startswith("RESOLVED ")] == ["RESOLVED f-3"], output
    assert "f-1" not in output and "f-2" not in output and TOKEN not in output, output
    refused = [line.split("refused a request from 127.0.0.1: ", 1)[1] for line in lines if "refused a request" in line]
    assert refused == ["no token or a wrong token", "no token or a wrong token", "alerts is not a list of 1 to 1000 alerts",
                       "a body of 300000 bytes, over max_body 262144"], output


ALERTMANAGER = """
route: {{receiver: eda, group_by: [alertname, host], group_wait: 1s, group_interval: 5s, repeat_interval: 1h}}
receivers:
  - name: eda
    webhook_configs:
      - url: http://127.0.0.1:{port}/alerts
        send_resolved: true
        http_config: {{authorization: {{credentials_file: {token_file}}}}}
"""


def test_debians_alertmanager_reaches_the_rules_with_the_readmes_receiver(rulebook, tmp_path):
    """The receiver of the README, checked by amtool and run by Debian's Alertmanager: an alert posted to its API
    reaches the rule once, though Alertmanager is told of it twice."""
    port, stop = rulebook
    config = tmp_path / "alertmanager.yml"
    config.write_text(ALERTMANAGER.format(port=port, token_file=tmp_path / "token"))
    assert subprocess.run([shutil.which("amtool"), "check-config", str(config)], check=False).returncode == 0
    listen = free_port()
    manager = subprocess.Popen([shutil.which("prometheus-alertmanager"), "--config.file", str(config),
                                "--storage.path", str(tmp_path / "data"), "--web.listen-address",
                                "127.0.0.1:%d" % listen, "--cluster.listen-address="],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        alert_json = json.dumps([{"labels": {"alertname": "SGLangAcceptanceLengthLow", "host": "gpu-07"},
                                  "annotations": {"summary": "acceptance below the floor"}}]).encode()
        deadline = time.time() + 60
        while True:
            try:
                for _round in range(2):
                    urllib.request.urlopen(urllib.request.Request(
                        "http://127.0.0.1:%d/api/v2/alerts" % listen, data=alert_json, method="POST",
                        headers={"Content-Type": "application/json"}), timeout=5).close()
                break
            except (urllib.error.URLError, OSError):
                if time.time() > deadline:
                    raise
                time.sleep(0.5)
        time.sleep(8)  # group_wait, then the post and the rule
    finally:
        manager.terminate()
        manager.wait(timeout=30)
    output = stop()
    acted = [line for line in output.splitlines() if line.startswith("ACTED ")]
    assert len(acted) == 1 and acted[0].startswith("ACTED SGLangAcceptanceLengthLow gpu-07 "), output
    assert "refused a request" not in output, output
