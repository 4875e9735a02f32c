# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What an SGLang server host is to the rest of the fleet, defined once: the hosts of its server (its
sglang_tp_group in rank order, or itself), its rank 0 (the first of them: the one that serves HTTP, is
the routers' worker and what every rank is gated on), the URL the routers register it under, and where
its /metrics listen. Read from the inventory's host variables, with ``settings`` (the shared settings'
values) for what a host does not set itself: a role's defaults are not among another host's variables."""

from __future__ import annotations


def _setting(hostvars, host, name, settings):
    value = hostvars[host].get(name) if host in hostvars else None
    return settings.get(name) if value is None else value


def address(hostvars, host):
    """Where other hosts reach a host: its ansible_host, else its inventory name."""
    return _setting(hostvars, host, "ansible_host", {}) or host


def fleet_host(groups, hostvars, host, settings):
    """{host, hosts, rank0, is_rank0, tp_group, worker_url, address, listen, port, weights_peer} of one server host."""
    tp_group = _setting(hostvars, host, "sglang_tp_group", settings) or ""
    hosts = list(groups.get(tp_group, [])) if tp_group else [host]
    rank0 = hosts[0] if hosts else host
    where = address(hostvars, host)
    port = int(_setting(hostvars, host, "sglang_port", settings))
    return {
        "host": host, "hosts": hosts, "rank0": rank0, "is_rank0": rank0 == host, "tp_group": tp_group,
        "worker_url": _setting(hostvars, host, "sglang_router_worker_url", settings) or "http://%s:%d" % (where, port),
        "address": where, "listen": _setting(hostvars, host, "sglang_host", settings), "port": port,
        "weights_peer": _setting(hostvars, host, "sglang_weights_peer_address", settings) or where,
    }


def fleet_servers(groups, hostvars, settings, group="sglang_servers"):
    """fleet_host of the rank 0 of every server of ``group`` (one per server: the others serve no HTTP)."""
    found = [fleet_host(groups, hostvars, host, settings) for host in groups.get(group, [])]
    return [server for server in found if server["is_rank0"]]


def weights_fanout(groups, hostvars, host, hosts, settings, port):
    """A host's place in the binary tree of a weights staging over ``hosts`` (the fan-out group, in play order):
    host i fetches from host (i - 1) // 2 and serves hosts 2i + 1 and 2i + 2; the first fetches from the endpoint.
    A host that is not among them stages alone. {hosts, parent, parent_url, children, address}: parent and
    parent_url are "" for a host that fetches from the endpoint; address is where its own peer server listens.
    ``port`` is the peer servers' port (sglang_weights_peer_port)."""
    hosts = list(hosts) if host in hosts else [host]
    index = hosts.index(host)
    parent = hosts[(index - 1) // 2] if index else ""
    parent_url = "http://%s:%d" % (fleet_host(groups, hostvars, parent, settings)["weights_peer"], int(port)) if parent else ""
    return {"hosts": hosts, "parent": parent, "parent_url": parent_url, "children": hosts[index * 2 + 1:index * 2 + 3],
            "address": fleet_host(groups, hostvars, host, settings)["weights_peer"]}
