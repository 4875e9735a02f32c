"""Shared fixtures: real SGLang source trees from the release wheels."""

import os
import shutil

import pytest

from gpufleet_testlib import sglang_wheels

RELEASES = sglang_wheels.RELEASES


@pytest.fixture(scope="session")
def pristine_trees(tmp_path_factory):
    """Each release's sources, extracted once per session. Read only: copy before changing."""
    trees = {}
    for version in RELEASES:
        trees[version] = sglang_wheels.extract(version, str(tmp_path_factory.mktemp("sglang-" + version)))
    return trees


@pytest.fixture
def sglang_copy(pristine_trees, tmp_path):
    """A writable copy of one release's site-packages: sglang_copy('0.5.9') -> .../sglang."""
    def make(version):
        site = tmp_path / ("site-" + version)
        shutil.copytree(os.path.dirname(pristine_trees[version]), str(site))
        return str(site / "sglang")
    return make
