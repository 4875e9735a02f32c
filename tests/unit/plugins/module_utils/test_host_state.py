"""What a host lacks of a wanted state: dpkg-query and systemctl show output as they print it, real files."""

import os

from ansible_collections.gpufleet.sglang.plugins.module_utils._host_state import (
    absent_owes, directory_owes, file_owes, group_owes, package_owes, parse_dpkg_query, python_package_owes,
    python_package_version, service_owes, unit_states, user_owes)

# dpkg-query -W -f='${Package}\t${db:Status-Abbrev}\t${Version}\n' dkms nvidia-open cuda-toolkit-13-0 gone
DPKG = ("dkms\tii \t3.0.10-8+deb12u1\n"
        "nvidia-open\tii \t580.105.08-1\n"
        "cuda-toolkit-13-0\trc \t13.0.2-1\n")

# systemctl show -p Id -p UnitFileState -p ActiveState nvidia-persistenced nvidia-dcgm gone.service
SHOW = ("Id=nvidia-persistenced.service\nActiveState=active\nUnitFileState=enabled\n\n"
        "Id=nvidia-dcgm.service\nActiveState=inactive\nUnitFileState=disabled\n\n"
        "Id=gone.service\nActiveState=inactive\nUnitFileState=\n")


def test_only_installed_packages_count():
    assert parse_dpkg_query(DPKG) == {"dkms": "3.0.10-8+deb12u1", "nvidia-open": "580.105.08-1"}


def test_missing_and_removed_packages_and_a_version_off_the_branch_are_owed():
    installed = parse_dpkg_query(DPKG)
    assert package_owes(["dkms", "cuda-toolkit-13-0", "gone"], installed, {}) == [
        "package cuda-toolkit-13-0 is not installed", "package gone is not installed"]
    assert package_owes(["nvidia-open"], installed, {"nvidia-open": r"^([0-9]+:)?580[.]"}) == []
    assert package_owes(["nvidia-open"], installed, {"nvidia-open": r"^([0-9]+:)?590[.]"}) == [
        "package nvidia-open is at 580.105.08-1, not ^([0-9]+:)?590[.]"]


def test_a_file_matches_its_content_lines_mode_and_owner(tmp_path):
    path = tmp_path / "cuda.sh"
    path.write_text("# managed\nexport CUDA_HOME=/usr/local/cuda-13.0\n")
    os.chmod(str(path), 0o644)
    wanted = {"path": str(path), "content": "# managed\nexport CUDA_HOME=/usr/local/cuda-13.0\n", "mode": "0644"}
    assert file_owes(wanted) == []
    assert file_owes(dict(wanted, content="other\n")) == ["%s differs from its template" % path]
    assert file_owes({"path": str(path), "lines": ["export CUDA_HOME=/usr/local/cuda-13.0", "Types: deb"]}) == [
        "%s lacks Types: deb" % path]
    os.chmod(str(path), 0o600)
    assert file_owes(dict(wanted)) == ["%s has mode 0600, not 0644" % path]
    [owner] = file_owes({"path": str(path), "owner": "no-such-owner"})
    assert owner.startswith("%s belongs to " % path) and ", not no-such-owner:" in owner


def test_a_missing_file_and_a_path_that_must_be_gone(tmp_path):
    assert file_owes({"path": str(tmp_path / "none")}) == ["%s is missing" % (tmp_path / "none")]
    legacy = tmp_path / "cuda.list"
    legacy.write_text("deb x /\n")
    assert absent_owes([str(legacy), str(tmp_path / "none")]) == ["%s should not exist" % legacy]


def test_units_must_be_enabled_and_running():
    assert service_owes(["nvidia-persistenced", "nvidia-dcgm", "gone"], SHOW) == [
        "nvidia-dcgm is not enabled", "nvidia-dcgm is not running", "gone is not enabled", "gone is not running"]
    assert service_owes(["nvidia-persistenced"], SHOW.split("\n\n", maxsplit=1)[0]) == []


