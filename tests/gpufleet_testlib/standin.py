"""The SGLang stand-in (tests/standin) started on loopback, for tests that need live workers."""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

from gpufleet_testlib import ROOT

STANDIN = os.path.join(ROOT, "tests", "standin")


def http(url, key=None, body=None, timeout=10):
    """(status, body bytes) of a GET, or of a JSON POST when body is given; HTTP errors are answers too."""
    request = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    if key:
        request.add_header("Authorization", "Bearer " + key)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(url, proc, seconds=20):
    """Poll url until it answers; raise with the process's stderr when it exits or time runs out."""
    deadline = time.time() + seconds
    while time.time() < deadline and proc.poll() is None:
        try:
            urllib.request.urlopen(url, timeout=1)
            return
        except urllib.error.HTTPError:
            return  # it answers
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.1)
    proc.kill()
    raise AssertionError("%s did not come up: %s" % (url, proc.communicate()[1][-3000:]))


def launch(site, args, env=None, wait=True, python=sys.executable):
    """python -m sglang_standin ARGS over the SGLang tree in site (its site-packages folder)."""
    environ = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(site), STANDIN]))
    environ.update(env or {})
    proc = subprocess.Popen([python, "-m", "sglang_standin"] + args, env=environ,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if wait:
        wait_for("http://127.0.0.1:%d/health" % int(args[args.index("--port") + 1]), proc)
    return proc


def model_dir(path, **config):
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "config.json"), "w") as handle:
        json.dump(config, handle)
    return path


def kimi_models(base):
    """A Kimi-K2.5-shaped target and an EAGLE-3 draft (acceptance length 2.7) under base."""
    target = model_dir(os.path.join(base, "kimi"), architectures=["KimiK25ForConditionalGeneration"],
                       text_config={"max_position_embeddings": 262144})
    draft = model_dir(os.path.join(base, "draft"), architectures=["LlamaForCausalLMEagle3"],
                      max_position_embeddings=131072, eagle_config={"eagle_aux_hidden_state_layer_ids": [2, 30, 58]},
                      standin_accept_length=2.7)
    return target, draft


def eagle_args(target, draft, port, *extra):
    return ["--model-path", target, "--speculative-algorithm", "EAGLE3", "--speculative-draft-model-path", draft,
            "--speculative-num-steps", "3", "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4",
            "--context-length", "262144", "--tp-size", "8", "--trust-remote-code", "--host", "127.0.0.1",
            "--port", str(port)] + list(extra)
