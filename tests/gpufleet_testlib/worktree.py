"""The collection at another git ref, for a benchmark that compares it with the checkout side by side."""

import contextlib
import os
import subprocess
import tempfile

from gpufleet_testlib import ROOT


@contextlib.contextmanager
def collection_at(ref):
    """A temporary git worktree of ref with its own collections path (.collections/ansible_collections/
    gpufleet/sglang -> the worktree), as ansible-playbook's ANSIBLE_COLLECTIONS_PATH takes it; removed after."""
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "collection")
        subprocess.run(["git", "worktree", "add", "--detach", path, ref], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            os.makedirs(os.path.join(path, ".collections", "ansible_collections", "gpufleet"))
            os.symlink("../../..", os.path.join(path, ".collections", "ansible_collections", "gpufleet", "sglang"))
            yield path
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", path], cwd=ROOT, check=False)
