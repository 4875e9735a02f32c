"""Test double for ``sgl_kernel``, SGLang's kernel library, where no GPU exists.

The wheels PyPI has (sgl-kernel, sglang-kernel) hold CUDA builds only: importing them fails without
the GPU driver's libcuda.so.1, and every SGLang model module imports them. This package, put first on
the path of a test process or installed in place of the real one in a test host's venv, lets SGLang's
own Python code import and run on the CPU with its torch-native layers (the path SGLang takes when
the CPU has no AMX kernels): any name imported from it is a kernel that raises when it is called, and
the torch ops SGLang's modules look up when they are imported are registered, raising when called. A
code path that needs a real kernel therefore stops with "... the test double has none", never with a
made-up result.

The exceptions are real: the two ops of EAGLE's tree speculation (``_speculative``: the draft tree's mask,
positions and links, and its greedy verification), written in PyTorch from the contract of the CUDA kernels
and checked against SGLang's own Triton versions of the same ops (tests/real_sglang/test_double_ops.py).
"""

import importlib.abc
import importlib.machinery
import sys
import types

__version__ = "0.0.0+test-double"

try:
    from ._speculative import (  # noqa: F401 (the ops SGLang imports by these names)
        build_tree_kernel_efficient, build_tree_kernel_efficient_cpu, verify_tree_greedy, verify_tree_greedy_cpu)
except ImportError:  # no torch: nothing can call them
    pass


class _Kernel(object):
    def __init__(self, name):
        self.__name__ = self.__qualname__ = name

    def __call__(self, *args, **kwargs):
        raise RuntimeError("sgl_kernel.%s is a kernel of the GPU library: the test double has none" % self.__name__)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Kernel(self.__name__ + "." + name)


class _Module(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Kernel(self.__name__.split(".", 1)[-1] + "." + name)


class _Submodules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``import sgl_kernel.<anything>``: a module whose names are kernels."""

    def find_spec(self, fullname, path, target=None):
        if fullname.startswith(__name__ + "."):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        module = _Module(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _Kernel(name)


sys.meta_path.insert(0, _Submodules())

# The ops of torch.ops.sgl_kernel that SGLang's modules read when they are imported (at module level),
# in 0.5.9 and 0.5.23: tests/real_sglang/test_doubles.py checks the list against each release's source.
IMPORT_TIME_OPS = ("apply_rotary_pos_emb_cpu", "conv3d_embed_cpu", "flash_attn_varlen_func",
                   "fused_dual_residual_rmsnorm_cpu", "fused_gdn_gating_cpu", "fused_moe_router_cpu",
                   "fused_qk_gemma_rmsnorm_cpu", "fused_qk_gemma_rmsnorm_with_gate_cpu",
                   "fused_qkvzba_split_reshape_cat_contiguous_cpu", "fused_scale_residual_norm_scale_shift",
                   "fused_sigmoid_gating_delta_rule_update_cpu", "fused_sigmoid_mul_cpu", "rmsnorm_cpu")


def _register_ops():
    try:
        import torch
    except ImportError:
        return None
    library = torch.library.Library("sgl_kernel", "FRAGMENT")
    for name in IMPORT_TIME_OPS:
        if hasattr(torch.ops.sgl_kernel, name):
            continue
        library.define(name + "(Tensor x) -> Tensor")
        library.impl(name, _Kernel("torch.ops.sgl_kernel." + name), "CompositeExplicitAutograd")
    return library


# Kept alive: the registrations live as long as the library object.
_LIBRARY = _register_ops()
