"""The server_flags module on the real 0.5.9 and 0.5.23 sources."""

import pytest

from gpufleet_testlib.modules import run_module
from ansible_collections.gpufleet.sglang.plugins.modules import server_flags


@pytest.mark.parametrize("version", ["0.5.9", "0.5.23"])
def test_known_flags_pass(pristine_trees, version):
    result = run_module(server_flags, dict(sglang_root=pristine_trees[version],
                                           flags=["--model-path", "/m", "--enable-metrics", "--tp-size", "8"],
                                           config_keys=["api-key", "admin-api-key"]), check_mode=True)
    assert result["changed"] is False and result["unknown"] == [] and result["sglang_version"] == version


def test_an_unknown_flag_and_config_key_fail_with_the_release_named(pristine_trees):
    result = run_module(server_flags, dict(sglang_root=pristine_trees["0.5.23"],
                                           flags=["--model-path", "/m", "--enable-dp-attentions"],
                                           config_keys=["api-key", "no-such-key"]))
    assert result["failed"] is True and result["unknown"] == ["--enable-dp-attentions", "--no-such-key"]
    assert result["msg"].startswith("SGLang 0.5.23 does not know --enable-dp-attentions on the command line and "
                                    "no-such-key in the --config file: a server started with them would exit at once.")
