"""The harness: systemd is PID 1 and healthy, python3 is there, the converge ran."""

testinfra_hosts = ["gpufleet-default-1", "gpufleet-default-2"]


def test_systemd_is_running(host):
    state = host.run("systemctl is-system-running").stdout.strip()
    assert state in ("running", "degraded")
    assert host.process.get(pid=1).comm == "systemd"


def test_python3_present(host):
    assert host.exists("python3")
    assert host.run("python3 -c 'import sys; print(sys.version_info[0])'").stdout.strip() == "3"


def test_converge_marker(host):
    marker = host.file("/etc/gpufleet-molecule")
    assert marker.is_file and marker.mode == 0o644
    assert marker.content_string == "converged by molecule default\n"
