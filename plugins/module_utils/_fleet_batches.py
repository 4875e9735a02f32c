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
