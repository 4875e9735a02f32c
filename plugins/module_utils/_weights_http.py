# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""HTTP for the weights: the collection's one client (_http) towards the Hub, a mirror or a peer, where a
redirect to another origin (the Hub's CDN, a mirror's storage) is followed without the token, and a file's
bytes are copied to an exact size, a body that stalls or drips cut.
"""

from __future__ import annotations

import time

from ansible_collections.gpufleet.sglang.plugins.module_utils._http import API_LIMIT, Client, shown

STALL_BYTES = 64 * 1024


class Hub(Client):
    """One source of files: the Hub, a mirror, or a peer of the fleet. token is sent to base's origin only."""

    def __init__(self, base, token="", validate_certs=True, ca_path=None, client_cert=None, client_key=None,
                 use_proxy=True, timeout=60):
        super().__init__(base, token, timeout=timeout, cross_origin="strip", validate_certs=validate_certs,
                         ca_path=ca_path, client_cert=client_cert, client_key=client_key, use_proxy=use_proxy)

    def get(self, url, limit=API_LIMIT):
        """(body, headers) of an API answer of at most limit bytes, read within the timeout."""
        deadline = time.monotonic() + self.timeout
        response = self.open(url, deadline=deadline)
        headers = response.headers
        return self.read(response, url, limit, deadline), headers


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