def test_accounts_groups_and_directories_as_wanted(tmp_path):
    import grp
    import pwd
    me = pwd.getpwuid(os.getuid())
    my_group = grp.getgrgid(me.pw_gid).gr_name
    assert group_owes([my_group, "no-such-group-x"]) == ["group no-such-group-x does not exist"]
    assert user_owes({"name": me.pw_name, "group": my_group, "home": me.pw_dir, "shell": me.pw_shell}) == []
    assert user_owes({"name": me.pw_name, "shell": "/usr/sbin/nologin"}) == [
        "user %s has shell %s, not /usr/sbin/nologin" % (me.pw_name, me.pw_shell)]
    assert user_owes({"name": "no-such-user-x"}) == ["user no-such-user-x does not exist"]
    cache = tmp_path / "models"
    assert directory_owes({"path": str(cache)}) == ["%s is missing" % cache]
    cache.mkdir(mode=0o750)
    os.chmod(str(cache), 0o750)
    assert directory_owes({"path": str(cache), "mode": "0750", "owner": me.pw_name}) == []
    assert directory_owes({"path": str(cache), "mode": "0755"}) == ["%s has mode 0750, not 0755" % cache]
    (tmp_path / "file").write_text("x")
    assert directory_owes({"path": str(tmp_path / "file")}) == ["%s is not a directory" % (tmp_path / "file")]


def test_a_release_in_a_venv_is_read_from_its_dist_info(tmp_path):
    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    (site / "sglang-0.5.9.dist-info").mkdir(parents=True)
    (site / "sglang_router-0.3.2.dist-info").mkdir()
    venv = str(tmp_path / "venv")
    assert python_package_version(venv, "sglang") == "0.5.9"
    assert python_package_version(venv, "sglang-router") == "0.3.2"
    assert python_package_owes({"venv": venv, "name": "sglang", "version": "0.5.9"}) == []
    assert python_package_owes({"venv": venv, "name": "sglang", "version": "0.5.23"}) == [
        "sglang 0.5.23 is not in %s (found 0.5.9)" % venv]
    assert python_package_owes({"venv": str(tmp_path / "none"), "name": "sglang", "version": "0.5.9"}) == [
        "sglang 0.5.9 is not in %s (not installed)" % (tmp_path / "none")]


def test_report_only_units_as_systemctl_show_prints_them():
    show = "Id=sglang-kimi-k25.service\nActiveState=active\n\nId=sglang-other.service\nActiveState=inactive\n"
    assert unit_states(["sglang-kimi-k25.service", "sglang-other.service"], show) == {
        "sglang-kimi-k25.service": "active", "sglang-other.service": "inactive"}
    assert unit_states(["x.service"], "") == {"x.service": "inactive"}


def test_a_file_matches_the_sha256_of_its_bytes(tmp_path):
    """For a file that holds a secret: its hash travels instead of its text."""
    import hashlib
    path = tmp_path / "kimi-k25.env"
    path.write_bytes(b"SGLANG_API_KEY=s3cret\n")
    digest = hashlib.sha256(b"SGLANG_API_KEY=s3cret\n").hexdigest()
    assert file_owes({"path": str(path), "sha256": digest}) == []
    assert file_owes({"path": str(path), "sha256": digest.upper()}) == []
    assert file_owes({"path": str(path), "sha256": hashlib.sha256(b"other\n").hexdigest()}) == [
        "%s differs from its template" % path]
    assert file_owes({"path": str(tmp_path / "none"), "sha256": digest}) == ["%s is missing" % (tmp_path / "none")]


def test_a_fifo_and_a_device_cannot_hold_the_read(tmp_path):
    """Hostile paths where a file is wanted: a FIFO with no writer (an open would block) and a link to /dev/zero
    (a read without end). Each is owed at once, as not a regular file."""
    fifo, zero = tmp_path / "kimi-k25.env", tmp_path / "kimi-k25.yaml"
    os.mkfifo(str(fifo))
    os.symlink("/dev/zero", str(zero))
    assert file_owes({"path": str(fifo), "content": "x"}) == ["%s is not a regular file" % fifo]
    assert file_owes({"path": str(zero), "sha256": "0" * 64}) == ["%s is a symbolic link, not a regular file" % zero]
