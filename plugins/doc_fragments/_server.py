# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment(object):
    """The options of the modules that reach an SGLang server: its URL and (API_KEY) its API key."""

    DOCUMENTATION = r"""
options:
  url:
    description: The server's base URL.
    type: str
    default: http://127.0.0.1:30000
"""

    API_KEY = r"""
options:
  api_key:
    description: The server's API key, sent as a bearer token to the server's origin only.
    type: str
"""
