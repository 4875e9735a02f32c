"""Import-time settings that SGLang's EAGLE path needs to run on a CPU without CUDA, for the tests only.

Part of the sgl_kernel test double. Installed beside it in a test host's venv with a ``.pth`` line that imports
this module at every start of the interpreter; it does nothing unless the process's environment has
``GPUFLEET_CPU_SPECULATION=1``, which only the tests' inventories set. No SGLang file is edited: each setting
is made on a module of SGLang right after SGLang's own code has run it, when it is first imported.

- ``sglang.srt.speculative.eagle_utils`` (0.5.9) chooses, when it is imported, where the tree ops come from: the
  CUDA build of sgl_kernel on CUDA or ROCm, nothing on a CPU (a NameError when the draft tree is built; the
  greedy verify silently leaves its outputs as they were). Its two module-level choices are set so that
  both ops come from the double (sgl_kernel._speculative: PyTorch versions of the same ops).
- ``torch.cuda.synchronize`` raises where torch has no CUDA device; the draft model's ``set_embed`` calls it
  after it takes the target's embedding. It becomes a no-op there, as a synchronisation is on a CPU.
"""

import importlib.abc
import os
import sys

ENABLED = os.environ.get("GPUFLEET_CPU_SPECULATION") == "1"


def _eagle_utils(module):
    import sgl_kernel
    import torch

    module._is_cuda = True  # pylint: disable=protected-access
    module.sgl_build_tree_kernel_efficient = sgl_kernel.build_tree_kernel_efficient
    if not torch.cuda.is_available():
        torch.cuda.synchronize = lambda device=None: None


AFTER_IMPORT = {"sglang.srt.speculative.eagle_utils": _eagle_utils}


class _Then(importlib.abc.Loader):
    """The module's own loader, then the setting."""

    def __init__(self, loader, setting):
        self.loader, self.setting = loader, setting

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        self.setting(module)


class _AfterImport(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if fullname not in AFTER_IMPORT:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                spec.loader = _Then(spec.loader, AFTER_IMPORT[fullname])
                return spec
        return None


if ENABLED and not any(isinstance(finder, _AfterImport) for finder in sys.meta_path):
    sys.meta_path.insert(0, _AfterImport())
