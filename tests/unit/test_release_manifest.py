"""scripts/release-manifest.py: a released version's content is recorded once and a build of it with any other
content fails naming the files and what to do; an unreleased version is not checked."""

import importlib.util
import io
import os
import tarfile

import pytest
import yaml

from gpufleet_testlib import ROOT

spec = importlib.util.spec_from_file_location("release_manifest", os.path.join(ROOT, "scripts", "release-manifest.py"))
manifest = importlib.util.module_from_spec(spec)
spec.loader.exec_module(manifest)


def tarball(path, files):
    with tarfile.open(path, "w:gz") as archive:
        for name, body in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(body)
            archive.addfile(info, io.BytesIO(body))
    return str(path)


@pytest.fixture
def checkout(tmp_path):
    (tmp_path / "changelogs").mkdir()
    (tmp_path / "galaxy.yml").write_text("version: 1.0.0\n")
    (tmp_path / "changelogs" / "changelog.yaml").write_text(yaml.safe_dump({"releases": {"0.9.0": {}}}))
    return tmp_path


def release(root, version):
    (root / "changelogs" / "changelog.yaml").write_text(yaml.safe_dump({"releases": {"0.9.0": {}, version: {}}}))


def test_an_unreleased_version_is_not_checked_and_cannot_be_recorded(checkout, tmp_path):
    built = tarball(tmp_path / "a.tar.gz", {"plugins/a.py": b"a"})
    assert manifest.check(str(checkout), built) is None
    assert "not released" in manifest.record(str(checkout), built)


def test_a_release_is_recorded_once_and_a_different_build_of_it_fails(checkout, tmp_path):
    release(checkout, "1.0.0")
    cut = tarball(tmp_path / "cut.tar.gz", {"MANIFEST.json": b"{}", "plugins/a.py": b"a", "roles/r/x.yml": b"x"})
    assert "was not recorded" in manifest.check(str(checkout), cut)
    assert manifest.record(str(checkout), cut) is None
    assert "recorded already" in manifest.record(str(checkout), cut)
    assert manifest.check(str(checkout), cut) is None
    changed = tarball(tmp_path / "b.tar.gz", {"MANIFEST.json": b"{}", "plugins/a.py": b"A", "roles/r/x.yml": b"x",
                                              "roles/r/y.yml": b"y"})
    problem = manifest.check(str(checkout), changed)
    assert "plugins/a.py, roles/r/y.yml" in problem and "Set galaxy.yml's version to the next one" in problem


def test_the_checkout_builds_what_its_release_recorded_or_is_unreleased():
    version = manifest.version_of(ROOT)
    if manifest.released(ROOT, version):
        assert os.path.exists(manifest.manifest_path(ROOT, version)), version
