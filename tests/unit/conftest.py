"""Shared fixtures: the collection on sys.path, real SGLang source trees, a module runner."""

import io
import json
import os
import shutil
import sys
import contextlib

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, ".collections"))
sys.path.insert(0, os.path.join(ROOT, "tests"))

import sglang_wheels  # noqa: E402  (needs the path above)

RELEASES = ("0.5.9", "0.5.10", "0.5.23")


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


class ModuleExit(Exception):
    def __init__(self, result):
        super().__init__(result.get("msg", ""))
        self.result = result


def run_module(module, args, check_mode=False, diff=False):
    """Run an Ansible module's main() in-process; returns its result dict (failed ones too)."""
    from ansible.module_utils.testing import patch_module_args

    args = dict(args, _ansible_check_mode=check_mode, _ansible_diff=diff)
    out = io.StringIO()
    with patch_module_args(args), contextlib.redirect_stdout(out):
        try:
            module.main()
        except SystemExit:
            pass
    return json.loads(out.getvalue())
