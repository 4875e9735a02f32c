"""pip's source arguments for the install role."""

import pytest

from ansible_collections.gpufleet.sglang.plugins.module_utils._sglang_install import pip_args

TORCH = "https://download.pytorch.org/whl/cu130"


@pytest.mark.parametrize("settings, expected", [
    ({}, []),
    ({"wheelhouse": "/var/cache/sglang/wheelhouse"}, ["--no-index", "--find-links", "/var/cache/sglang/wheelhouse"]),
    ({"index_url": "https://mirror/simple", "extra_index_urls": ["https://a/simple", "https://b/simple"],
      "torch_index_url": TORCH, "extra_args": ["--no-deps"]},
     ["--index-url", "https://mirror/simple", "--extra-index-url=https://a/simple",
      "--extra-index-url=https://b/simple", "--extra-index-url", TORCH, "--no-deps"]),
    ({"torch_index_url": TORCH}, ["--extra-index-url", TORCH]),
    ({"wheelhouse": "/w", "extra_args": ["--no-deps", 3]}, ["--no-index", "--find-links", "/w", "--no-deps", "3"]),
])
def test_pip_args(settings, expected):
    assert pip_args(settings.pop("wheelhouse", ""), **settings) == expected
