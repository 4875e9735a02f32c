"""SGLang's command line as the launch role renders it into ExecStart=."""

import shlex

from ansible_collections.gpufleet.sglang.plugins.module_utils._launch_args import (
    exec_start,
    flags,
    local_url,
    systemd_quote,
)


def test_flags_from_a_mapping():
    assert flags({"tp-size": 8, "trust_remote_code": True, "enable-metrics": False, "api-key": None,
                  "revision": "", "ids": [2, 30, 58], "--host": "0.0.0.0"}) == [
        "--tp-size", "8", "--trust-remote-code", "--ids", "2", "30", "58", "--host", "0.0.0.0"]


def test_systemd_quoting():
    assert systemd_quote("/srv/models/kimi-k25") == "/srv/models/kimi-k25"
    assert systemd_quote("a b") == '"a b"'
    assert systemd_quote("50%") == '"50%%"'
    assert systemd_quote('say "hi"') == '"say \\"hi\\""'
    assert systemd_quote("$HOME") == '"$$HOME"'
    assert systemd_quote("${SGLANG_API_KEY}") == "${SGLANG_API_KEY}"
    assert systemd_quote("") == '""'


def test_exec_start_puts_one_flag_per_line_and_parses_back():
    argv = ["/opt/sglang/venv/bin/python", "-m", "sglang.launch_server", "--model-path", "/srv/my models/kimi",
            "--trust-remote-code", "--tp-size", "8"]
    rendered = exec_start(argv)
    assert rendered.splitlines()[0] == "/opt/sglang/venv/bin/python -m sglang.launch_server \\"
    assert rendered.splitlines()[1].strip() == '--model-path "/srv/my models/kimi" \\'
    # For arguments without % or $, systemd's splitting agrees with a POSIX shell's.
    assert shlex.split(rendered.replace("\\\n", " ")) == argv


def test_local_url_reaches_a_wildcard_bind_on_loopback():
    assert local_url("0.0.0.0", 30000) == "http://127.0.0.1:30000"
    assert local_url("::", 30000) == "http://127.0.0.1:30000"
    assert local_url("10.40.0.11", 30001) == "http://10.40.0.11:30001"
    assert local_url("fd00::11", 30000) == "http://[fd00::11]:30000"
