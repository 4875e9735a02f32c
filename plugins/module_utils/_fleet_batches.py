# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How a play's ``serial`` value splits a fleet into batches, as Ansible itself splits it.

Private to the collection: not a public API.
"""

from __future__ import annotations

import re

_SIZE = re.compile(r"^\s*(\d+)\s*(%?)\s*$")


def batch_size(value, host_count):
    """Hosts in one batch for a ``serial`` item: a count (``2``) or a percentage (``25%``, at least 1).

    Raises ValueError, naming what to write instead, for anything else.
    """
    match = _SIZE.match(str(value))
    if not match or isinstance(value, bool):
        raise ValueError("sglang_batch must be a number of hosts (1) or a percentage of the fleet (25%%), "
                         "or a list of them; got %r" % (value,))
    number, percent = int(match.group(1)), match.group(2)
    if percent:
        # ansible.utils.helpers.pct_to_int: int(pct / 100 * hosts), but never 0.
        return int((number / 100.0) * host_count) or 1
    return number


def serial_batches(hosts, serial):
    """The batches a play with ``serial: <serial>`` runs ``hosts`` in (a list of lists, in order).

    ``serial`` is a count, a percentage or a list of them (the last one repeats); 0 or an empty
    list means one batch of every host, as in Ansible.
    """
    hosts = list(hosts)
    total = len(hosts)
    sizes = list(serial) if isinstance(serial, (list, tuple)) else [serial]
    if not sizes:
        sizes = [0]
    batches, index = [], 0
    while hosts:
        size = batch_size(sizes[min(index, len(sizes) - 1)], total)
        if size <= 0:
            batches.append(hosts)
            break
        batches.append(hosts[:size])
        hosts = hosts[size:]
        index += 1
    return batches


def one_batch_setting(batch, host_batches=None):
    """The run's sglang_batch: ``batch`` (as the planning host resolves it), which every host that sets
    its own (``{host: value}``) must agree with."""
    disagree = dict((host, value) for host, value in (host_batches or {}).items() if value != batch)
    if disagree:
        raise ValueError("sglang_batch is %s for this run, but %s: the batches of a play are one setting. Set it "
                         "once, for the group of the servers (group_vars/sglang_servers.yml or group_vars/all.yml) "
                         "or with -e sglang_batch=N, not per host."
                         % (batch, ", ".join("%s on %s" % (value, host) for host, value in sorted(disagree.items()))))
    return batch


def units(hosts, tp_groups=None, groups=None):
    """The fleet's units in play order: a multi-node tensor-parallel group (``tp_groups[host]`` names its
    inventory group, whose order gives the ranks) is one unit with all its hosts, any other host a unit
    of its own. A group's hosts that are not in ``hosts`` are left out of it."""
    tp_groups, groups = tp_groups or {}, groups or {}
    result, seen = [], set()
    for host in hosts:
        if host in seen:
            continue
        name = tp_groups.get(host) or ""
        if name and host not in (groups.get(name) or []):
            raise ValueError("%s names sglang_tp_group %s, but is not a host of that group: add it to the group "
                             "or correct sglang_tp_group." % (host, name))
        members = list(groups.get(name, [])) if name else [host]
        members = [member for member in members if member in hosts]
        seen.update(members)
        result.append(members)
    return result


def plan(hosts, owes, serving=None, batch=1, tp_groups=None, groups=None, host_batches=None):
    """The batches of a rolling change, as a play's host order and ``serial`` list.

    ``owes``: {host: [reasons]}, a host with reasons owes the change. ``serving``: {host: bool}, a host
    that serves nothing now (not running, or out of the routers since an earlier run) is "idle": every
    owing unit with an idle host goes first, in one batch (it is down already). The other owing units
    go ``batch`` units at a time, a count or a percentage of the fleet's units (a tensor-parallel group
    is one unit: its hosts are never split). A host of an owing unit owes with it. ``host_batches``:
    the hosts' own sglang_batch, where they set one (see one_batch_setting).
    """
    batch = one_batch_setting(batch, host_batches)
    serving = serving or {}
    fleet = units(hosts, tp_groups, groups)
    owing = [unit for unit in fleet if any(owes.get(host) for host in unit)]
    idle = [unit for unit in owing if not all(serving.get(host, True) for host in unit)]
    busy = [unit for unit in owing if unit not in idle]
    sizes = list(batch) if isinstance(batch, (list, tuple)) else [batch]
    batches = [[host for unit in idle for host in unit]] if idle else []
    index = 0
    while busy:
        size = batch_size(sizes[min(index, len(sizes) - 1)] if sizes else 0, len(fleet))
        size = len(busy) if size <= 0 else size
        batches.append([host for unit in busy[:size] for host in unit])
        busy = busy[size:]
        index += 1
    reasons = {}
    for unit in owing:
        for host in unit:
            reasons[host] = list(owes.get(host) or []) or ["restarts with its group (%s)" % ", ".join(unit)]
    return {
        "batches": batches,
        "order": [host for batch_hosts in batches for host in batch_hosts],
        "sizes": [len(batch_hosts) for batch_hosts in batches],
        "idle": [host for unit in idle for host in unit],
        "owes": reasons,
        "units": len(fleet),
        "batch": batch,
        "text": " -> ".join("[%s]" % ", ".join(batch_hosts) for batch_hosts in batches),
    }
