# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one HTTP client of the modules that talk to a router, a server, a peer, the Hub or a mirror.

Ansible's own transport (ansible.module_utils.urls: validate_certs, ca_path, client certificates, the
proxy environment), with what an answer from a host that may be hostile needs on top of it:

- the credential goes to the origin it was given for and nowhere else: redirects are followed here, one by
  one; a request to another origin either carries no Authorization header (``cross_origin="strip"``: the
  Hub's CDN) or is refused (``"refuse"``: a router's API, which has no business redirecting);
- redirects stay on http(s), never step down from https to http, and end after MAX_REDIRECTS; a request with
  a body follows only 307 and 308 (which keep the method and body);
- one deadline per call, for the connection, the redirects and the whole body (an answer that drips one
  byte a second ends at the deadline, not at a timeout per read);
- a body is read against a limit as it arrives and never decompressed (no gzip bomb);
- every error names the URL without its query (signed URLs carry credentials there).

Private to the collection: not a public API.
"""

from __future__ import annotations

import time
from urllib.error import HTTPError, URLError
from urllib.parse import urljoin, urlsplit

from ansible.module_utils.urls import Request

from ansible_collections.gpufleet.sglang.plugins.module_utils._host_files import HostFileError, load_json

MAX_REDIRECTS = 5
API_LIMIT = 32 * 1024 * 1024
ERROR_LIMIT = 64 * 1024
AGENT = "gpufleet.sglang"
REDIRECTS = (301, 302, 303, 307, 308)


class HttpError(Exception):
    """A request that failed, with the URL it was for (and the HTTP status, when one came)."""

    def __init__(self, message, code=None, response=None):
        super().__init__(message)
        self.code = code
        self.response = response


def origin(url):
    parts = urlsplit(url)
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme, (parts.hostname or "").lower(), port


def shown(url):
    """A URL as errors show it: without its query."""
    return url.split("?", 1)[0]


def _socket_of(response):
    """The socket under an http.client response, to bound each read by the call's deadline (None when the
    response is not one: then the transport's own timeout bounds each read)."""
    raw = getattr(getattr(response, "fp", None), "raw", None)
    return getattr(raw, "_sock", None)


class Client(object):
    """Calls to one origin (``base``). ``token`` goes as a bearer token to that origin only."""

    def __init__(self, base, token="", timeout=60, cross_origin="strip", validate_certs=True, ca_path=None,
                 client_cert=None, client_key=None, use_proxy=True):
        if urlsplit(base).scheme not in ("http", "https") or not urlsplit(base).hostname:
            raise HttpError("%s is not an http:// or https:// URL" % base)
        self.base, self.token, self.timeout, self.cross_origin = base.rstrip("/"), token or "", timeout, cross_origin
        self._request = Request(use_proxy=use_proxy, timeout=timeout, validate_certs=validate_certs,
                                ca_path=ca_path or None, client_cert=client_cert or None,
                                client_key=client_key or None, follow_redirects="none", http_agent=AGENT,
                                decompress=False)

    def open(self, url, headers=None, method="GET", body=None, deadline=None):
        """The response to ``method url`` after its redirects; an HTTP error raises HttpError with its code."""
        deadline = deadline or time.monotonic() + self.timeout
        home = origin(self.base)
        for _hop in range(MAX_REDIRECTS + 1):
            sent = dict(headers or {})
            if self.token and origin(url) == home:
                sent["Authorization"] = "Bearer " + self.token
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise HttpError("%s did not answer within %d s" % (shown(url), self.timeout))
            try:
                return self._request.open(method, url, data=body, headers=sent, timeout=remaining)
            except HTTPError as exc:
                location = exc.headers.get("Location") if exc.headers else None
                if exc.code not in REDIRECTS or not location:
                    raise HttpError("%s answered HTTP %d" % (shown(url), exc.code), exc.code, exc) from None
                if body is not None and exc.code not in (307, 308):
                    raise HttpError("%s answered %s with a %d redirect, which would drop its body"
                                    % (shown(url), method, exc.code), exc.code) from None
                url = self._next(url, location)
            except (URLError, OSError, ValueError) as exc:
                raise HttpError("%s cannot be reached: %s" % (shown(url), getattr(exc, "reason", exc))) from None
        raise HttpError("%s redirects more than %d times" % (shown(url), MAX_REDIRECTS))

    def _next(self, url, location):
        target = urljoin(url, location)
        scheme = urlsplit(target).scheme
        if scheme not in ("http", "https") or not urlsplit(target).hostname:
            raise HttpError("%s redirects to %s, which is not http(s)" % (shown(url), shown(target)))
        if urlsplit(url).scheme == "https" and scheme == "http":
            raise HttpError("%s redirects from https to plain http (%s)" % (shown(url), shown(target)))
        if self.cross_origin == "refuse" and origin(target) != origin(self.base):
            raise HttpError("%s redirects to %s, another origin; nothing was sent there" % (shown(url), shown(target)))
        return target

    def read(self, response, url, limit=API_LIMIT, deadline=None, cut=False):
        """The body of ``response``, at most ``limit`` bytes, read by ``deadline`` (with ``cut``, a longer body
        is cut at ``limit`` rather than refused)."""
        deadline = deadline or time.monotonic() + self.timeout
        body = bytearray()
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise HttpError("%s did not finish its answer within %d s" % (shown(url), self.timeout))
                sock = _socket_of(response)  # gone once http.client has read the whole body
                if sock is not None and sock.fileno() >= 0:
                    sock.settimeout(remaining)
                chunk = response.read1(min(1024 * 1024, limit + 1 - len(body)))
                if not chunk:
                    return bytes(body)
                body += chunk
                if len(body) > limit and cut:
                    return bytes(body[:limit])
                if len(body) > limit:
                    raise HttpError("%s answered more than %s" % (shown(url), _size(limit)))
        except HttpError:
            raise
        except (OSError, ValueError) as exc:
            if deadline - time.monotonic() <= 0:
                raise HttpError("%s did not finish its answer within %d s" % (shown(url), self.timeout)) from None
            raise HttpError("%s broke off its answer: %s" % (shown(url), exc)) from None
        finally:
            response.close()

    def call(self, method, path, body=None, headers=None, limit=API_LIMIT):
        """(status, body bytes) of ``method base+path`` within one deadline; an HTTP error status is returned,
        not raised, with its body read against the same limit."""
        deadline = time.monotonic() + self.timeout
        url = self.base + path
        try:
            response = self.open(url, headers, method, body, deadline)
        except HttpError as exc:
            if exc.response is None:
                raise
            return exc.code, self.read(exc.response, url, ERROR_LIMIT, deadline, cut=True)
        return response.getcode(), self.read(response, url, limit, deadline)


def _size(count):
    return "%d MB" % (count // (1024 * 1024)) if count >= 1024 * 1024 else "%d bytes" % count


def json_answer(data, url, expect=dict):
    """An answer's body as JSON of type ``expect``, or HttpError naming the URL and what came instead."""
    try:
        return load_json(data, shown(url) + "'s answer", expect)
    except HostFileError as exc:
        raise HttpError(str(exc)) from None
