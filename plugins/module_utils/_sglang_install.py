# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where pip takes SGLang and its dependencies from, as pip arguments.

Private to the collection: not a public API.
"""

from __future__ import annotations


def pip_args(wheelhouse, index_url="", extra_index_urls=(), torch_index_url="", extra_args=()):
    """pip's source arguments for the install role's settings.

    A wheelhouse (the directory on the host) installs with ``--no-index``; otherwise the main
    index, the further indexes and the PyTorch lane are searched in that order. ``extra_args``
    come last, as given.
    """
    args = []
    if wheelhouse:
        args += ["--no-index", "--find-links", wheelhouse]
    if index_url:
        args += ["--index-url", index_url]
    args += ["--extra-index-url=%s" % url for url in extra_index_urls or ()]
    if torch_index_url:
        args += ["--extra-index-url", torch_index_url]
    return args + [str(arg) for arg in extra_args or ()]
