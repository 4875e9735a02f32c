from ansible_collections.gpufleet.sglang.plugins.module_utils import _fleet_status

ROW = {"host": "gpu-1", "gpus": 8, "driver": "580.105.08", "sglang_version": "0.5.9",
       "venv": "/opt/sglang/venvs/sglang-0.5.9", "patch": "complete", "draft_unit": "/d/v2",
       "draft_inventory": "/d/v1", "draft_served": "/d/v2", "accept_length": 3.14159, "healthy": True,
       "worker_url": "http://10.0.0.1:30000", "restart_pending": ["sglang-kimi-k25.service"]}


def test_router_states_tell_in_out_unhealthy_and_unreachable():
    registered = {"r1": [{"url": "http://10.0.0.1:30000", "is_healthy": True}],
                  "r2": [{"url": "http://10.0.0.1:30000", "is_healthy": False}],
                  "r3": [{"url": "http://10.0.0.2:30000", "is_healthy": True}], "r4": None}
    assert _fleet_status.router_states("http://10.0.0.1:30000", registered) == {
        "r1": "in", "r2": "in (unhealthy)", "r3": "out", "r4": "unreachable"}


def test_the_table_shows_drift_and_pending_restarts_and_aligns():
    rows = _fleet_status.with_routers([ROW, dict(ROW, host="gpu-22", draft_unit="/d/v1", draft_served="/d/v1",
                                                 healthy=False, restart_pending=[], accept_length=None)],
                                      {"r1": [{"url": "http://10.0.0.1:30000", "is_healthy": True}]})
    lines = _fleet_status.table(rows)
    assert lines[0].startswith("HOST    GPUS/DRIVER")
    assert "/d/v2 | /d/v1 | /d/v2" in lines[1] and "3.14" in lines[1] and "r1 in" in lines[1]
    assert lines[1].endswith("sglang-kimi-k25.service")
    assert " /d/v1 " in lines[2] and "DOWN" in lines[2] and lines[2].endswith("no") and "r1 in" in lines[2]
    assert lines[1].index("complete") == lines[2].index("complete") == lines[0].index("PATCH")


def test_the_table_shows_each_models_commit_and_whether_its_files_are_verified():
    weights = [{"name": "target", "commit": "3367c8d1c68584429fab7faf845a32d5195b6ac1", "lacks": {}},
               {"name": "draft", "commit": "", "lacks": {"model.safetensors": "has sha256 0, the listing says 1"}}]
    lines = _fleet_status.table([dict(ROW, weights=weights), dict(ROW, host="gpu-22")])
    assert "target 3367c8d1 verified, draft - 1 FILE(S) BAD" in lines[1]
    assert lines[2][lines[0].index("WEIGHTS"):].startswith("- ")
