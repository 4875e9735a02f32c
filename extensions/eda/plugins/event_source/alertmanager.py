# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""An ansible-rulebook event source: Alertmanager's webhook, one event per alert, behind a token."""

from __future__ import annotations

DOCUMENTATION = r"""
---
short_description: Receive Alertmanager's webhook as one event per alert, behind a bearer token
description:
  - Listens for Alertmanager's C(webhook_config) posts (payload version 4) and puts one event per alert on the
    rulebook's queue, as C(event.alert) (C(status), C(labels), C(annotations), C(startsAt), C(endsAt),
    C(fingerprint), C(generatorURL)) with C(event.meta) (C(receiver), C(group_key), C(external_url)).
  - Every request must carry C(Authorization - Bearer <token>), compared in constant time; the plugin refuses to
    start without a token, since a rulebook's actions can restart servers. Alertmanager sends the token with
    C(http_config.authorization.credentials) (or C(credentials_file)).
  - A request without the token, to another path, with a body over O(max_body) bytes, or with a body that is not
    an Alertmanager payload is answered 401, 404, 413 or 400 and logged with the peer's address; nothing reaches
    the queue. Without the token, every request is answered 401, whatever its path.
  - An alert already put on the queue within O(replay_window) seconds (the same fingerprint, status and start) is
    not put again. Alertmanager repeats a firing group every C(repeat_interval), and a captured request sent again
    is the same alerts, so neither acts twice.
options:
  host:
    description: The address to listen on. The default reaches this host only; name another deliberately.
    type: str
    default: 127.0.0.1
  port:
    description: The TCP port to listen on.
    type: int
    required: true
  path:
    description: The URL path Alertmanager posts to; any other path is answered 404.
    type: str
    default: /alerts
  token:
    description: The bearer token every request must carry (from a vault). One of O(token) and O(token_file).
    type: str
  token_file:
    description: A file holding the token (its first line), read once at start, at most 4096 bytes.
    type: str
  max_body:
    description: The largest body read, in bytes; a larger one is refused unread.
    type: int
    default: 262144
  replay_window:
    description: Seconds an alert already queued is not queued again.
    type: int
    default: 86400
"""

EXAMPLES = r"""
- name: Alerts from the fleet's Alertmanager
  hosts: all
  sources:
    - gpufleet.sglang.alertmanager:
        host: 127.0.0.1
        port: 5001
        token_file: /etc/gpufleet-eda/token
  rules:
    - name: Say which alert fired
      condition: event.alert.status == "firing"
      action:
        debug:
          msg: "{{ event.alert.labels.alertname }} on {{ event.alert.labels.host | default('?') }}"
"""

import asyncio
import collections
import hmac
import json
import logging
import time

from aiohttp import web

logger = logging.getLogger(__name__)

MAX_TOKEN_FILE = 4096
MAX_ALERTS = 1000
MAX_REMEMBERED = 10000
STATUSES = ("firing", "resolved")


class Refused(Exception):
    """A request the plugin answers with an error and queues nothing from."""

    def __init__(self, status, reason):
        super().__init__(reason)
        self.status = status
        self.reason = reason


def _strings(value, what):
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise Refused(400, "%s is not a map of strings" % what)
    return dict(value)


def parse_alerts(body):
    """The alerts of an Alertmanager webhook body (bytes), checked: (meta, [alert...]); Refused(400) otherwise."""
    try:
        payload = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # RecursionError: arrays nested past Python's limit
        raise Refused(400, "the body is not JSON (%s)" % type(exc).__name__) from None
    if not isinstance(payload, dict) or payload.get("version") != "4":
        raise Refused(400, "the body is not an Alertmanager webhook payload of version 4")
    alerts = payload.get("alerts")
    if not isinstance(alerts, list) or not 0 < len(alerts) <= MAX_ALERTS:
        raise Refused(400, "alerts is not a list of 1 to %d alerts" % MAX_ALERTS)
    checked = []
    for index, alert in enumerate(alerts):
        what = "alerts[%d]" % index
        if not isinstance(alert, dict):
            raise Refused(400, "%s is not an object" % what)
        fields = {name: alert.get(name) for name in ("status", "startsAt", "endsAt", "fingerprint", "generatorURL")}
        if fields["status"] not in STATUSES:
            raise Refused(400, "%s.status is not firing or resolved" % what)
        if not isinstance(fields["fingerprint"], str) or not fields["fingerprint"]:
            raise Refused(400, "%s has no fingerprint" % what)
        if not isinstance(fields["startsAt"], str) or not fields["startsAt"]:
            raise Refused(400, "%s has no startsAt" % what)
        for name in ("endsAt", "generatorURL"):
            if not isinstance(fields[name], str):
                fields[name] = ""
        fields["labels"] = _strings(alert.get("labels"), what + ".labels")
        fields["annotations"] = _strings(alert.get("annotations", {}), what + ".annotations")
        checked.append(fields)
    meta = {"receiver": payload.get("receiver") if isinstance(payload.get("receiver"), str) else "",
            "group_key": payload.get("groupKey") if isinstance(payload.get("groupKey"), str) else "",
            "external_url": payload.get("externalURL") if isinstance(payload.get("externalURL"), str) else ""}
    return meta, checked


