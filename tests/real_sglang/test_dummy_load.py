"""A --load-format dummy launch (how operators smoke-test a fleet before the weights arrive) of 0.5.9's Kimi-K2.5
wrapper, on SGLang's own server on the CPU: patched for EAGLE-3 alone (as a fleet with real weights is), it
starts and dies at its first request, in the inner model, because SGLang's dummy loader probed
post_load_weights on the wrapper and skipped the inner model's; patched for the dummy load
(gpufleet.sglang.delegation_patch load_format=dummy), it answers."""

import json
import time
import urllib.error
import urllib.request

import pytest

from gpufleet_testlib import cpu_speculation

DUMMY = ["--load-format", "dummy"]
FIRST_REQUEST_FAILS = "AttributeError: 'NoneType' object has no attribute 'dtype'"


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    return cpu_speculation.tiny_models(str(tmp_path_factory.mktemp("models")))


def generate(url):
    sampling = {"max_new_tokens": 4, "temperature": 0, "ignore_eos": True}
    body = json.dumps({"text": "t5 t6 t7", "sampling_params": sampling}).encode()
    request = urllib.request.Request(url + "/generate", data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=300) as answer:
        return answer.status, json.loads(answer.read())


def test_patched_for_eagle3_alone_a_dummy_load_dies_at_its_first_request(models, tmp_path):
    venv = cpu_speculation.patched_venv(str(tmp_path))
    process, url, started = cpu_speculation.start(venv, models, flags=DUMMY)
    try:
        try:
            cpu_speculation.wait_healthy(process, url, started)
            with pytest.raises((urllib.error.URLError, OSError)):
                generate(url)
        except RuntimeError:
            pass  # a health check's own one-token generation came first, and SGLang died on it
        for _second in range(60):
            if process.poll() is not None:
                break
            time.sleep(1)
        assert process.poll() is not None  # SGLang stopped the server
    finally:
        process.kill()
        process.wait()
        errors = cpu_speculation.output(process)
    assert "in forward_absorb_prepare" in errors and FIRST_REQUEST_FAILS in errors, errors[-3000:]


def test_patched_for_the_dummy_load_it_answers(models, tmp_path):
    venv = cpu_speculation.patched_venv(str(tmp_path), load_format="dummy")
    with cpu_speculation.server(venv, models, flags=DUMMY) as (url, _cold):
        status, answer = generate(url)
    assert status == 200 and answer["meta_info"]["completion_tokens"] == 4
