"""The SGLang stand-in behaves like SGLang's launch_server where the collection depends on it."""

import json
import subprocess
import sys
import threading
import time
import urllib.request

import pytest

from gpufleet_testlib.standin import eagle_args, free_port, http, kimi_models, launch


@pytest.fixture
def models(tmp_path):
    return kimi_models(str(tmp_path))


def get(port, path, key=None):
    return http("http://127.0.0.1:%d%s" % (port, path), key, timeout=5)


@pytest.mark.parametrize("version", ["0.5.10", "0.5.23"])
def test_unknown_flag_fails_like_argparse(pristine_trees, models, version):
    proc = launch(pristine_trees[version], ["--model-path", models[0], "--no-such-flag", "1"], wait=False)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 2
    assert "unrecognized arguments: --no-such-flag 1" in err


def test_shorter_draft_context_needs_the_env_var(pristine_trees, models):
    target, draft = models
    proc = launch(pristine_trees["0.5.10"], eagle_args(target, draft, free_port()), wait=False)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 1
    assert ("ValueError: Warning: Target model's context_length (262144) is greater than the derived "
            "context_length (131072)") in err
    assert err.rstrip().endswith("set the env var SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1")


def test_059_unpatched_dies_with_the_attribute_error(pristine_trees, models):
    target, draft = models
    proc = launch(pristine_trees["0.5.9"], eagle_args(target, draft, free_port()),
                  env={"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "1"}, wait=False)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 1
    assert ("AttributeError: 'KimiK25ForConditionalGeneration' object has no attribute "
            "'set_eagle3_layers_to_capture'") in err


@pytest.mark.parametrize("version", ["0.5.10", "0.5.23"])
def test_fixed_release_serves_the_api(pristine_trees, models, version):
    """0.5.10 declares its flags with add_argument, 0.5.23 mostly as fields of srt/arg_groups/fields/."""
    target, draft = models
    port = free_port()
    args = eagle_args(target, draft, port, "--served-model-name", "kimi-k2.5", "--api-key", "s3cret")
    proc = launch(pristine_trees[version], args,
                  env={"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "1"})
    try:
        assert get(port, "/health") == (200, b"")
        assert get(port, "/health_generate") == (200, b"")
        assert get(port, "/server_info")[0] == 401
        status, body = get(port, "/server_info", key="s3cret")
        info = json.loads(body)
        assert status == 200
        assert info["speculative_algorithm"] == "EAGLE3"
        assert info["speculative_draft_model_path"] == draft
        assert info["internal_states"][0]["avg_spec_accept_length"] == 2.7
        assert info["version"] == version
        assert "api_key" not in info
        models_list = json.loads(get(port, "/v1/models", key="s3cret")[1])
        assert models_list["data"][0]["id"] == "kimi-k2.5"
        assert json.loads(get(port, "/model_info", key="s3cret")[1])["model_path"] == target
    finally:
        proc.kill()
        proc.communicate()


def test_config_file_values_and_command_line_precedence(pristine_trees, models, tmp_path):
    """--config like SGLang: the file's options first, so a flag on the command line wins."""
    target, draft = models
    port = free_port()
    config = tmp_path / "kimi.yaml"
    config.write_text('api-key: "from-file"\nserved-model-name: "from-file"\nenable-metrics: true\n')
    proc = launch(pristine_trees["0.5.10"], eagle_args(target, draft, port, "--config", str(config),
                                                       "--served-model-name", "from-cli"),
                  env={"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "1"})
    try:
        assert get(port, "/v1/models")[0] == 401
        info = json.loads(get(port, "/server_info", key="from-file")[1])
        assert info["served_model_name"] == "from-cli"
        assert info["enable_metrics"] is True
        assert "from-file" not in json.dumps(info)
    finally:
        proc.kill()
        proc.communicate()


def test_config_file_must_be_yaml(pristine_trees, models, tmp_path):
    (tmp_path / "kimi.json").write_text("{}")
    proc = launch(pristine_trees["0.5.10"], ["--model-path", models[0], "--config", str(tmp_path / "kimi.json")],
                  wait=False)
    err = proc.communicate(timeout=20)[1]
    assert proc.returncode != 0 and "Config file must be YAML format, got: .json" in err


def post(port, path, body, key=None):
    request = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    if key:
        request.add_header("Authorization", "Bearer " + key)
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, json.loads(response.read())


def gauges(port):
    """{name: value} of the sglang:* samples on /metrics."""
    text = get(port, "/metrics")[1].decode()
    return dict((line.split("{")[0], float(line.rsplit(" ", 1)[1])) for line in text.splitlines()
                if line.startswith("sglang:"))


def test_metrics_count_the_generate_requests_in_flight(pristine_trees, models):
    target, draft = models
    port = free_port()
    proc = launch(pristine_trees["0.5.10"], eagle_args(target, draft, port, "--api-key", "k", "--enable-metrics",
                                                       "--served-model-name", "kimi-k2.5"),
                  env={"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "1", "SGLANG_STANDIN_GENERATE_DELAY": "1.5"})
    try:
        status, text = get(port, "/metrics")  # unauthenticated, like SGLang's
        assert status == 200
        assert ('sglang:num_running_reqs{model_name="kimi-k2.5",engine_type="unified",tp_rank="0",pp_rank="0",'
                'moe_ep_rank="0"} 0.0') in text.decode()
        assert gauges(port) == {"sglang:num_running_reqs": 0.0, "sglang:num_queue_reqs": 0.0,
                                "sglang:spec_accept_length": 2.7, "sglang:generation_tokens_total": 0.0}
        requests = [threading.Thread(target=post, args=(port, "/generate", {"text": "hi"}, "k")) for _request in range(3)]
        for request in requests:
            request.start()
        time.sleep(0.7)
        assert gauges(port)["sglang:num_running_reqs"] == 3.0
        for request in requests:
            request.join()
        assert gauges(port)["sglang:num_running_reqs"] == 0.0
        assert gauges(port)["sglang:generation_tokens_total"] == 3 * 8.0  # max_new_tokens' default in the stand-in
    finally:
        proc.kill()
        proc.communicate()


def test_a_list_of_prompts_is_one_batch_answered_in_order_in_the_time_of_one(pristine_trees, models):
    """SGLang's /generate takes a list of prompts (GenerateReqInput.text) and answers with a list: the gate's batch."""
    target, draft = models
    port = free_port()
    proc = launch(pristine_trees["0.5.10"], eagle_args(target, draft, port, "--enable-metrics"),
                  env={"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "1", "SGLANG_STANDIN_GENERATE_DELAY": "1.5"})
    try:
        batch = threading.Thread(target=post, args=(port, "/generate", {
            "text": ["a", "b", "c", "d"], "sampling_params": {"max_new_tokens": 2}}))
        started = time.monotonic()
        batch.start()
        time.sleep(0.7)
        assert gauges(port)["sglang:num_running_reqs"] == 4.0  # one running request per prompt, as SGLang counts
        batch.join()
        assert time.monotonic() - started < 2 * 1.5  # decoded together, not one after another
        status, answers = post(port, "/generate", {"text": ["a", "b", "c"], "sampling_params": {"max_new_tokens": 2}})
        assert status == 200 and [answer["meta_info"]["completion_tokens"] for answer in answers] == [2, 2, 2]
        assert gauges(port)["sglang:generation_tokens_total"] == (4 + 3) * 2.0
        status, answer = post(port, "/generate", {"text": "a", "sampling_params": {"max_new_tokens": 2}})
        assert answer["meta_info"]["completion_tokens"] == 2  # one prompt, one answer (not a list)
    finally:
        proc.kill()
        proc.communicate()


def test_no_metrics_without_enable_metrics(pristine_trees, models):
    target, draft = models
    port = free_port()
    proc = launch(pristine_trees["0.5.10"], eagle_args(target, draft, port),
                  env={"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "1"})
    try:
        assert get(port, "/metrics")[0] == 404
    finally:
        proc.kill()
        proc.communicate()


def test_a_generate_takes_longer_per_new_token(pristine_trees, models):
    target, draft = models
    port = free_port()
    proc = launch(pristine_trees["0.5.10"], eagle_args(target, draft, port, "--enable-metrics"),
                  env={"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "1", "SGLANG_STANDIN_TOKEN_DELAY": "0.05"})
    try:
        long_one = threading.Thread(target=post, args=(port, "/generate", {
            "text": "hi", "sampling_params": {"max_new_tokens": 60}}))
        long_one.start()
        time.sleep(0.7)
        assert post(port, "/generate", {"text": "hi", "sampling_params": {"max_new_tokens": 1}})[0] == 200
        assert gauges(port)["sglang:num_running_reqs"] == 1.0  # the 60-token request (3 s) is still decoding
        long_one.join()
        assert gauges(port)["sglang:num_running_reqs"] == 0.0
    finally:
        proc.kill()
        proc.communicate()


def test_a_venv_marked_unhealthy_starts_but_never_answers_health(pristine_trees, models, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (venv / "standin-unhealthy").write_text("")
    target, draft = models
    port = free_port()
    proc = launch(pristine_trees["0.5.10"], eagle_args(target, draft, port), python=str(venv / "bin/python"),
                  env={"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "1"})
    try:
        assert get(port, "/health_generate")[0] == 503 and get(port, "/health")[0] == 503
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.communicate()


def test_a_multi_node_group_serves_once_whole_and_dies_with_a_rank(pristine_trees, models):
    """Rank 0 serves HTTP only once rank 1 joined (whichever starts first); when rank 1 goes, rank 0 exits."""
    target, draft = models
    port, rendezvous = free_port(), free_port()
    group = ["--nnodes", "2", "--dist-init-addr", "127.0.0.1:%d" % rendezvous]
    env = {"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "1"}
    rank0 = launch(pristine_trees["0.5.10"], eagle_args(target, draft, port, *group, "--node-rank", "0"),
                   env=env, wait=False)
    try:
        time.sleep(1.5)
        assert rank0.poll() is None
        with pytest.raises(OSError):
            urllib.request.urlopen("http://127.0.0.1:%d/health" % port, timeout=1)  # not serving alone
        rank1 = launch(pristine_trees["0.5.10"], eagle_args(target, draft, free_port(), *group, "--node-rank", "1"),
                       env=env, wait=False)
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                urllib.request.urlopen("http://127.0.0.1:%d/health" % port, timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        assert get(port, "/health")[0] == 200
        rank1.kill()
        rank1.communicate()
        assert rank0.wait(timeout=10) == 1
        assert "rank 1 left the group" in rank0.communicate()[1]
    finally:
        rank0.kill()
