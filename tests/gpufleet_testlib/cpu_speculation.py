"""SGLang's own server with EAGLE-3 on this machine's CPU, outside the test hosts: a venv linked to the real
release's (real_sglang) with the collection's patch applied to it, the sgl_kernel double and its import-time
settings in place, and the tiny models of tests/real_sglang/tiny_weights.py. What only the CPU needs is
here (ENV, FLAGS), as it is in molecule/real/eagle.yml, never in the roles.

    venv = patched_venv(work)                  # once
    models = tiny_models(work)                  # kimi-k25-repeat, eagle3-agree, eagle3-disagree
    with server(venv, models, "eagle3-agree") as url: ...
"""

import contextlib
import os
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

from gpufleet_testlib import ROOT, real_sglang
from gpufleet_testlib.modules import run_module
from gpufleet_testlib.standin import free_port

RELEASE = "0.5.9"
NUMPY = os.path.join(os.path.dirname(real_sglang.BASE), "cpu-speculation", "numpy-2.3.5")
ENV = {"SGLANG_USE_CPU_ENGINE": "1", "TRITON_INTERPRET": "1", "GPUFLEET_CPU_SPECULATION": "1",
       "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "1", "SGLANG_DISABLE_CUDNN_CHECK": "1", "HF_HUB_OFFLINE": "1",
       "TRANSFORMERS_OFFLINE": "1"}
FLAGS = ["--device", "cpu", "--attention-backend", "triton", "--disable-cuda-graph", "--dtype", "float32",
         "--decode-log-interval", "1", "--skip-server-warmup", "--max-total-tokens", "4096",
         "--mem-fraction-static", "0.1", "--context-length", "262144",
         # Without it an idle scheduler polls its sockets without pause: a whole core per server, half of CI's two.
         "--sleep-on-idle"]
SPECULATION = ["--speculative-algorithm", "EAGLE3", "--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
               "--speculative-num-draft-tokens", "4"]


def numpy_dir():
    """numpy 2.3.5 for Triton's interpreter (which breaks with 2.4), installed once beside the venvs."""
    if not os.path.isdir(os.path.join(NUMPY, "numpy")):
        subprocess.run([real_sglang.python(RELEASE), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        "--target", NUMPY, "numpy==2.3.5"], check=True)
    return NUMPY


def patched_venv(work, load_format="auto"):
    """A venv linked to the release's, patched by the collection (for that load format), with the double and
    its settings."""
    from ansible_collections.gpufleet.sglang.plugins.modules import delegation_patch

    venv = os.path.join(work, "venv")
    shutil.rmtree(venv, ignore_errors=True)
    os.makedirs(work, exist_ok=True)
    subprocess.run(["cp", "-al", real_sglang.venv(RELEASE), venv], check=True)
    site = os.path.join(venv, "lib", "python3.11", "site-packages")
    shutil.rmtree(os.path.join(site, "sgl_kernel"))
    shutil.copytree(os.path.join(real_sglang.DOUBLES, "sgl_kernel"), os.path.join(site, "sgl_kernel"))
    shutil.copy(os.path.join(real_sglang.DOUBLES, "gpufleet_cpu_speculation.py"), site)
    with open(os.path.join(site, "gpufleet_cpu_speculation.pth"), "w") as handle:
        handle.write("import gpufleet_cpu_speculation\n")
    sglang = os.path.join(site, "sglang")
    patched = run_module(delegation_patch, dict(
        path=os.path.join(sglang, "srt", "models", "kimi_k25.py"), sglang_root=sglang,
        class_name="KimiK25ForConditionalGeneration", inner_attr="language_model", methods="auto", fail_on_gaps=True,
        load_format=load_format))
    if patched.get("failed"):
        raise RuntimeError(patched["msg"])
    return venv


def tiny_models(work):
    directory = os.path.join(work, "models")
    subprocess.run([real_sglang.python(RELEASE), os.path.join(ROOT, "tests", "real_sglang", "tiny_weights.py"),
                    directory], check=True, capture_output=True)
    return directory


def start(venv, models, draft=None, flags=()):
    """(process, url, started): the server starting, with the draft (or none) and further flags."""
    port = free_port()
    command = [os.path.join(venv, "bin", "python"), "-m", "sglang.launch_server", "--model-path",
               os.path.join(models, "kimi-k25-repeat"), "--host", "127.0.0.1", "--port", str(port)] + FLAGS
    command += list(flags)
    if draft:
        command += SPECULATION + ["--speculative-draft-model-path", os.path.join(models, draft)]
    env = dict(os.environ, PYTHONPATH=numpy_dir(), **ENV)
    started = time.monotonic()
    # A file, not a pipe: a server that logs every decode step would fill a pipe nobody reads, and stall.
    log = tempfile.TemporaryFile(mode="w+")
    process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, text=True)
    process.log = log
    return process, "http://127.0.0.1:%d" % port, started


def output(process):
    """What the server has printed so far."""
    process.log.seek(0)
    return process.log.read()


def wait_healthy(process, url, started, timeout=600):
    """Seconds from the start to the first 200 of /health."""
    while time.monotonic() - started < timeout:
        if process.poll() is not None:
            raise RuntimeError("the server exited (rc %d): %s" % (process.returncode, output(process)[-3000:]))
        try:
            with urllib.request.urlopen(url + "/health", timeout=10) as answer:
                if answer.status == 200:
                    return time.monotonic() - started
        except (urllib.error.URLError, OSError):
            time.sleep(0.5)
    raise RuntimeError("no healthy answer within %d s" % timeout)


@contextlib.contextmanager
def server(venv, models, draft=None, flags=()):
    """(URL, cold start in seconds) once the server is healthy; stopped on leaving."""
    process, url, started = start(venv, models, draft, flags)
    try:
        cold = wait_healthy(process, url, started)
        yield url, cold
    finally:
        stop(process)


def stop(process):
    process.terminate()
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
