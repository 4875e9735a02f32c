# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""An SGLang server's health and what it says it runs: the wait for /health_generate, failing fast when its unit
dies, and the one read of /server_info."""

from __future__ import annotations

from ansible_collections.gpufleet.sglang.plugins.module_utils._http import HttpError, json_answer

# /server_info is a few KB; a server that answers more is not one to read.
INFO_LIMIT = 4 * 1024 * 1024


class ServerFailed(Exception):
    """The server will not become healthy: its unit failed, restarted, or time ran out."""


def wait_healthy(probe, unit_state, clock, sleep, timeout, interval):
    """Poll until ``probe()`` returns 200. ``unit_state()`` gives (active_state, restarts).

    A unit that is failed or inactive, or that restarted since the wait began, ends the
    wait at once: its server crashed and systemd's back-off would only hide it.
    """
    start = clock()
    first_state, first_restarts = unit_state()
    last = None
    while True:
        state, restarts = unit_state()
        if state in ("failed", "inactive") or restarts > first_restarts:
            raise ServerFailed("the unit stopped before the server became healthy (state %s, %d restart%s "
                               "since the wait began)" % (state, restarts - first_restarts,
                                                          "" if restarts - first_restarts == 1 else "s"))
        last = probe()
        if last == 200:
            return clock() - start
        if clock() - start >= timeout:
            raise ServerFailed("no healthy answer within %d s (last: %s; unit %s)" % (timeout, last, state))
        sleep(interval)


def _flag(argv, flag):
    return argv[argv.index(flag) + 1] if flag in argv[:-1] else ""


def speculative_summary(unit, info, argv=None):
    """(what the server runs, for people; the mismatch with the unit's ExecStart ``argv``, or None).

    Without ``argv`` nothing is compared."""
    algorithm = info.get("speculative_algorithm") or ""
    draft = info.get("speculative_draft_model_path") or ""
    summary = "%s with %s" % (algorithm, draft) if algorithm else "no speculative decoding"
    if argv is None:
        return summary, None
    wanted_algorithm = _flag(argv, "--speculative-algorithm")
    wanted_draft = _flag(argv, "--speculative-draft-model-path")
    if (algorithm, draft if wanted_algorithm else "") == (wanted_algorithm, wanted_draft):
        return summary, None
    return summary, ("%s is healthy but runs speculative_algorithm=%s with draft %s; asked for %s with %s." % (
        unit, algorithm or "none", draft or "none", wanted_algorithm or "none", wanted_draft or "none"))


def read_server_info(client):
    """The server's /server_info (a JSON object), through ``client`` (a _http.Client on the server's origin, with
    its API key); HttpError naming the URL when it cannot be read."""
    status, body = client.call("GET", "/server_info", limit=INFO_LIMIT)
    if status != 200:
        raise HttpError("%s/server_info answered HTTP %d" % (client.base, status), status)
    return json_answer(body, client.base + "/server_info")


def accept_length(info):
    """The average acceptance length the server measured (its first data-parallel rank's), or None when it
    reports none (no speculative decoding, nothing decoded yet, or an answer of another shape)."""
    states = info.get("internal_states")
    first = states[0] if isinstance(states, list) and states else None
    value = first.get("avg_spec_accept_length") if isinstance(first, dict) else None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
