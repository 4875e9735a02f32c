"""roles/monitoring against the real Prometheus tooling (promtool from Debian's prometheus package) and the
metric names the pinned releases export: the rules, rendered with the role's defaults, pass `promtool check
rules` and every case of `promtool test rules` (tests/prometheus), and every metric the rules and the Grafana
dashboard select is one that SGLang (its wheel's srt/metrics code) or sglang-router (its compiled library)
exports. The file-SD targets come from the inventory as the filter builds them."""

import json
import os
import re
import shutil
import subprocess

import jinja2
import pytest
import yaml

from ansible_collections.gpufleet.sglang.plugins.module_utils import _prometheus_targets
from gpufleet_testlib import ROOT, prometheus

ROLE = prometheus.ROLE
SGLANG_RELEASES = ("0.5.9",)  # the release the collection pins (roles/common: sglang_version)
# NVIDIA's DCGM exporter is no release this collection pins or can run here (no GPU): its names are the
# defaults of its counters file, not checked.
UNCHECKED = {"DCGM_FI_DEV_GPU_UTIL"}
# The node exporter builds its names from parts (node, systemd, service_restart_total): the demo fleet's
# Prometheus shows the series from Debian's prometheus-node-exporter (tests/integration/test_alerts.py).
UNCHECKED.add("node_systemd_service_restart_total")
PROMQL_WORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "offset",
                "bool", "le", "inf", "nan"}


def rendered(tmp_path, **overrides):
    return tmp_path / os.path.basename(prometheus.rules(tmp_path, **overrides))


