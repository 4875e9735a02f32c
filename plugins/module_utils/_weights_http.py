# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""HTTP for the weights: Ansible's own transport (ansible.module_utils.urls: validate_certs, ca_path, client
certificates, the proxy environment), with what a source that may be hostile needs on top of it:

- the token goes to the origin it was given for and nowhere else: redirects are followed here, one by one,
  and a request to another origin (the Hub's CDN, a mirror's storage) carries no Authorization header;
- redirects stay on http(s), never step down from https to http, and end after MAX_REDIRECTS;
- a body is read against a limit (an API answer) or an exact size (a file's bytes), as it arrives, and a
  body that stalls or drips is cut; it is never decompressed (no gzip bomb); every error names the URL
  (without its query).
"""

from __future__ import annotations

import time
from urllib.error import HTTPError, URLError
from urllib.parse import urljoin, urlsplit

from ansible.module_utils.urls import Request

MAX_REDIRECTS = 5
API_LIMIT = 32 * 1024 * 1024
STALL_BYTES = 64 * 1024
AGENT = "gpufleet.sglang"


class TransportError(Exception):
    """A request that failed, with the URL it was for."""

    def __init__(self, message, code=None):
        super().__init__(message)
        self.code = code


def origin(url):
    parts = urlsplit(url)
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme, (parts.hostname or "").lower(), port


def shown(url):
    """A URL as errors show it: without its query (signed URLs carry credentials there)."""
    return url.split("?", 1)[0]


class Hub:
    """One source of files: the Hub, a mirror, or a peer of the fleet. token is sent to base's origin only."""

    def __init__(self, base, token="", validate_certs=True, ca_path=None, client_cert=None, client_key=None,
                 use_proxy=True, timeout=60):
        if urlsplit(base).scheme not in ("http", "https") or not urlsplit(base).hostname:
            raise TransportError("%s is not an http:// or https:// URL" % base)
        self.base, self.token, self.timeout = base.rstrip("/"), token or "", timeout
        self._request = Request(use_proxy=use_proxy, timeout=timeout, validate_certs=validate_certs,
                                ca_path=ca_path or None, client_cert=client_cert or None,
                                client_key=client_key or None, follow_redirects="none", http_agent=AGENT,
                                decompress=False)

    def open(self, url, headers=None):
        """The response to GET url after its redirects; HTTP errors raise TransportError with their code."""
        home = origin(self.base)
        for _hop in range(MAX_REDIRECTS + 1):
            sent = dict(headers or {})
            if self.token and origin(url) == home:
                sent["Authorization"] = "Bearer " + self.token
            try:
                return self._request.open("GET", url, headers=sent)
            except HTTPError as exc:
                location = exc.headers.get("Location") if exc.headers else None
                if exc.code not in (301, 302, 303, 307, 308) or not location:
                    raise TransportError("%s answered HTTP %d" % (shown(url), exc.code), exc.code) from None
                url = self._next(url, location)
            except (URLError, OSError, ValueError) as exc:
                raise TransportError("%s cannot be reached: %s" % (shown(url), getattr(exc, "reason", exc))) from None
        raise TransportError("%s redirects more than %d times" % (shown(url), MAX_REDIRECTS))

    @staticmethod
    def _next(url, location):
        target = urljoin(url, location)
        scheme = urlsplit(target).scheme
        if scheme not in ("http", "https") or not urlsplit(target).hostname:
            raise TransportError("%s redirects to %s, which is not http(s)" % (shown(url), shown(target)))
        if urlsplit(url).scheme == "https" and scheme == "http":
            raise TransportError("%s redirects from https to plain http (%s)" % (shown(url), shown(target)))
        return target

    def get(self, url, limit=API_LIMIT):
        """(body, headers) of an API answer of at most limit bytes, read within the timeout."""
        response = self.open(url)
        deadline = time.monotonic() + self.timeout
        body = bytearray()
        try:
            while True:
                chunk = response.read1(1024 * 1024)
                if not chunk:
                    return bytes(body), response.headers
                body += chunk
                if len(body) > limit:
                    raise TransportError("%s answered more than %d MB" % (shown(url), limit // (1024 * 1024)))
                if time.monotonic() > deadline:
                    raise TransportError("%s did not finish its answer within %d s" % (shown(url), self.timeout))
        except (OSError, ValueError) as exc:
            raise TransportError("%s broke off its answer: %s" % (shown(url), exc)) from None
        finally:
            response.close()


def copy_body(response, handle, count, url, timeout, chunk=8 * 1024 * 1024, clock=time.monotonic):
    """Write at most count bytes of response to handle; returns the bytes written, fewer when the body ends or
    breaks early (the error, if any, is returned too). A body that sends less than STALL_BYTES in timeout
    seconds is cut."""
    written, window_start, window_bytes = 0, clock(), 0
    try:
        while written < count:
            data = response.read1(min(chunk, count - written))
            if not data:
                return written, None
            handle.write(data)
            written += len(data)
            window_bytes += len(data)
            if clock() - window_start > timeout:
                if window_bytes < STALL_BYTES:
                    return written, "%s sent %d bytes in %d s" % (shown(url), window_bytes, timeout)
                window_start, window_bytes = clock(), 0
        return written, None
    except (OSError, ValueError) as exc:
        return written, "%s broke off: %s" % (shown(url), exc)
