"""scripts/check-release.py, run by make test (scripts/check-docs.sh): passes on the checkout, and fails naming
the item when a version_added is newer than galaxy.yml's or disagrees with the changelog, or when an item is in
no released changelog section."""

import glob
import os
import shutil
import subprocess
import sys

import pytest
import yaml

from gpufleet_testlib import ROOT


@pytest.fixture
def copy(tmp_path):
    patterns = ["galaxy.yml", "changelogs/changelog.yaml", "scripts/check-release.py", "plugins/modules/*.py",
                "plugins/filter/*.py", "roles/*/meta/argument_specs.yml"]
    for pattern in patterns:
        for path in glob.glob(os.path.join(ROOT, pattern)):
            dest = tmp_path / os.path.relpath(path, ROOT)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, dest)
    return tmp_path


def check(root):
    return subprocess.run([sys.executable, str(root / "scripts" / "check-release.py")], capture_output=True,
                          text=True, check=False)


def test_the_checkout_passes(copy):
    result = check(copy)
    assert result.returncode == 0, result.stdout


def test_a_version_added_newer_than_the_release_fails(copy):
    module = copy / "plugins" / "modules" / "model_weights.py"
    module.write_text(module.read_text().replace("version_added: 0.2.0", "version_added: 0.3.0", 1))
    result = check(copy)
    assert result.returncode == 1
    assert "module model_weights (plugins/modules/model_weights.py) says version_added 0.3.0, but galaxy.yml is" \
        in result.stdout


def test_an_item_the_changelog_does_not_announce_or_announces_elsewhere_fails(copy):
    changelog = copy / "changelogs" / "changelog.yaml"
    changelog.write_text(changelog.read_text().replace("name: model_weights", "name: model_weights_renamed"))
    module = copy / "plugins" / "modules" / "host_state.py"
    module.write_text(module.read_text().replace("version_added: 0.2.0", "version_added: 0.1.0", 1))
    result = check(copy)
    assert result.returncode == 1
    assert "module model_weights (plugins/modules/model_weights.py, version_added 0.2.0) is in no released " \
        "changelog section" in result.stdout
    assert "module host_state (plugins/modules/host_state.py) says version_added 0.1.0, but the changelog " \
        "announces it in 0.2.0" in result.stdout


def test_an_item_new_in_the_version_being_prepared_passes_until_that_version_is_released(copy):
    # The version being prepared: galaxy.yml's while the changelog has not released it (its own new plugins then
    # stay unreleased too), else the next patch release after it.
    galaxy = (copy / "galaxy.yml").read_text()
    current = yaml.safe_load(galaxy)["version"]
    major, minor, patch = (int(part) for part in current.split("."))
    released = yaml.safe_load((copy / "changelogs" / "changelog.yaml").read_text())["releases"]
    version = "%d.%d.%d" % (major, minor, patch + 1) if current in released else current
    (copy / "galaxy.yml").write_text(galaxy.replace("version: %s" % current, "version: %s" % version, 1))
    source = (copy / "plugins" / "filter" / "fleet_plan.py").read_text()
    (copy / "plugins" / "filter" / "brand_new.py").write_text(
        source.replace("version_added: 0.2.0", "version_added: %s" % version, 1))
    assert check(copy).returncode == 0, check(copy).stdout
    changelog = copy / "changelogs" / "changelog.yaml"
    changelog.write_text(changelog.read_text().replace("releases:\n", "releases:\n  %s:\n    changes: {}\n" % version, 1))
    result = check(copy)
    assert result.returncode == 1
    assert "filter brand_new (plugins/filter/brand_new.py, version_added %s) is in no released changelog section" \
        % version in result.stdout
