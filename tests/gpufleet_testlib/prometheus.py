"""Debian's Prometheus tooling for tests: promtool (prometheus) and amtool (prometheus-alertmanager) from the
Debian packages of this machine's release, unpacked into the cache (apt-get download + dpkg -x: nothing is
installed or started).
The metric names the pinned SGLang and sglang-router releases export, read from their wheels. The role's
rules and Prometheus config rendered as the role renders them, and Debian's Prometheus run on this machine
against them (Prometheus)."""

import contextlib
import glob
import json
import os
import re
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
import zipfile

import jinja2
import yaml

from gpufleet_testlib import ROOT, router, sglang_wheels
from gpufleet_testlib.standin import free_port

ROLE = os.path.join(ROOT, "roles", "monitoring")


def debian_tool(package, binary):
    """/usr/bin/BINARY of Debian's PACKAGE, unpacked once into the cache."""
    directory = os.path.join(router.BASE, package + "-deb")
    path = os.path.join(directory, "usr", "bin", binary)
    if not os.path.exists(path):
        with tempfile.TemporaryDirectory() as work:
            download = ["apt-get", "download", "-q", package]
            if subprocess.run(download, cwd=work, check=False, capture_output=True).returncode != 0:
                subprocess.run(["apt-get", "update", "-q"], check=True, capture_output=True)  # a machine's first use
                subprocess.run(download, cwd=work, check=True, capture_output=True)
            deb = glob.glob(os.path.join(work, package + "_*.deb"))[0]
            subprocess.run(["dpkg", "-x", deb, directory + ".tmp"], check=True)
            os.rename(directory + ".tmp", directory)
    return path


def promtool():
    return debian_tool("prometheus", "promtool")


def amtool():
    return debian_tool("prometheus-alertmanager", "amtool")


def sglang_metric_names(version):
    """Every series name SGLang `version` exports: the names its srt/metrics code gives its gauges, counters
    and histograms (with _bucket, _sum and _count)."""
    names = set()
    with zipfile.ZipFile(sglang_wheels.wheel_path(version)) as wheel:
        for member in wheel.namelist():
            if member.startswith("sglang/srt/metrics/") and member.endswith(".py"):
                names.update(re.findall(r'name="(sglang:[a-z0-9_]+)"', wheel.read(member).decode()))
    return names | {name + suffix for name in names for suffix in ("_bucket", "_sum", "_count")}


def router_binary_text(python_version="3.11"):
    """The sglang-router wheel's compiled library (where its metric names are), as bytes."""
    wheel = glob.glob(os.path.join(router.wheelhouse(python_version), "sglang_router-%s-*.whl" % router.VERSION))[0]
    with zipfile.ZipFile(wheel) as archive:
        return b"".join(archive.read(name) for name in archive.namelist() if name.endswith(".so"))


def role_settings(**overrides):
    """The monitoring role's defaults, with what its vars compute filled in (the job names; the gate's minimum
    from the lifecycle role's defaults), and overrides."""
    with open(os.path.join(ROLE, "defaults", "main.yml")) as handle:
        settings = yaml.safe_load(handle)
    with open(os.path.join(ROOT, "roles", "lifecycle", "defaults", "main.yml")) as handle:
        settings["sglang_monitoring_min_accept_length"] = yaml.safe_load(handle)["sglang_draft_min_accept_length"]
    settings.update(overrides, ansible_managed="rendered by tests/gpufleet_testlib/prometheus.py")
    settings["_sglang_monitoring_jobs"] = settings["sglang_monitoring_jobs"]
    return settings


def render(template, settings):
    """One of the role's templates, with the filters it uses (Ansible's bool and to_json; int and float are Jinja's)."""
    from ansible.module_utils.parsing.convert_bool import boolean

    with open(os.path.join(ROLE, "templates", template)) as handle:
        environment = jinja2.Environment(undefined=jinja2.StrictUndefined)
        environment.filters.update(bool=boolean, to_json=json.dumps)
        return environment.from_string(handle.read()).render(settings)


def rules(directory, **overrides):
    """The role's rules file, rendered with its defaults and overrides, written into directory."""
    path = os.path.join(str(directory), "gpufleet-sglang.rules.yml")
    with open(path, "w") as handle:
        handle.write(render("gpufleet-sglang.rules.yml.j2", role_settings(**overrides)))
    return path


