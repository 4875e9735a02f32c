"""The sgl_kernel test double (tests/real_sglang/doubles) registers every torch op that a release's
modules look up on torch.ops.sgl_kernel when they are imported: a release that adds one fails here,
not inside SGLang's import chain."""

import ast
import os

import pytest

from gpufleet_testlib import ROOT

DOUBLE = os.path.join(ROOT, "tests", "real_sglang", "doubles", "sgl_kernel", "__init__.py")


def _ops_in(node):
    """torch.ops.sgl_kernel.NAME references in node, outside function bodies (which run later)."""
    found, pending = set(), [node]
    while pending:
        current = pending.pop()
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            pending.extend(getattr(current, "decorator_list", []))
            continue
        if (isinstance(current, ast.Attribute) and isinstance(current.value, ast.Attribute)
                and current.value.attr == "sgl_kernel" and isinstance(current.value.value, ast.Attribute)
                and current.value.value.attr == "ops"):
            found.add(current.attr)
        pending.extend(ast.iter_child_nodes(current))
    return found


def import_time_ops(sglang_root):
    found = set()
    for directory, _dirs, files in os.walk(sglang_root):
        for name in files:
            if name.endswith(".py"):
                with open(os.path.join(directory, name), encoding="utf-8-sig") as handle:  # some carry a BOM
                    found |= _ops_in(ast.parse(handle.read()))
    return found


def double_ops():
    with open(DOUBLE) as handle:
        tree = ast.parse(handle.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "IMPORT_TIME_OPS":
            return set(ast.literal_eval(node.value))
    raise AssertionError("IMPORT_TIME_OPS not found in the double")


@pytest.mark.parametrize("version", ["0.5.9", "0.5.23"])
def test_the_double_registers_every_op_a_release_reads_at_import(pristine_trees, version):
    missing = import_time_ops(pristine_trees[version]) - double_ops()
    assert not missing, "add to IMPORT_TIME_OPS in %s: %s" % (DOUBLE, sorted(missing))


def test_the_scan_sees_a_module_level_lookup_and_not_one_inside_a_function():
    tree = ast.parse("import torch\nif cpu:\n    fast = torch.ops.sgl_kernel.fused_x_cpu\n"
                     "def later():\n    return torch.ops.sgl_kernel.only_when_called\n")
    assert _ops_in(tree) == {"fused_x_cpu"}
