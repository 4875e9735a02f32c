"""roles/router/files/gpufleet-sglang-router starts the real sglang-router 0.3.2 with its keys read
from files: the router then authenticates its worker API and its clients, reads the workers'
/model_info with their key, and no key is on its command line."""

import json
import os
import subprocess
import time

import pytest

from gpufleet_testlib import ROOT, router
from gpufleet_testlib.standin import eagle_args, free_port, http, kimi_models, launch, wait_for

ENTRY_POINT = os.path.join(ROOT, "roles", "router", "files", "gpufleet-sglang-router")
WORKER_KEY = "entry-worker-key"
ADMIN_KEY = "entry-admin-key"


@pytest.fixture
def started(pristine_trees, tmp_path):
    target, draft = kimi_models(str(tmp_path / "models"))
    worker_port, port = free_port(), free_port()
    worker = launch(pristine_trees["0.5.10"], eagle_args(target, draft, worker_port, "--api-key", WORKER_KEY,
                                                         "--served-model-name", "kimi-k2.5"),
                    env={"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "1"})
    keys = tmp_path / "keys"
    keys.mkdir()
    (keys / "api_key").write_text(WORKER_KEY + "\n")
    (keys / "admin_key").write_text(ADMIN_KEY)
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"keys_dir": str(keys), "args": [
        "--host", "127.0.0.1", "--port", str(port), "--prometheus-host", "127.0.0.1",
        "--prometheus-port", str(free_port()), "--disable-retries"]}))
    workers = tmp_path / "workers.json"
    workers.write_text(json.dumps({"worker_urls": ["http://127.0.0.1:%d" % worker_port]}))
    proc = subprocess.Popen([router.venv_python(), ENTRY_POINT, str(settings), str(workers)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for("http://127.0.0.1:%d/health" % port, proc, seconds=60)
        yield proc, "http://127.0.0.1:%d" % port
    finally:
        for process in (proc, worker):
            process.kill()
            process.communicate()


def test_the_router_runs_with_both_keys_and_none_on_its_command_line(started):
    proc, url = started
    assert http(url + "/workers")[0] == 401
    assert http(url + "/workers", WORKER_KEY)[0] == 401  # the worker API wants the admin key
    deadline, workers = time.time() + 30, []
    while time.time() < deadline and not (workers and workers[0].get("model_id") == "kimi-k2.5"):
        time.sleep(0.2)  # the router registers its start-up workers, and reads their /model_info, in the background
        code, body = http(url + "/workers", ADMIN_KEY)
        assert code == 200
        workers = json.loads(body)["workers"]
    assert len(workers) == 1 and workers[0]["model_id"] == "kimi-k2.5"  # it read /model_info with the key
    assert http(url + "/generate", WORKER_KEY, {"text": "hi", "sampling_params": {"max_new_tokens": 2}})[0] == 200
    with open("/proc/%d/cmdline" % proc.pid, "rb") as handle:
        cmdline = handle.read().decode(errors="replace")
    assert WORKER_KEY not in cmdline and ADMIN_KEY not in cmdline
