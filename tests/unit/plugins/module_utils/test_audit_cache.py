"""The audit cache: served only while nothing the audit read changed, and only from a trusted place."""

import os

import pytest

from gpufleet_testlib.bounded import MIB, bounded
from ansible_collections.gpufleet.sglang.plugins.module_utils import _audit_cache as audit_cache


@pytest.fixture
def tree(sglang_copy):
    return sglang_copy("0.5.23")


def run(tree, cache_dir, **extra):
    query = dict(model_file="srt/models/kimi_k25.py", class_name=None, inner_attr="language_model")
    query.update(extra)
    return audit_cache.cached_audit(tree, query["model_file"], query["class_name"], query["inner_attr"],
                                    str(cache_dir))


def test_a_repeated_audit_is_served_from_the_cache_with_the_same_result(tree, tmp_path):
    first, cached = run(tree, tmp_path / "cache")
    assert cached is False
    again, cached = run(tree, tmp_path / "cache")
    assert cached is True and again == first
    assert oct(os.stat(str(tmp_path / "cache")).st_mode & 0o777) == "0o700"


@pytest.mark.parametrize("change", ["touch a scanned file", "add a file to a scanned tree", "change the model file",
                                    "install another package"])
def test_anything_the_audit_read_changing_makes_it_audit_again(tree, tmp_path, change):
    run(tree, tmp_path / "cache")
    if change == "touch a scanned file":
        path = os.path.join(tree, "srt/speculative/eagle_info.py")
        os.utime(path, ns=(0, os.stat(path).st_mtime_ns + 1000))
    elif change == "add a file to a scanned tree":
        open(os.path.join(tree, "srt/speculative/new_helper.py"), "w").close()
    elif change == "change the model file":
        with open(os.path.join(tree, "srt/models/kimi_k25.py"), "a") as handle:
            handle.write("\n")
    else:
        os.mkdir(os.path.join(os.path.dirname(tree), "other-1.0.dist-info"))
    assert run(tree, tmp_path / "cache")[1] is False


def test_another_query_or_another_audit_code_is_another_entry(tree, tmp_path, monkeypatch):
    run(tree, tmp_path / "cache")
    assert run(tree, tmp_path / "cache", model_file="srt/models/kimi_vl.py")[1] is False
    monkeypatch.setattr(audit_cache, "code_version", lambda: "a newer collection")
    assert run(tree, tmp_path / "cache")[1] is False


def test_an_entry_others_can_write_is_not_trusted(tree, tmp_path):
    run(tree, tmp_path / "cache")
    [entry] = [name for name in os.listdir(str(tmp_path / "cache")) if name.endswith(".json")]
    os.chmod(str(tmp_path / "cache" / entry), 0o666)
    assert run(tree, tmp_path / "cache")[1] is False


def test_the_code_version_hashes_the_audit_source():
    assert len(audit_cache.code_version()) == 64 and audit_cache.code_version() == audit_cache.code_version()


def test_no_cache_dir_audits_every_time_and_writes_nothing(tree, tmp_path):
    assert audit_cache.cached_audit(tree, "srt/models/kimi_k25.py", None, "language_model", "")[1] is False
    assert not os.path.exists(str(tmp_path / "cache"))


@pytest.mark.parametrize("entry", [b"[1]", b'{"read": [], "result": {}}', b'{"read": {"x": 1}}', b"{", b"fifo"])
def test_an_entry_that_is_not_one_this_module_wrote_is_audited_again(tree, tmp_path, entry):
    """A damaged or planted entry (its directory is root's): audited again and written anew, never an exception."""
    first, _cached = run(tree, tmp_path / "cache")
    [name] = [name for name in os.listdir(str(tmp_path / "cache")) if name.endswith(".json")]
    path = str(tmp_path / "cache" / name)
    os.unlink(path)
    if entry == b"fifo":
        os.mkfifo(path, 0o600)
    else:
        with open(path, "wb") as handle:
            handle.write(entry)
    result, cached = bounded(lambda: run(tree, tmp_path / "cache"), seconds=60, memory=512 * MIB)
    assert cached is False and result == first
