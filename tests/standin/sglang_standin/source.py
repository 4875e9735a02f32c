"""What the stand-in reads from the installed SGLang: its flags and its model classes."""

import argparse
import ast
import glob
import importlib.util
import os

from sglang_standin import sglang_cli


def sglang_root():
    spec = importlib.util.find_spec("sglang")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("sglang is not installed in this environment")
    return spec.submodule_search_locations[0]


def build_parser(root):
    """An argparse parser with exactly the flags of the installed SGLang, read by the collection's own
    reader (sglang_cli.py is plugins/module_utils/_sglang_cli.py): add_argument calls and the
    annotated fields of srt/arg_groups/fields/, the two ways SGLang releases declare them."""
    try:
        flags = sglang_cli.read_flags(root)
    except ValueError as exc:
        raise SystemExit("sglang-standin: %s" % exc)
    parser = argparse.ArgumentParser(prog="python -m sglang.launch_server")
    for flag in sorted(set(flags.values()), key=lambda flag: flag.names[0]):
        options = {"dest": flag.dest}
        if flag.valueless:
            options["action"] = "store_true"
        elif flag.nargs is not None:
            options["nargs"] = flag.nargs
        parser.add_argument(*flag.names, **options)
    return parser


def find_class(root, class_name):
    """(ClassDef, module tree) of a model class in srt/models/*.py, or (None, None)."""
    needle = ("class %s" % class_name).encode()
    for path in sorted(glob.glob(os.path.join(root, "srt", "models", "*.py"))):
        with open(path, "rb") as handle:
            data = handle.read()
        if needle not in data:
            continue
        tree = ast.parse(data)
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name == class_name:
                return node, tree
    return None, None


def class_attributes(class_node, tree, _depth=0):
    """Names a class defines, with its bases defined in the same module (Python's MRO, simplified)."""
    names = set()
    for stmt in class_node.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(stmt.name)
        elif isinstance(stmt, ast.Assign):
            names.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
    if _depth < 20:
        local = dict((n.name, n) for n in tree.body if isinstance(n, ast.ClassDef))
        for base in class_node.bases:
            if isinstance(base, ast.Name) and base.id in local:
                names |= class_attributes(local[base.id], tree, _depth + 1)
    return names
