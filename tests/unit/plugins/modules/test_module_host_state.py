"""gpufleet.sglang.host_state as Ansible runs it: the files that differ are listed, and a file's SHA-256 (given for a
text that holds a secret) appears in no output."""

import hashlib

from gpufleet_testlib.modules import run_module
from ansible_collections.gpufleet.sglang.plugins.modules import host_state


def test_the_differing_files_are_listed_and_a_files_hash_is_never_shown(tmp_path):
    secret, plain = tmp_path / "kimi-k25.env", tmp_path / "sglang-kimi-k25.service"
    secret.write_text("SGLANG_API_KEY=s3cret\n")
    plain.write_text("[Unit]\n")
    digest = hashlib.sha256(b"SGLANG_API_KEY=s3cret\n").hexdigest()
    files = [{"path": str(secret), "sha256": digest}, {"path": str(plain), "content": "[Unit]\nDescription=x\n"},
             {"path": str(tmp_path / "kimi-k25.yaml"), "content": ""}]
    result = run_module(host_state, {"files": files}, check_mode=True)
    assert result["differing"] == [str(plain), str(tmp_path / "kimi-k25.yaml")]
    assert result["owes"] == ["%s differs from its template" % plain, "%s is missing" % (tmp_path / "kimi-k25.yaml")]
    assert digest not in str(result) and "s3cret" not in str(result)
    secret.write_text("SGLANG_API_KEY=other\n")
    result = run_module(host_state, {"files": files[:1]})
    assert result["differing"] == [str(secret)] and digest not in str(result)


def test_a_file_without_a_path_is_refused_naming_the_option(tmp_path):
    result = run_module(host_state, {"files": [{"content": "x"}]})
    assert result["failed"] and "path" in result["msg"] and "files" in result["msg"]
