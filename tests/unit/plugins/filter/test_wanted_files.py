"""gpufleet.sglang.wanted_files: a role's list of the files it writes, as host_state reads it."""

import hashlib

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.sglang.plugins.filter.wanted_files import wanted_files
from ansible_collections.gpufleet.sglang.plugins.modules import host_state
from gpufleet_testlib.modules import run_module


def test_write_only_keys_are_dropped_and_a_secret_travels_as_its_digest_only():
    files = [{"path": "/etc/x/settings.json", "content": "{}", "mode": "0644", "validate": "true %s"},
             {"path": "/etc/x/api_key", "content": "s3cret", "secret": True, "owner": "root", "mode": "0640"}]
    assert wanted_files(files) == [
        {"path": "/etc/x/settings.json", "content": "{}", "mode": "0644"},
        {"path": "/etc/x/api_key", "sha256": hashlib.sha256(b"s3cret").hexdigest(), "owner": "root", "mode": "0640"}]


def test_what_it_gives_is_what_host_state_reads_and_a_written_file_owes_nothing(tmp_path):
    (tmp_path / "key").write_text("s3cret")
    (tmp_path / "key").chmod(0o640)
    files = [{"path": str(tmp_path / "key"), "content": "s3cret", "secret": True, "mode": "0640",
              "validate": "true %s"}]
    result = run_module(host_state, {"files": wanted_files(files)})
    assert not result.get("failed") and result["owes"] == [], result


def test_an_entry_without_a_path_is_named():
    with pytest.raises(AnsibleFilterError, match="entry 1 is not a file with a path"):
        wanted_files([{"path": "/a"}, {"content": "x"}])