def test_the_rules_pass_promtools_check_and_every_rule_test(tmp_path):
    rules = rendered(tmp_path, sglang_monitoring_dcgm=True)
    shutil.copy(os.path.join(ROOT, "tests", "prometheus", "gpufleet-sglang.test.yml"), tmp_path)
    check = subprocess.run([prometheus.promtool(), "check", "rules", str(rules)], capture_output=True, text=True,
                           check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    tested = subprocess.run([prometheus.promtool(), "test", "rules", "gpufleet-sglang.test.yml"], cwd=tmp_path,
                            capture_output=True, text=True, check=False)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    alerts = [rule["alert"] for group in yaml.safe_load(rules.read_text())["groups"] for rule in group["rules"]
              if "alert" in rule]
    with open(os.path.join(ROOT, "tests", "prometheus", "gpufleet-sglang.test.yml")) as handle:
        tests = yaml.safe_load(handle)["tests"]
    assert sorted(set(alerts)) == sorted({case["alertname"] for test in tests for case in test["alert_rule_test"]})


def test_without_dcgm_there_is_no_gpu_alert(tmp_path):
    text = rendered(tmp_path).read_text()
    assert "GPUFellOffTheBus" not in text and "SGLangServerDown" in text


def test_without_a_node_exporter_there_is_no_restart_loop_alert(tmp_path):
    """Counting changes of up would count the restarts a run makes: without systemd's count there is no alert."""
    text = rendered(tmp_path, sglang_monitoring_node_exporter=False).read_text()
    assert "SGLangServerRestartLoop" not in text and "changes(up" not in text


def alertmanager_config(tmp_path, **overrides):
    from ansible.plugins.filter.core import combine, to_nice_yaml
    from ansible_collections.gpufleet.sglang.plugins.filter.setting_dict import setting_dict
    settings = {"ansible_managed": "rendered by tests/unit/test_monitoring.py",
                "sglang_monitoring_alertmanager_route": {},
                "sglang_monitoring_alertmanager_receivers": [
                    {"name": "oncall", "webhook_configs": [{"url": "http://pager.internal:8080/alerts"}]}]}
    settings.update(overrides)
    with open(os.path.join(ROLE, "templates", "alertmanager.yml.j2")) as handle:
        environment = jinja2.Environment(undefined=jinja2.StrictUndefined)
        environment.filters.update({"combine": combine, "to_nice_yaml": to_nice_yaml,
                                    "gpufleet.sglang.setting_dict": setting_dict})
        text = environment.from_string(handle.read()).render(settings)
    path = tmp_path / "alertmanager.yml"
    path.write_text(text)
    return path, subprocess.run([prometheus.amtool(), "check-config", str(path)], capture_output=True, text=True,
                                check=False)


def test_the_alertmanager_config_routes_every_alert_to_the_first_receiver_and_passes_amtool(tmp_path):
    path, check = alertmanager_config(tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
    config = yaml.safe_load(path.read_text())
    assert config["route"] == {"receiver": "oncall", "group_by": ["alertname", "host"]}
    assert config["receivers"][0]["webhook_configs"] == [{"url": "http://pager.internal:8080/alerts"}]


def test_the_route_takes_the_users_keys_and_a_receiver_alertmanager_lacks_fails_amtool(tmp_path):
    path, check = alertmanager_config(tmp_path, sglang_monitoring_alertmanager_route={
        "group_wait": "5s", "routes": [{"receiver": "oncall", "matchers": ['severity="critical"']}]})
    assert check.returncode == 0, check.stdout + check.stderr
    assert yaml.safe_load(path.read_text())["route"]["group_wait"] == "5s"
    path, check = alertmanager_config(tmp_path, sglang_monitoring_alertmanager_route={"routes": [{"receiver": "nobody"}]})
    assert check.returncode != 0 and "nobody" in check.stdout + check.stderr


def metric_names(expr):
    """The series names a PromQL expression selects (not functions, keywords, labels or durations)."""
    expr = re.sub(r'"[^"]*"', "", expr)
    expr = re.sub(r"\{[^}]*\}", " ", expr)
    expr = re.sub(r"\[[^\]]*\]", " ", expr)
    expr = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", expr)
    names = set()
    for match in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", expr):
        rest = expr[match.end():].lstrip()
        if rest.startswith("(") or match.group().lower() in PROMQL_WORDS or re.match(r"\d", match.group()):
            continue
        names.add(match.group())
    return names


def exprs_of_rules(tmp_path):
    groups = yaml.safe_load(rendered(tmp_path, sglang_monitoring_dcgm=True).read_text())["groups"]
    recorded = {rule["record"] for group in groups for rule in group["rules"] if "record" in rule}
    return [rule["expr"] for group in groups for rule in group["rules"]], recorded


def exprs_of_dashboard():
    with open(os.path.join(ROLE, "files", "gpufleet-sglang.json")) as handle:
        dashboard = json.load(handle)
    return [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]] + [
        variable["query"] for variable in dashboard["templating"]["list"] if variable["type"] == "query"]


@pytest.fixture(scope="module")
def exported():
    names = {"up"}
    for version in SGLANG_RELEASES:
        names |= prometheus.sglang_metric_names(version)
    return names, prometheus.router_binary_text()


@pytest.mark.parametrize("source", ["rules", "dashboard"])
def test_every_metric_selected_is_exported_by_the_pinned_releases(tmp_path, exported, source):
    sglang_names, router_text = exported
    exprs, recorded = exprs_of_rules(tmp_path)
    if source == "dashboard":
        exprs = exprs_of_dashboard()
    used = set().union(*(metric_names(expr) for expr in exprs))
    assert {"sglang:spec_accept_length", "smg_worker_health"} <= used  # the check sees what it checks
    unknown = sorted(name for name in used - recorded - UNCHECKED
                     if name not in sglang_names and name.encode() not in router_text)
    assert unknown == [], "not exported by SGLang %s or sglang-router %s: %s" % (
        ", ".join(SGLANG_RELEASES), prometheus.router.VERSION, unknown)


def test_a_metric_the_release_lacks_fails_the_check(exported):
    sglang_names, router_text = exported
    for name in ("sglang:spec_accept_length_total", "smg_worker_healthy_total"):
        assert name not in sglang_names and name.encode() not in router_text


def test_the_dashboard_selects_by_the_targets_labels():
    for expr in exprs_of_dashboard():
        assert re.search(r'job="(sglang|sglang-router|node|dcgm)"', expr) or expr.startswith("gpufleet:"), expr


GROUPS = {"sglang_servers": ["gpu-01", "gpu-02", "gpu-03"], "kimi_tp16": ["gpu-02", "gpu-03"],
          "sglang_routers": ["router-1"], "prometheus_servers": ["mon-1"]}
DEFAULTS = {"sglang_port": 30000, "sglang_host": "0.0.0.0", "sglang_instance": "kimi-k25", "sglang_version": "0.5.9",
            "sglang_tp_group": "", "sglang_draft_model_path": "AQ-MedAI/Kimi-K25-eagle3",
            "sglang_speculative_algorithm": "EAGLE3", "sglang_router_prometheus_host": "0.0.0.0",
            "sglang_router_prometheus_port": 29000}


def test_targets_are_every_rank0_every_router_and_the_gpus_with_their_labels():
    hostvars = {"gpu-01": {"ansible_host": "10.0.0.11"},
                "gpu-02": {"ansible_host": "10.0.0.12", "sglang_tp_group": "kimi_tp16"},
                "gpu-03": {"ansible_host": "10.0.0.13", "sglang_tp_group": "kimi_tp16"},
                "router-1": {"ansible_host": "10.0.0.10"}, "mon-1": {}}
    found = _prometheus_targets.targets(GROUPS, hostvars, DEFAULTS, "mon-1", dcgm=True, nodes=True)
    assert found["problems"] == []
    assert [entry["targets"] for entry in found["servers"]] == [["10.0.0.11:30000"], ["10.0.0.12:30000"]]
    assert found["servers"][1]["labels"] == {
        "host": "gpu-02", "instance": "gpu-02:30000", "sglang_instance": "kimi-k25", "tp_group": "kimi_tp16",
        "sglang_version": "0.5.9", "draft": "AQ-MedAI/Kimi-K25-eagle3", "speculative": "EAGLE3",
        "worker_url": "http://10.0.0.12:30000"}
    router = {"targets": ["10.0.0.10:29000"], "labels": {"host": "router-1", "instance": "router-1:29000"}}
    assert found["routers"] == [router]
    assert [entry["targets"] for entry in found["gpus"]] == [["10.0.0.11:9400"], ["10.0.0.12:9400"],
                                                             ["10.0.0.13:9400"]]
    assert found["nodes"][2] == {"targets": ["10.0.0.13:9100"], "labels": {"host": "gpu-03", "instance": "gpu-03:9100"}}
    assert _prometheus_targets.targets(GROUPS, hostvars, DEFAULTS, "mon-1")["nodes"] == []


def test_a_target_on_loopback_elsewhere_is_refused_saying_what_to_set():
    hostvars = {"gpu-01": {}, "gpu-02": {"sglang_tp_group": "kimi_tp16"}, "gpu-03": {"sglang_tp_group": "kimi_tp16"},
                "mon-1": {},
                "router-1": {"sglang_router_prometheus_host": "127.0.0.1"}}
    found = _prometheus_targets.targets(GROUPS, hostvars, dict(DEFAULTS, sglang_host="127.0.0.1"), "mon-1")
    assert len(found["problems"]) == 3
    assert found["problems"][0] == ("SGLang's /metrics on gpu-01 listens on 127.0.0.1 only, which Prometheus on mon-1 "
                                    "cannot reach: set sglang_host to 0.0.0.0 or the host's address for it.")
    assert "set sglang_router_prometheus_host" in found["problems"][2]


def test_a_router_on_loopback_is_scraped_there_by_a_prometheus_on_its_own_host():
    hostvars = {"gpu-01": {}, "gpu-02": {}, "gpu-03": {}, "mon-1": {},
                "router-1": {"ansible_host": "10.0.0.10", "sglang_router_prometheus_host": "127.0.0.1"}}
    found = _prometheus_targets.targets(dict(GROUPS, kimi_tp16=[]), hostvars, DEFAULTS, "router-1")
    assert found["problems"] == [] and found["routers"][0]["targets"] == ["127.0.0.1:29000"]


def test_the_standins_metrics_are_names_sglang_exports(exported):
    """The demo's Prometheus scrapes the stand-in: what it serves must be what SGLang serves."""
    import sys
    sys.path.insert(0, os.path.join(ROOT, "tests", "standin"))
    from sglang_standin.__main__ import Load, metrics_text
    text = metrics_text({"model_path": "/srv/models/kimi-k25"}, Load(), 2.9)
    names = {line.split("{")[0] for line in text.splitlines() if not line.startswith("#")}
    assert names and names <= exported[0], names - exported[0]


def run_the_role(tmp_path, server_host, settings):
    """The monitoring role itself through ansible-playbook, on localhost as the Prometheus host of one server
    (gpu-01 at 10.0.0.11, listening on server_host), writing into tmp_path/prometheus."""
    import sys
    from gpufleet_testlib.playbook import run_playbook
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(yaml.safe_dump({"all": {"children": {
        "prometheus_servers": {"hosts": {"mon-1": {"ansible_connection": "local",
                                                   "ansible_python_interpreter": sys.executable}}},
        "sglang_servers": {"hosts": {"gpu-01": {"ansible_host": "10.0.0.11", "sglang_host": server_host}}}}}}))
    play = tmp_path / "monitoring.yml"
    play.write_text(yaml.safe_dump([{"name": "Monitoring", "hosts": "prometheus_servers", "gather_facts": False,
                                     "roles": ["gpufleet.sglang.monitoring"]}]))
    return run_playbook(str(play), str(inventory), [dict({
        "sglang_monitoring_dir": str(tmp_path / "prometheus"), "sglang_monitoring_reload_unit": ""}, **settings)])


def test_every_refusal_is_said_at_once_and_nothing_is_written(tmp_path):
    run = run_the_role(tmp_path, "127.0.0.1", {"sglang_monitoring_alertmanager_install": True})
    assert run.returncode != 0
    assert run.says("SGLang's /metrics on gpu-01 listens on 127.0.0.1 only, which Prometheus on mon-1 cannot reach"), str(run)
    assert run.says("sglang_monitoring_alertmanager_install needs sglang_monitoring_alertmanager_receivers"), str(run)
    assert run.says("Nothing was written.") and not (tmp_path / "prometheus").exists()


def test_a_jobs_dict_written_for_0_2_0_still_renders_with_the_node_job(tmp_path):
    """0.2.0's sglang_monitoring_jobs had no nodes: an inventory that set it then (to rename a job) keeps working,
    its names taken and the rest from the defaults."""
    run = run_the_role(tmp_path, "0.0.0.0", {
        "sglang_monitoring_jobs": {"servers": "kimi", "routers": "sglang-router", "gpus": "dcgm"}})
    assert run.returncode == 0, str(run)
    rules = (tmp_path / "prometheus" / "rules" / "gpufleet-sglang.rules.yml").read_text()
    assert 'up{job="kimi"} == 0' in rules and 'node_systemd_service_restart_total{job="node",' in rules
    nodes = json.loads((tmp_path / "prometheus" / "file_sd" / "gpufleet-sglang-nodes.json").read_text())
    assert nodes[0]["targets"] == ["10.0.0.11:9100"]


def test_the_prometheus_config_passes_promtool_and_renames_sglangs_escaped_names_back(tmp_path):
    """prometheus_client 0.23 and later answer a Prometheus 2.x with sglang_NAME for sglang:NAME (what the
    real server shows: tests/real_sglang/test_speculative_alerts.py); the servers' job renames them back."""
    config = prometheus.Prometheus(tmp_path, {}).config
    check = subprocess.run([prometheus.promtool(), "check", "config", "--syntax-only", config], capture_output=True,
                           text=True, check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    jobs = dict((job["job_name"], job) for job in yaml.safe_load(open(config))["scrape_configs"])
    assert jobs["sglang"]["metric_relabel_configs"] == [{"source_labels": ["__name__"], "regex": "sglang_(.+)",
                                                         "target_label": "__name__", "replacement": "sglang:$1"}]
    assert "metric_relabel_configs" not in jobs["sglang-router"]
