"""Staged settings of one instance on a temporary tree, for the staged_settings tests."""

import os

from ansible_collections.gpufleet.sglang.plugins.module_utils import _staged_settings as staged
from ansible_collections.gpufleet.sglang.plugins.module_utils._launch_args import exec_start


def make_layout(root):
    settings, units = os.path.join(root, "etc-sglang"), os.path.join(root, "systemd")
    os.makedirs(settings)
    os.makedirs(units)
    return staged.Layout("kimi-k25", settings, units)


def unit_text(venv, draft="AQ-MedAI/Kimi-K25-eagle3"):
    """A unit as gpufleet.sglang.launch renders its ExecStart (one flag per line)."""
    argv = [venv + "/bin/python", "-m", "sglang.launch_server", "--model-path", "moonshotai/Kimi-K2.5",
            "--speculative-draft-model-path", draft, "--tp-size", "8"]
    return "[Service]\nExecStart=%s\nRestart=on-failure\n" % exec_start(argv)


def write(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        handle.write(text)
    os.chmod(path, mode)


def stage(layout, venv="/opt/sglang/venvs/sglang-0.5.9", env="A=1\n", draft="AQ-MedAI/Kimi-K25-eagle3"):
    write(layout.staged(layout.unit), unit_text(venv, draft))
    write(layout.staged("kimi-k25.env"), env, 0o600)
    write(layout.staged("kimi-k25.yaml"), "api-key: k\n", 0o640)
