"""A real Hugging Face mirror for tests: olah from PyPI, offline, serving git repositories that the test
writes (its mirrors-path), over the Hub's HTTP API (revision, tree, resolve) that huggingface_hub and
gpufleet.sglang.model_weights speak. No fake hub: the server is olah's own code.

The venv is made with Debian's Python 3.11 (/usr/bin/python3.11) where there is one, so that a Debian 12
test container that mounts it at the same path runs it too."""

import hashlib
import os
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request

from gpufleet_testlib.router import BASE, pip
from gpufleet_testlib.standin import free_port

VERSION = "0.5.4"


def venv():
    """The venv with olah==VERSION (made once, cached); its olah-cli."""
    path = os.path.join(BASE, "olah-%s" % VERSION)
    stamp = os.path.join(path, ".complete")
    if not os.path.exists(stamp):
        python = "/usr/bin/python3.11" if os.path.exists("/usr/bin/python3.11") else sys.executable
        subprocess.run([python, "-m", "venv", "--clear", path], check=True)
        pip(os.path.join(path, "bin", "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
            "olah==%s" % VERSION)
        open(stamp, "w").close()
    return os.path.join(path, "bin", "olah-cli")


def _git(repo, *args):
    return subprocess.run(["git", "-C", repo] + list(args), check=True, capture_output=True, text=True).stdout.strip()


def commit_files(mirrors, repo_id, files, lfs=(), message="weights"):
    """Commit files {path: bytes} to the mirror's git repository of repo_id (created when new) on main, the
    paths in lfs as Git LFS pointers with their objects where git-lfs keeps them; returns the commit and the
    expected listing {path: (size, sha256 or None)}."""
    repo = os.path.join(mirrors, "models", repo_id)
    if not os.path.isdir(os.path.join(repo, ".git")):
        os.makedirs(repo)
        _git(repo, "init", "-q", "-b", "main")
        _git(repo, "config", "user.email", "tests@gpufleet.invalid")
        _git(repo, "config", "user.name", "tests")
    expected = {}
    for path, data in files.items():
        target = os.path.join(repo, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if path in lfs:
            oid = hashlib.sha256(data).hexdigest()
            store = os.path.join(repo, ".git", "lfs", "objects", oid[:2], oid[2:4])
            os.makedirs(store, exist_ok=True)
            with open(os.path.join(store, oid), "wb") as handle:
                handle.write(data)
            data_in_git = ("version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %d\n"
                           % (oid, len(data))).encode()
            expected[path] = (len(data), oid)
        else:
            data_in_git = data
            expected[path] = (len(data), None)
        with open(target, "wb") as handle:
            handle.write(data_in_git)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message)
    return _git(repo, "rev-parse", "HEAD"), expected


class Mirror:
    """olah serving directory/mirrors offline on 127.0.0.1 (or host), started and stopped with the context."""

    def __init__(self, directory, host="127.0.0.1", port=None, tls=None):
        """tls: a gpufleet_testlib.private_ca.PrivateCA whose server certificate olah serves https with."""
        self.directory, self.host, self.port, self.tls = directory, host, port or free_port(), tls
        self.mirrors = os.path.join(directory, "mirrors")
        os.makedirs(self.mirrors, exist_ok=True)
        self.url = "%s://%s:%d" % ("https" if tls else "http", host, self.port)
        self.log = os.path.join(directory, "olah.log")
        self.process = None

    def start(self):
        config = os.path.join(self.directory, "olah.toml")
        with open(config, "w") as handle:
            handle.write('[basic]\nhost = "%s"\nport = %d\nrepos-path = "%s"\nmirrors-path = ["%s"]\n'
                         % (self.host, self.port, os.path.join(self.directory, "repos"), self.mirrors))
            if self.tls:
                handle.write('ssl-key = "%s"\nssl-cert = "%s"\n' % (self.tls.server_key, self.tls.server))
            handle.write('[accessibility]\noffline = true\n')
        self.process = subprocess.Popen([venv(), "-c", config], cwd=self.directory, stdout=open(self.log, "ab"),
                                        stderr=subprocess.STDOUT)
        context = ssl.create_default_context(cafile=self.tls.ca) if self.tls else None
        deadline = time.time() + 60
        while self.process.poll() is None and time.time() < deadline:
            try:
                urllib.request.urlopen(self.url + "/api/whoami-v2", timeout=1, context=context)
                return self
            except urllib.error.HTTPError:
                return self  # it answers
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.2)
        self.stop()
        with open(self.log, errors="replace") as handle:
            raise AssertionError("olah did not come up on %s: %s" % (self.url, handle.read()[-3000:]))

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)

    def served(self, path):
        """How many times the mirror answered a request for a file's bytes (GET of .../resolve/.../path)."""
        with open(self.log, errors="replace") as handle:
            return sum(1 for line in handle if '"GET ' in line and "/resolve/" in line and line.split('"GET ')[1]
                       .split(" ")[0].endswith("/" + path))

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


TARGET_CONFIG = {"architectures": ["KimiK25ForConditionalGeneration"], "model_type": "kimi_k25",
                 "text_config": {"architectures": ["DeepseekV3ForCausalLM"], "max_position_embeddings": 262144,
                                 "num_hidden_layers": 61}}
DRAFT_CONFIG = {"architectures": ["LlamaForCausalLMEagle3"], "model_type": "llama", "max_position_embeddings": 131072,
                "hidden_size": 7168, "num_hidden_layers": 1, "standin_accept_length": 2.9,
                "eagle_config": {"eagle_aux_hidden_state_layer_ids": [2, 30, 58], "use_aux_hidden_state": True}}


def shard(seed, size):
    """size bytes that are the same on every run (so a cached mirror serves what the tests expect)."""
    out, block = bytearray(), hashlib.sha256(seed.encode()).digest()
    while len(out) < size:
        block = hashlib.sha256(block).digest()
        out += block * 64
    return bytes(out[:size])


def write_fleet_models(mirrors, shard_size=4 * 1024 * 1024):
    """The stand-in's Kimi-K2.5 target (two LFS shards and their index) and EAGLE-3 draft (one shard), as the
    repositories tiny-org/kimi-k25 and tiny-org/kimi-k25-eagle3 of a new mirror; returns their commits."""
    import json
    index = {"metadata": {"total_size": 2 * shard_size},
             "weight_map": {"a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}}
    target = {"config.json": json.dumps(TARGET_CONFIG, indent=2).encode() + b"\n",
              "model.safetensors.index.json": json.dumps(index).encode(),
              "model-00001-of-00002.safetensors": shard("target-1", shard_size),
              "model-00002-of-00002.safetensors": shard("target-2", shard_size)}
    draft = {"config.json": json.dumps(DRAFT_CONFIG, indent=2).encode() + b"\n",
             "model.safetensors": shard("draft", shard_size // 4)}
    return {"tiny-org/kimi-k25": commit_files(mirrors, "tiny-org/kimi-k25", target,
                                              ("model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"))[0],
            "tiny-org/kimi-k25-eagle3": commit_files(mirrors, "tiny-org/kimi-k25-eagle3", draft, ("model.safetensors",))[0]}


if __name__ == "__main__":
    # python -m gpufleet_testlib.hf_mirror DIRECTORY: olah's venv (printed), and a new mirror of the fleet's
    # models in DIRECTORY/mirrors (what was there before is replaced).
    import shutil
    print(venv())
    shutil.rmtree(os.path.join(sys.argv[1], "mirrors"), ignore_errors=True)
    print(write_fleet_models(os.path.join(sys.argv[1], "mirrors")))