class Prometheus:
    """Debian's Prometheus on loopback, configured as the role configures it (its prometheus.yml, its rules, file-SD
    targets written as the role writes them), scraping and evaluating every INTERVAL (also the scrape's timeout: a
server busy in Triton's interpreter may take seconds to answer /metrics, and a failed scrape makes its series
stale)."""

    def __init__(self, directory, targets, interval="5s", **overrides):
        self.directory = str(directory)
        settings = role_settings(sglang_monitoring_dir=self.directory, sglang_monitoring_scrape_interval=interval,
                                 _sglang_monitoring_alertmanagers=[], **overrides)
        for sub in ("rules", "file_sd", "data"):
            os.makedirs(os.path.join(self.directory, sub), exist_ok=True)
        rules(os.path.join(self.directory, "rules"), **overrides)
        for job in settings["_sglang_monitoring_jobs"]:
            with open(os.path.join(self.directory, "file_sd", "gpufleet-sglang-%s.json" % job), "w") as handle:
                json.dump(targets.get(job, []), handle)
        self.config = os.path.join(self.directory, "prometheus.yml")
        with open(self.config, "w") as handle:
            handle.write(render("prometheus.yml.j2", settings))
        self.url = "http://127.0.0.1:%d" % free_port()

    @contextlib.contextmanager
    def running(self):
        with serving("Prometheus", self.url, [debian_tool("prometheus", "prometheus"), "--config.file=" + self.config,
                                              "--storage.tsdb.path=" + os.path.join(self.directory, "data"),
                                              "--web.listen-address=" + self.url[len("http://"):]]):
            yield self

    def api(self, path):
        with urllib.request.urlopen(self.url + path, timeout=10) as answer:
            body = answer.read()
        return json.loads(body) if path.startswith("/api/") else body

    def alerts(self):
        """[(alertname, state, labels)] of every alert pending or firing."""
        return [(alert["labels"]["alertname"], alert["state"], alert["labels"])
                for alert in self.api("/api/v1/alerts")["data"]["alerts"]]

    def query(self, expr):
        return self.api("/api/v1/query?" + urllib.parse.urlencode({"query": expr}))["data"]["result"]


@contextlib.contextmanager
def alertmanager(directory):
    """The URL of Debian's Alertmanager on loopback, with a receiver that sends nothing. Debian builds it to read
    its default templates from /usr/share/prometheus/alertmanager: it runs in a mount namespace of its own
    where the unpacked package's usr/share is /usr/share (the machine's is not touched)."""
    package = os.path.dirname(os.path.dirname(os.path.dirname(debian_tool("prometheus-alertmanager",
                                                                          "prometheus-alertmanager"))))
    directory = str(directory)
    config = os.path.join(directory, "alertmanager.yml")
    with open(config, "w") as handle:
        handle.write("route:\n  receiver: nobody\nreceivers:\n  - name: nobody\n")
    url = "http://127.0.0.1:%d" % free_port()
    command = "mount --bind %s/usr/share /usr/share && exec %s/usr/bin/prometheus-alertmanager %s" % (
        package, package, " ".join(["--config.file=" + config, "--storage.path=" + os.path.join(directory, "data"),
                                    "--web.listen-address=" + url[len("http://"):], "--cluster.listen-address="]))
    with serving("Alertmanager", url, ["unshare", "--mount", "--propagation", "private", "sh", "-c", command]):
        yield url


@contextlib.contextmanager
def serving(name, url, command):
    """COMMAND running until URL/-/ready answers (Prometheus' and Alertmanager's readiness), stopped on leaving."""
    log = tempfile.TemporaryFile(mode="w+")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    try:
        for _second in range(60):
            try:
                with urllib.request.urlopen(url + "/-/ready", timeout=5):
                    break
            except OSError:
                if process.poll() is not None:
                    log.seek(0)
                    raise RuntimeError("%s exited: %s" % (name, log.read()[-3000:]))
                time.sleep(0.5)
        yield
    finally:
        process.terminate()
        process.wait(timeout=30)
