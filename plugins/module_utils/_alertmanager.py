# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Silences in Alertmanager's API v2, as Alertmanager 0.25 (Debian 12's package) answers it, running:

- ``POST /api/v2/silences`` with ``{matchers: [{name, value, isRegex, isEqual}], startsAt, endsAt, createdBy,
  comment}`` answers ``{"silenceID": ID}``; with the ``id`` of an active silence, that silence is replaced (the
  answer may name a new ID, the old one is then expired); an ``id`` it does not know answers 404.
- ``GET /api/v2/silences?filter=name="value"`` lists ``[{id, status: {state}, matchers, startsAt, endsAt,
  createdBy, comment, updatedAt}]``, ``state`` one of ``active``, ``pending``, ``expired``.
- ``DELETE /api/v2/silence/ID`` expires a silence (200, also for one already expired).

A planned absence is one silence with the given label matchers, created by ``created_by``: made or made longer
before the work, expired after it, and ending by itself at its end time when nobody comes back to expire it.
Private to the collection: not a public API.
"""

from __future__ import annotations

import datetime
import json
from urllib.parse import quote

from ansible_collections.gpufleet.sglang.plugins.module_utils._http import Client, HttpError, json_answer, shown

CALL_TIMEOUT = 10
# A listing filtered to one host's silences: kilobytes. Anything near this is not Alertmanager.
ANSWER_LIMIT = 4 * 1024 * 1024
LIVE = ("active", "pending")


class AlertmanagerError(Exception):
    """Alertmanager cannot be used: unreachable, refusing, or answering what its API does not answer."""


def stamp(moment):
    """An RFC 3339 time in UTC with milliseconds, as Alertmanager writes them."""
    return moment.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (
        moment.microsecond // 1000)


def parse_stamp(text):
    return datetime.datetime.strptime(text.replace("Z", "+0000"), "%Y-%m-%dT%H:%M:%S.%f%z")


def wanted_matchers(labels):
    return sorted(({"name": name, "value": str(value), "isRegex": False, "isEqual": True}
                   for name, value in labels.items()), key=lambda matcher: matcher["name"])


def _checked(listing, url):
    """[{id, state, matchers, ends_at, created_by}] from a GET /api/v2/silences answer, checked field by field."""
    silences = []
    for index, silence in enumerate(listing):
        problem, ends_at = None, None
        if not isinstance(silence, dict):
            problem = "is not an object"
        elif not isinstance(silence.get("id"), str) or not isinstance(silence.get("createdBy"), str):
            problem = "has no id or createdBy string"
        elif not isinstance(silence.get("status"), dict) or not isinstance(silence["status"].get("state"), str):
            problem = "has no status.state string"
        elif not isinstance(silence.get("matchers"), list) or not all(
                isinstance(matcher, dict) and isinstance(matcher.get("name"), str)
                and isinstance(matcher.get("value"), str) for matcher in silence["matchers"]):
            problem = "has matchers that are not name/value objects"
        else:
            try:
                ends_at = parse_stamp(str(silence.get("endsAt")))
            except ValueError:
                problem = "has an endsAt that is not an RFC 3339 time"
        if problem:
            raise AlertmanagerError("%s answered a silence (#%d) that %s" % (url, index, problem))
        matchers = sorted(({"name": m["name"], "value": m["value"], "isRegex": bool(m.get("isRegex")),
                            "isEqual": m.get("isEqual", True) is not False} for m in silence["matchers"]),
                          key=lambda matcher: matcher["name"])
        silences.append({"id": silence["id"], "state": silence["status"]["state"], "matchers": matchers,
                         "ends_at": ends_at, "created_by": silence["createdBy"]})
    return silences


class AlertmanagerClient(object):
    """Calls to one Alertmanager through the collection's HTTP client: a redirect to another origin is refused,
    one deadline per call, answers capped and checked before use."""

    def __init__(self, base_url, timeout=CALL_TIMEOUT, validate_certs=True, client=None):
        self.base_url = base_url.rstrip("/")
        try:
            self.client = client or Client(self.base_url, timeout=timeout, cross_origin="refuse",
                                           validate_certs=validate_certs)
        except HttpError as exc:
            raise AlertmanagerError("the Alertmanager URL %s" % exc)

    def _call(self, method, path, body=None, expect=dict):
        headers = {"Content-Type": "application/json"} if body is not None else {}
        url = shown(self.base_url + path)
        try:
            status, data = self.client.call(method, path, None if body is None else json.dumps(body).encode(),
                                            headers, limit=ANSWER_LIMIT)
        except HttpError as exc:
            raise AlertmanagerError("Alertmanager at %s cannot be used: %s" % (self.base_url, exc))
        if status >= 400:
            raise AlertmanagerError("Alertmanager at %s answered %s %s with %d: %s" % (
                self.base_url, method, path.split("?", 1)[0], status, data[:300].decode("utf-8", "replace")))
        if expect is None:
            return None
        try:
            return json_answer(data, url, expect)
        except HttpError as exc:
            raise AlertmanagerError("Alertmanager at %s answered %s %s with HTTP %d, but %s" % (
                self.base_url, method, path.split("?", 1)[0], status, exc))

    def silences(self, labels):
        """The silences whose matchers select exactly ``labels`` (any state)."""
        filters = "&".join("filter=" + quote('%s="%s"' % (name, value), safe="")
                           for name, value in sorted(labels.items()))
        listing = self._call("GET", "/api/v2/silences?" + filters, expect=list)
        wanted = wanted_matchers(labels)
        return [silence for silence in _checked(listing, shown(self.base_url + "/api/v2/silences"))
                if silence["matchers"] == wanted]

    def post(self, labels, ends_at, created_by, comment, replaces=None):
        body = {"matchers": wanted_matchers(labels), "startsAt": stamp(datetime.datetime.now(datetime.timezone.utc)),
                "endsAt": stamp(ends_at), "createdBy": created_by, "comment": comment}
        if replaces:
            body["id"] = replaces
        answer = self._call("POST", "/api/v2/silences", body)
        if not isinstance(answer.get("silenceID"), str) or not answer["silenceID"]:
            raise AlertmanagerError("Alertmanager at %s answered POST /api/v2/silences without a silenceID"
                                    % self.base_url)
        return answer["silenceID"]

    def expire(self, silence_id):
        self._call("DELETE", "/api/v2/silence/" + quote(silence_id, safe=""), expect=None)


def _target(ours, now, state, seconds, end_within):
    """(when the one live silence should end, whether the latest of ``ours`` fits that already), or None when none
    should live."""
    if state == "present":
        ends_at = now + datetime.timedelta(seconds=seconds)
        # A silence that ends within a tenth of the window (at most a minute) of the wanted end is kept: a task
        # run again at once changes nothing.
        slack = datetime.timedelta(seconds=min(60, seconds // 10))
        return ends_at, bool(ours) and ours[0]["ends_at"] >= ends_at - slack
    if end_within and ours:
        ends_at = now + datetime.timedelta(seconds=end_within)
        return ends_at, ours[0]["ends_at"] <= ends_at
    return None


def ensure(client, labels, seconds, created_by, comment, state="present", check_mode=False, now=None, end_within=0):
    """Bring the planned absence of ``labels`` to ``state``: {changed, silence_id, ends_at, expired}.

    present: one live silence of ``created_by`` ending no earlier than ``seconds`` from now (an earlier one is
    replaced, further ones expired). absent: every live silence of ``created_by`` with these matchers expired, or,
    with ``end_within`` seconds, the latest one ending no later than that from now (a later one is replaced by one
    that ends then) and the others expired. Silences that others made are never touched."""
    now = now or datetime.datetime.now(datetime.timezone.utc)
    ours = [silence for silence in client.silences(labels)
            if silence["created_by"] == created_by and silence["state"] in LIVE]
    ours.sort(key=lambda silence: silence["ends_at"], reverse=True)
    result = {"changed": False, "silence_id": None, "ends_at": None, "expired": []}
    target = _target(ours, now, state, seconds, end_within)
    if target:
        ends_at, fits = target
        if fits:
            result.update(silence_id=ours[0]["id"], ends_at=stamp(ours[0]["ends_at"]))
        else:
            result.update(changed=True, ends_at=stamp(ends_at))
            if not check_mode:
                result["silence_id"] = client.post(labels, ends_at, created_by, comment,
                                                   replaces=ours[0]["id"] if ours else None)
        surplus = ours[1:]
    else:
        surplus = ours
    for silence in surplus:
        result["changed"] = True
        result["expired"].append(silence["id"])
        if not check_mode:
            client.expire(silence["id"])
    return result