class Replays(object):
    """The alerts queued within the window, by (fingerprint, status, startsAt), at most MAX_REMEMBERED."""

    def __init__(self, window, clock=time.monotonic):
        self.window = window
        self.clock = clock
        self.seen = collections.OrderedDict()

    def first_time(self, alert):
        """Whether alert was not queued within the window; remembers it."""
        now = self.clock()
        while self.seen and (next(iter(self.seen.values())) <= now - self.window or len(self.seen) >= MAX_REMEMBERED):
            self.seen.popitem(last=False)
        key = (alert["fingerprint"], alert["status"], alert["startsAt"])
        if key in self.seen:
            return False
        self.seen[key] = now
        return True


def authorized(header, token):
    scheme, _space, given = (header or "").partition(" ")
    return scheme == "Bearer" and hmac.compare_digest(given.strip().encode("utf-8"), token.encode("utf-8"))


def read_token(args):
    if args.get("token"):
        return str(args["token"])
    path = args.get("token_file")
    if path:
        with open(path, "rb") as handle:
            data = handle.read(MAX_TOKEN_FILE + 1)
        if len(data) > MAX_TOKEN_FILE:
            raise ValueError("token_file %s is larger than %d bytes" % (path, MAX_TOKEN_FILE))
        lines = data.decode("utf-8").splitlines()
        if lines and lines[0].strip():
            return lines[0].strip()
    raise ValueError("gpufleet.sglang.alertmanager needs token or token_file (a non-empty token): its events can "
                     "restart servers, so it never listens without one")


async def read_capped(stream, cap):
    """The body, or its first cap + 1 bytes when it is longer (a read returns what has arrived so far)."""
    body = b""
    while len(body) <= cap:
        chunk = await stream.read(cap + 1 - len(body))
        if not chunk:
            break
        body += chunk
    return body


def handler(queue, token, path, max_body, replays):
    async def receive(request):
        peer = request.remote or "?"
        try:
            if not authorized(request.headers.get("Authorization"), token):
                raise Refused(401, "no token or a wrong token")
            if request.path != path:
                raise Refused(404, "no such path %s" % request.path[:200])
            if request.content_length is not None and request.content_length > max_body:
                raise Refused(413, "a body of %d bytes, over max_body %d" % (request.content_length, max_body))
            body = await read_capped(request.content, max_body)
            if len(body) > max_body:
                raise Refused(413, "a body over max_body %d" % max_body)
            meta, alerts = parse_alerts(body)
        except Refused as refused:
            logger.warning("gpufleet.sglang.alertmanager: refused a request from %s: %s", peer, refused.reason)
            return web.json_response({"error": refused.reason}, status=refused.status)
        fresh = [alert for alert in alerts if replays.first_time(alert)]
        for alert in fresh:
            await queue.put({"alert": alert, "meta": meta})
        if len(fresh) < len(alerts):
            logger.info("gpufleet.sglang.alertmanager: %d alert(s) from %s queued within the replay window already",
                        len(alerts) - len(fresh), peer)
        return web.json_response({"queued": len(fresh), "repeated": len(alerts) - len(fresh)})
    return receive


async def main(queue, args):
    """Serve the webhook until cancelled."""
    token = read_token(args)
    if "port" not in args:
        raise ValueError("gpufleet.sglang.alertmanager needs port")
    max_body = int(args.get("max_body", 262144))
    receive = handler(queue, token, args.get("path", "/alerts"), max_body,
                      Replays(int(args.get("replay_window", 86400))))
    app = web.Application(client_max_size=max_body)
    app.router.add_route("POST", "/{tail:.*}", receive)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    host = args.get("host", "127.0.0.1")
    site = web.TCPSite(runner, host, int(args["port"]))
    await site.start()
    logger.info("gpufleet.sglang.alertmanager: listening on %s:%s", host, args["port"])
    try:
        await asyncio.Future()
    finally:
        await runner.cleanup()
