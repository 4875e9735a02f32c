"""The delegation_patch module: check mode, diff, atomic write, owner and mode, backups, bad input."""

import hashlib
import os
import stat

import pytest

from gpufleet_testlib.modules import run_module
from ansible_collections.gpufleet.sglang.plugins.modules import delegation_patch

EAGLE3 = ["get_embed_and_head", "set_eagle3_layers_to_capture", "set_embed_and_head"]
KIMI = "KimiK25ForConditionalGeneration"


def sha256(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


@pytest.fixture
def kimi_059(sglang_copy):
    root = sglang_copy("0.5.9")
    return root, os.path.join(root, "srt/models/kimi_k25.py")


def patch(path, check_mode=False, diff=False, **extra):
    args = dict(path=path, class_name=KIMI, methods="auto")
    args.update(extra)
    return run_module(delegation_patch, args, check_mode=check_mode, diff=diff)


def test_check_mode_reports_the_change_and_writes_nothing(kimi_059):
    root, path = kimi_059
    before = sha256(path)
    result = patch(path, check_mode=True, diff=True)

    assert result["changed"] is True
    assert result["delegated"] == EAGLE3
    assert "+    def get_embed_and_head(self, *args, **kwargs):" in "\n".join(
        "+" + line for line in result["diff"]["after"].splitlines())
    assert result["diff"]["before_header"] == path
    assert sha256(path) == before
    assert not [f for f in os.listdir(os.path.dirname(path)) if f.startswith(".kimi_k25")]


def test_apply_is_idempotent_and_absent_restores_the_sha256(kimi_059):
    root, path = kimi_059
    original = sha256(path)

    first = patch(path)
    assert first["changed"] is True and first["delegated"] == EAGLE3
    patched = sha256(path)
    second = patch(path)
    assert second["changed"] is False and second["delegated"] == EAGLE3
    assert sha256(path) == patched

    removed = patch(path, state="absent")
    assert removed["changed"] is True and removed["previous"] == EAGLE3
    assert sha256(path) == original
    assert patch(path, state="absent")["changed"] is False


def test_a_symlinked_model_file_is_patched_through_the_link_which_is_kept(kimi_059, tmp_path):
    """The documented behaviour: the link stays a link to the same file; that file is patched, and
    state=absent gives back its original bytes."""
    root, path = kimi_059
    real = tmp_path / "kept-elsewhere" / "kimi_k25.py"
    real.parent.mkdir()
    os.rename(path, str(real))
    os.symlink(str(real), path)
    original = sha256(str(real))

    result = patch(path)
    assert result["changed"] is True and result["target"] == str(real)
    assert os.path.islink(path) and os.readlink(path) == str(real)
    assert sha256(str(real)) != original and patch(path)["changed"] is False

    assert patch(path, state="absent")["changed"] is True
    assert os.path.islink(path) and sha256(str(real)) == original


def test_write_keeps_owner_group_and_mode(kimi_059):
    root, path = kimi_059
    if os.geteuid() != 0:
        pytest.skip("changing a file's owner needs root; CI runs as root")
    os.chown(path, 65534, 65534)
    os.chmod(path, 0o640)
    inode = os.stat(path).st_ino

    assert patch(path)["changed"] is True
    info = os.stat(path)
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (65534, 65534, 0o640)
    assert info.st_ino != inode  # replaced by rename, not rewritten in place


def test_backup_keeps_the_original_with_its_owner_and_mode(kimi_059):
    root, path = kimi_059
    os.chmod(path, 0o640)
    original = sha256(path)

    result = patch(path, backup=True)
    backup = result["backup_file"]
    assert sha256(backup) == original
    assert stat.S_IMODE(os.stat(backup).st_mode) == 0o640
    assert os.stat(backup).st_uid == os.stat(path).st_uid


def test_explicit_methods_list(kimi_059):
    root, path = kimi_059
    result = patch(path, methods=["get_embed_and_head"])
    assert result["delegated"] == ["get_embed_and_head"]


@pytest.mark.parametrize("args, message", [
    (dict(class_name="NoSuchClass"), "class NoSuchClass is not defined"),
    (dict(inner_attr="text_model"), "never assigns self.text_model in __init__"),
    (dict(methods=["get_embed_and_head", "no_such_method"]), "does not have no_such_method"),
    (dict(methods=["not a name"]), "methods must be 'auto' or a non-empty list"),
])
def test_bad_input_fails_clearly_and_leaves_the_file(kimi_059, args, message):
    root, path = kimi_059
    before = sha256(path)
    result = patch(path, **args)
    assert result["failed"] is True
    assert message in result["msg"]
    assert sha256(path) == before


def test_missing_file(tmp_path):
    result = patch(str(tmp_path / "absent.py"))
    assert result["failed"] is True
    assert "does not exist or is not a file" in result["msg"]


def test_not_python(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("class KimiK25ForConditionalGeneration is just prose\n")
    result = patch(str(path), methods=["x"])
    assert result["failed"] is True and "is not valid Python" in result["msg"]
    assert path.read_text() == "class KimiK25ForConditionalGeneration is just prose\n"


def test_methods_required_when_present(kimi_059):
    root, path = kimi_059
    result = run_module(delegation_patch, dict(path=path, class_name=KIMI))
    assert result["failed"] is True and "methods" in result["msg"]


@pytest.mark.parametrize("version", ["0.5.10", "0.5.23"])
def test_fixed_releases_are_left_alone(sglang_copy, version):
    path = os.path.join(sglang_copy(version), "srt/models/kimi_k25.py")
    before = sha256(path)
    result = patch(path)
    assert result["changed"] is False and set(EAGLE3) <= set(result["already_present"])
    assert sha256(path) == before


def test_path_and_sglang_root_together_as_the_documentation_allows(kimi_059):
    """A playbook written for 0.1.0 passes both; sglang_root is then the package the audit reads."""
    root, path = kimi_059
    result = patch(path, sglang_root=root)
    assert not result.get("failed"), result
    assert result["changed"] is True and result["delegated"] == EAGLE3
    assert result["audit"]["sglang_version"] == "0.5.9"


def test_fail_on_gaps_names_what_stays_missing_with_its_call_sites(sglang_copy, tmp_path):
    """A wrapper whose inner model lacks a method EAGLE-3 calls: what could be delegated is, the rest fails."""
    root = sglang_copy("0.5.9")
    path = os.path.join(root, "srt/models/kimi_k25.py")
    deepseek = os.path.join(root, "srt/models/deepseek_v2.py")
    with open(deepseek) as handle:
        text = handle.read()
    assert "def get_embed_and_head(self)" in text
    with open(deepseek, "w") as handle:
        handle.write(text.replace("def get_embed_and_head(self)", "def _no_embed_and_head(self)"))
    result = patch(path, fail_on_gaps=True, cache_dir=str(tmp_path / "cache"))
    assert result["failed"]
    assert "KimiK25ForConditionalGeneration in srt/models/kimi_k25.py (SGLang 0.5.9) still lacks get_embed_and_head, " \
           "which SGLang's EAGLE-3 path calls on the target model (" in result["msg"]
    assert "does not have it to delegate to" in result["msg"]
    assert result["undelegatable"] == ["get_embed_and_head"]
    assert result["delegated"] == ["set_eagle3_layers_to_capture", "set_embed_and_head"]
