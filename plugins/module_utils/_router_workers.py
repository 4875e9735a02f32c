# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The worker API of sglang-router (sgl-model-gateway) 0.3.2, and reconciling its workers.

Read from the running router: ``GET /workers`` lists ``{"workers": [{"id": UUID, "url", "is_healthy",
"model_id", ...}], "total", "stats"}``; ``POST /workers`` with ``{"url", "api_key"}`` and
``DELETE /workers/{id}`` answer 202 and are carried out by a job queue, so the list is polled until
it shows the change. With control-plane keys the router wants one of them as a bearer token;
without, its ``--api-key``. URLs are compared exactly as registered: the router stores
``http://h:p`` and ``http://h:p/`` as two workers. Private to the collection: not a public API.
"""

from __future__ import annotations

import json

from ansible_collections.gpufleet.sglang.plugins.module_utils._http import Client, HttpError, json_answer, shown

CALL_TIMEOUT = 10
# A router lists one entry per worker: a fleet's answer is kilobytes.
ANSWER_LIMIT = 4 * 1024 * 1024


class RouterError(Exception):
    """The router cannot be used: unreachable, refusing the key, not knowing a worker, or answering what its
    API does not answer."""


def _checked_workers(answer, url):
    """[{id, url, is_healthy, model_id}] from a GET /workers answer, each field of the type the API gives."""
    listed = answer.get("workers", _MISSING)
    if not isinstance(listed, list):
        raise RouterError("%s answered an object whose workers is %s, not a list" % (url, _kind(listed)))
    workers = []
    for index, worker in enumerate(listed):
        if not isinstance(worker, dict):
            raise RouterError("%s answered a worker (#%d) that is %s, not an object" % (url, index, _kind(worker)))
        for key, types in (("id", (str,)), ("url", (str,)), ("is_healthy", (bool,)), ("model_id", (str, type(None)))):
            if not isinstance(worker.get(key, _MISSING), types):
                raise RouterError("%s answered a worker (#%d) whose %s is %s"
                                  % (url, index, key, _kind(worker.get(key, _MISSING))))
        workers.append(dict((key, worker.get(key)) for key in ("id", "url", "is_healthy", "model_id")))
    return workers


_MISSING = object()


def _kind(value):
    return "missing" if value is _MISSING else json.dumps(value)[:60]


class RouterClient(object):
    """Calls to one router through the collection's HTTP client: the key never leaves the router's origin (a
    redirect elsewhere is refused), one deadline per call, answers capped and checked before use."""

    def __init__(self, base_url, key, client=None, timeout=CALL_TIMEOUT):
        self.base_url = base_url.rstrip("/")
        try:
            self.client = client or Client(self.base_url, key, timeout=timeout, cross_origin="refuse")
        except HttpError as exc:
            raise RouterError("the router URL %s" % exc)

    def _call(self, method, path, body=None):
        headers = {"Content-Type": "application/json"} if body is not None else {}
        url = shown(self.base_url + path)
        try:
            status, data = self.client.call(method, path, None if body is None else json.dumps(body).encode(),
                                            headers, limit=ANSWER_LIMIT)
        except HttpError as exc:  # refused, unreachable, timed out, redirected elsewhere, too long
            raise RouterError("the router at %s cannot be used: %s" % (self.base_url, exc))
        if status == 401:
            raise RouterError("the router at %s refuses the key (401 on %s %s): give the router's control-plane key "
                              "(or, without one, its API key)" % (self.base_url, method, path))
        if status >= 400:
            raise RouterError("the router at %s answered %s %s with %d: %s"
                              % (self.base_url, method, path, status, data[:300].decode("utf-8", "replace")))
        if not data.strip():
            return {}
        try:
            return json_answer(data, url)
        except HttpError as exc:
            raise RouterError("the router at %s answered %s %s with HTTP %d, but %s" % (
                self.base_url, method, path, status, exc))

    def workers(self):
        """[{id, url, is_healthy, model_id}], as registered."""
        return _checked_workers(self._call("GET", "/workers"), shown(self.base_url + "/workers"))

    def add(self, url, worker_api_key=None):
        body = {"url": url}
        if worker_api_key:
            body["api_key"] = worker_api_key
        return self._call("POST", "/workers", body)

    def remove(self, worker_id):
        return self._call("DELETE", "/workers/%s" % worker_id)


def plan(registered, wanted, state, exclusive):
    """(to_add: [url], to_remove: [worker]) that bring the registered workers to the wanted state."""
    urls = [worker["url"] for worker in registered]
    if state == "present":
        to_add = [url for url in wanted if url not in urls]
        to_remove = [worker for worker in registered if exclusive and worker["url"] not in wanted]
    else:
        to_add = []
        to_remove = [worker for worker in registered if worker["url"] in wanted]
    return to_add, to_remove


def describe(registered):
    if not registered:
        return "no worker"
    return ", ".join("%s (%s)" % (w["url"], "healthy" if w["is_healthy"] else "unhealthy") for w in registered)


def reconcile(client, wanted, state="present", exclusive=False, require_registered=False, worker_api_key=None,
              wait_healthy=False, check_mode=False, timeout=60, clock=None, sleep=None):
    """Bring one router's workers to ``state`` for the ``wanted`` URLs; returns a result dict.

    ``require_registered`` (with ``absent``): fail, before any change, when a wanted URL is not
    registered, naming what the router has. ``wait_healthy`` (with ``present``): poll until every
    wanted worker is listed healthy.
    """
    before = client.workers()
    if require_registered:
        unknown = [url for url in wanted if url not in [worker["url"] for worker in before]]
        if unknown:
            raise RouterError("the router at %s does not know %s; it has registered %s. Register the worker "
                              "(playbooks/router.yml) or give the URL exactly as registered (sglang_router_worker_url)"
                              % (client.base_url, ", ".join(unknown), describe(before)))
    to_add, to_remove = plan(before, wanted, state, exclusive)
    result = {"changed": bool(to_add or to_remove), "added": to_add, "removed": [w["url"] for w in to_remove],
              "before": before}
    if check_mode:
        result["workers"] = before
        return result
    for url in to_add:
        client.add(url, worker_api_key)
    for worker in to_remove:
        client.remove(worker["id"])

    def settled(workers):
        urls = dict((worker["url"], worker) for worker in workers)
        if any(url in urls for url in result["removed"]) or any(url not in urls for url in to_add):
            return False
        return not (wait_healthy and state == "present" and not all(
            url in urls and urls[url]["is_healthy"] for url in wanted))

    start = clock()
    workers = client.workers()
    while not settled(workers):
        if clock() - start >= timeout:
            raise RouterError("the router at %s did not carry out %s within %d s; it has %s" % (
                client.base_url, "adding %s" % ", ".join(to_add) if to_add else
                "removing %s" % ", ".join(result["removed"]) if result["removed"] else
                "the health check of %s" % ", ".join(wanted), timeout, describe(workers)))
        sleep(0.5)
        workers = client.workers()
    result["workers"] = workers
    return result
