"""What the stand-in reads from the installed SGLang: its flags and its model classes."""

import argparse
import ast
import glob
import importlib.util
import os

VALUELESS_ACTIONS = ("store_true", "store_false", "store_const", "count", "help", "version")


def sglang_root():
    spec = importlib.util.find_spec("sglang")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("sglang is not installed in this environment")
    return spec.submodule_search_locations[0]


def _constant(node):
    return node.value if isinstance(node, ast.Constant) else None


def build_parser(root):
    """An argparse parser with exactly the flags of the installed SGLang's add_cli_args."""
    with open(os.path.join(root, "srt", "server_args.py"), "rb") as handle:
        tree = ast.parse(handle.read())
    parser = argparse.ArgumentParser(prog="python -m sglang.launch_server")
    seen = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument"):
            continue
        names = [_constant(a) for a in node.args]
        names = [n for n in names if isinstance(n, str) and n.startswith("-") and n not in seen]
        if not names:
            continue
        seen.update(names)
        keywords = dict((k.arg, k.value) for k in node.keywords if k.arg)
        options = {"dest": names[0].lstrip("-").replace("-", "_")}
        action = _constant(keywords.get("action")) if "action" in keywords else None
        nargs = _constant(keywords.get("nargs")) if "nargs" in keywords else None
        if action in VALUELESS_ACTIONS[:2]:
            options["action"] = action
        elif nargs is not None:
            options["nargs"] = nargs
        parser.add_argument(*names, **options)
    if "--model-path" not in seen:
        # Later releases (0.5.2x) build their parser from dataclass fields instead of add_cli_args.
        raise SystemExit("sglang-standin: no add_argument('--model-path') in %s/srt/server_args.py; this "
                         "SGLang builds its command line another way, which the stand-in cannot read" % root)
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
