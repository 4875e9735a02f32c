"""The sgl_kernel double's two speculative ops (the draft tree's mask, positions and links; its greedy
verification) on random draft trees, in each release's venv: equal to a reference that reads each tree from
its parent array, and in 0.5.23, bit-equal to SGLang's own Triton versions of the same ops, run by Triton's
interpreter on the CPU (ops_check.py says how the trees are made)."""

import json
import os
import subprocess

import pytest

from gpufleet_testlib import ROOT, real_sglang

CHECK = os.path.join(ROOT, "tests", "real_sglang", "ops_check.py")


@pytest.mark.parametrize("release", real_sglang.RELEASES)
def test_the_doubles_tree_ops_agree_with_the_reference_and_sglangs_own_triton_ops(release):
    result = subprocess.run([real_sglang.python(release), CHECK, real_sglang.DOUBLES, "40", "7"],
                            capture_output=True, text=True, timeout=900, check=False,
                            env=dict(real_sglang.environment(), TRITON_INTERPRET="1"))
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["differences"] == [] and report["trees"] >= 40, report
    # 0.5.23 ships the Triton versions; 0.5.9 only the CUDA kernels the double stands in for.
    assert report["against_triton"] is (release == "0.5.23")
