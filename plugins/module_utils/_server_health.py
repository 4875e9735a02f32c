# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""An SGLang server's health and what it says it runs: whether /health answers, the wait for /health_generate,
failing fast when its unit dies, the one read of /server_info, the acceptance gate's batch of generations and the drain's wait on the
requests in flight."""

from __future__ import annotations

import json
import re

from ansible_collections.gpufleet.sglang.plugins.module_utils._http import HttpError, json_answer, shown

# /health answers with an empty body (SGLang and sglang-router alike); what it says beyond its status is not read.
HEALTH_LIMIT = 64 * 1024
# /server_info is a few KB; a server that answers more is not one to read.
INFO_LIMIT = 4 * 1024 * 1024
# The answer to one short generation of the gate is a few KB (its text and meta_info).
ANSWER_LIMIT = 256 * 1024
# SGLang's /metrics is some hundreds of KB (histograms per rank); Prometheus' default scrape has no cap.
METRICS_LIMIT = 16 * 1024 * 1024
# SGLang's scheduler gauges, one sample per rank: the requests running and queued.
IN_FLIGHT = re.compile(r"(?m)^sglang:num_(?:running|queue)_reqs\{[^}]*\} ([0-9.e+]+)$")


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


def ask_health(client, clock, sleep, wait, interval):
    """(the HTTP status of /health, 0 when none came; why it is not 200, "" when it is; how many times it was asked),
    asked again every ``interval`` seconds until it answers 200 or ``wait`` seconds have passed."""
    start, asks = clock(), 0
    while True:
        asks += 1
        try:
            status, dummy = client.call("GET", "/health", limit=HEALTH_LIMIT)
            error = "" if status == 200 else "%s answered HTTP %d" % (shown(client.base + "/health"), status)
        except HttpError as exc:
            status, error = 0, str(exc)
        if status == 200 or clock() - start >= wait:
            return status, error, asks
        sleep(interval)


def _require_ok(client, path, status):
    """HttpError naming the URL unless the server answered ``path`` with 200."""
    if status != 200:
        raise HttpError("%s answered HTTP %d" % (shown(client.base + path), status), status)


def read_server_info(client):
    """The server's /server_info (a JSON object), through ``client`` (a _http.Client on the server's origin, with
    its API key); HttpError naming the URL when it cannot be read."""
    status, body = client.call("GET", "/server_info", limit=INFO_LIMIT)
    _require_ok(client, "/server_info", status)
    return json_answer(body, client.base + "/server_info")


def accept_length(info):
    """The average acceptance length the server measured (its first data-parallel rank's), or None when it
    reports none (no speculative decoding, nothing decoded yet, or an answer of another shape)."""
    states = info.get("internal_states")
    first = states[0] if isinstance(states, list) and states else None
    value = first.get("avg_spec_accept_length") if isinstance(first, dict) else None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def gate_prompts(count):
    """The gate's ``count`` short prompts (a number in each, so that no two are the same request)."""
    return ["Gate request %d: count from one to twenty." % number for number in range(count)]


def generate_batch(client, prompts, max_new_tokens):
    """Send ``prompts`` as one /generate request (SGLang decodes a list of texts as one batch, so this takes
    about as long as one generation) through ``client``; the number of answers. HttpError naming the URL when the
    server does not answer 200 with a JSON list."""
    body = json.dumps({"text": prompts, "sampling_params": {"max_new_tokens": max_new_tokens, "temperature": 0}})
    status, data = client.call("POST", "/generate", body.encode(), {"Content-Type": "application/json"},
                               limit=ANSWER_LIMIT * max(len(prompts), 1))
    _require_ok(client, "/generate", status)
    return len(json_answer(data, client.base + "/generate", expect=list))


def gate_failure(measured, requests, minimum, previous=None, max_regression=0.0):
    """Why a draft whose average acceptance length is ``measured`` (None: the server reports none) after
    ``requests`` generations fails the gate, or None when it passes: it must reach ``minimum`` and, when the
    ``previous`` draft's is known, (1 - ``max_regression``) of it."""
    measured = measured or 0.0
    required = minimum
    against_previous = ""
    if previous is not None:
        versus = (1 - max_regression) * previous
        required = max(minimum, versus)
        against_previous = " and at least %.2f (%.2f x the previous draft's %s)" % (versus, 1 - max_regression, previous)
    if measured >= required:
        return None
    return ("acceptance gate: the new draft's average acceptance length is %s after %d requests; required at least "
            "%s%s." % (measured, requests, float(minimum), against_previous))


def in_flight(metrics):
    """(the requests running or queued on every rank, the gauge samples they were read from) in the text of
    SGLang's /metrics; (0, 0) without a sample."""
    samples = IN_FLIGHT.findall(metrics)
    return sum(float(sample) for sample in samples), len(samples)


def wait_drained(client, clock, sleep, timeout, interval):
    """Poll /metrics until no request runs or queues; (seconds waited, polls, the gauge samples of the last read),
    or None when the server serves no /metrics (404: started without --enable-metrics). HttpError naming the URL
    when /metrics cannot be read, or when requests are still in flight after ``timeout`` seconds."""
    start = clock()
    polls = 0
    while True:
        polls += 1
        status, data = client.call("GET", "/metrics", limit=METRICS_LIMIT)
        if status == 404:
            return None
        _require_ok(client, "/metrics", status)
        count, samples = in_flight(data.decode("utf-8", "replace"))
        if count == 0:
            return clock() - start, polls, samples
        if clock() - start >= timeout:
            raise HttpError("%s still has %g requests in flight after %d s" % (client.base, count, timeout))
        sleep(interval)
