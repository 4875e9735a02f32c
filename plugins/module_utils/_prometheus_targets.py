# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Prometheus file-based service discovery targets from the inventory: every SGLang server (rank 0 of a
multi-node group: only it serves HTTP), every sglang-router's exporter, and each server host's node exporter
and DCGM exporter,
with the labels the collection's alerts and dashboard use. A target that listens on loopback cannot be
scraped from another host: it is refused, saying what to set."""

from __future__ import annotations

from ansible_collections.gpufleet.sglang.plugins.module_utils import _fleet_hosts

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _value(hostvars, host, name, defaults):
    return hostvars[host].get(name, defaults.get(name))


def targets(groups, hostvars, defaults, scraper=None, dcgm=False, dcgm_port=9400, nodes=False, node_port=9100):
    """{servers, routers, nodes, gpus: [file_sd entries], problems: [what to change]}. scraper: the host Prometheus
    runs on (a target on loopback is fine only there). defaults: the shared settings' values for what a
    host does not set itself."""
    out = {"servers": [], "routers": [], "nodes": [], "gpus": [], "problems": []}

    def address(host, listen, what, variable):
        if listen in LOOPBACK:
            if host == scraper:
                return listen  # Prometheus on the same host reaches it there
            out["problems"].append("%s on %s listens on %s only, which Prometheus on %s cannot reach: set %s to "
                                   "0.0.0.0 or the host's address for it." % (what, host, listen, scraper, variable))
        return _fleet_hosts.address(hostvars, host)

    for server in _fleet_hosts.fleet_servers(groups, hostvars, defaults):
        host, port = server["host"], server["port"]
        where = address(host, server["listen"], "SGLang's /metrics", "sglang_host")
        labels = {"host": host, "instance": "%s:%d" % (host, port),
                  "sglang_instance": _value(hostvars, host, "sglang_instance", defaults),
                  "tp_group": server["tp_group"],
                  "sglang_version": str(_value(hostvars, host, "sglang_version", defaults)),
                  "draft": _value(hostvars, host, "sglang_draft_model_path", defaults) or "",
                  "speculative": _value(hostvars, host, "sglang_speculative_algorithm", defaults) or "",
                  "worker_url": server["worker_url"]}
        out["servers"].append({"targets": ["%s:%d" % (where, port)], "labels": labels})
    for host in groups.get("sglang_routers", []):
        port = int(_value(hostvars, host, "sglang_router_prometheus_port", defaults))
        where = address(host, _value(hostvars, host, "sglang_router_prometheus_host", defaults),
                        "sglang-router's exporter", "sglang_router_prometheus_host")
        out["routers"].append({"targets": ["%s:%d" % (where, port)], "labels": {"host": host,
                                                                                "instance": "%s:%d" % (host, port)}})
    for job, wanted, port in (("nodes", nodes, node_port), ("gpus", dcgm, dcgm_port)):
        for host in groups.get("sglang_servers", []) if wanted else []:
            where = _fleet_hosts.address(hostvars, host)
            out[job].append({"targets": ["%s:%d" % (where, port)], "labels": {"host": host,
                                                                              "instance": "%s:%d" % (host, port)}})
    return out
