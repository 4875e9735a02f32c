# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The command-line flags an installed SGLang accepts, read from its source by AST (never imported).

SGLang declares them two ways, and a release may use both:

- ``parser.add_argument("--flag", ...)`` calls in ``srt/server_args.py`` (``add_cli_args``): every
  release up to 0.5.1x, and the few dynamic or deprecated flags of later ones;
- annotated fields: of the ``ServerArgs`` dataclass in ``srt/server_args.py`` (0.5.14 to 0.5.1x),
  then of the records in ``srt/arg_groups/fields/*.py`` (0.5.2x):
  ``name: A[T, "help"]`` or ``name: A[T, Arg(cli_name=..., aliases=[...], no_cli=..., action=...)]``,
  which ``add_cli_args_from_dataclass`` turns into ``--name-with-dashes`` (a ``bool`` is a
  ``store_true`` flag, a ``List[...]`` takes several values, ``no_cli=True`` has no flag).

Self-contained (standard library only): the test stand-in for the SGLang server builds its
parser from this same file.
"""

from __future__ import annotations

import ast
import os

SERVER_ARGS = os.path.join("srt", "server_args.py")
FIELDS_DIR = os.path.join("srt", "arg_groups", "fields")
VALUELESS_ACTIONS = ("store_true", "store_false", "store_const", "count", "help", "version")
ANNOTATED = ("A", "Annotated", "typing.Annotated")


class Flag(object):
    """One flag: its names (the first is the main one), where argparse stores it, and what it takes."""

    def __init__(self, names, dest, valueless=False, nargs=None):
        self.names = names
        self.dest = dest
        self.valueless = valueless  # store_true and the like: no value follows
        self.nargs = nargs          # "+" and the like for several values, else None

    def __repr__(self):
        return "Flag(%s)" % "/".join(self.names)


def _constant(node):
    return node.value if isinstance(node, ast.Constant) else None


def _is_valueless(action):
    """Whether an argparse ``action=`` node (a string, or an Action class named in the source) takes no value."""
    if action is None:
        return False
    if isinstance(action, ast.Constant):
        return action.value in VALUELESS_ACTIONS
    name = ast.unparse(action)
    return any(word in name for word in ("StoreTrue", "StoreFalse", "StoreConst", "Count"))


def _add_argument_flags(tree):
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument"):
            continue
        names = [_constant(a) for a in node.args]
        names = [n for n in names if isinstance(n, str) and n.startswith("-")]
        if not names:
            continue
        keywords = dict((k.arg, k.value) for k in node.keywords if k.arg)
        action = keywords.get("action")
        dest = _constant(keywords.get("dest")) or names[0].lstrip("-").replace("-", "_")
        yield Flag(names, dest, _is_valueless(action),
                   _constant(keywords.get("nargs")))


def _unwrap_optional(node):
    """``Optional[T]`` and ``T | None`` -> T."""
    if isinstance(node, ast.Subscript) and ast.unparse(node.value).endswith("Optional"):
        return node.slice
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        sides = [side for side in (node.left, node.right) if not (isinstance(side, ast.Constant) and side.value is None)]
        return sides[0] if len(sides) == 1 else node
    return node


def _field_flag(name, annotation):
    """The Flag of one ``name: A[T, meta]`` field, or None (not annotated for the CLI, or no_cli)."""
    if not (isinstance(annotation, ast.Subscript) and ast.unparse(annotation.value) in ANNOTATED
            and isinstance(annotation.slice, ast.Tuple) and len(annotation.slice.elts) >= 2):
        return None
    field_type, meta = annotation.slice.elts[0], annotation.slice.elts[1]
    options = {}
    if isinstance(meta, ast.Call) and ast.unparse(meta.func).endswith("Arg"):
        options = dict((k.arg, k.value) for k in meta.keywords if k.arg)
    elif not isinstance(_constant(meta), str):
        return None
    if _constant(options.get("no_cli")) is True:
        return None
    cli_name = _constant(options.get("cli_name")) or "--" + name.replace("_", "-")
    aliases = options.get("aliases")
    names = [cli_name] + ([_constant(a) for a in aliases.elts] if isinstance(aliases, (ast.List, ast.Tuple)) else [])
    inner = _unwrap_optional(field_type)
    type_name = ast.unparse(inner.value if isinstance(inner, ast.Subscript) else inner)
    action = options.get("action")
    if action is not None:
        return Flag(names, name, _is_valueless(action),
                    _constant(options.get("nargs")))
    if type_name == "bool":
        return Flag(names, name, valueless=True)
    if type_name in ("List", "list", "typing.List") and "type_parser" not in options:
        return Flag(names, name, nargs=_constant(options.get("nargs")) or "+")
    return Flag(names, name, nargs=_constant(options.get("nargs")))


def _field_flags(tree):
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        for stmt in node.body:
            if (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
                    and not stmt.target.id.startswith("_")):
                flag = _field_flag(stmt.target.id, stmt.annotation)
                if flag is not None:
                    yield flag


def _parse(path):
    with open(path, "rb") as handle:
        return ast.parse(handle.read(), filename=path)


def read_flags(sglang_root):
    """Every flag the installed SGLang's launch_server accepts: {"--flag": Flag}, aliases included.

    Raises ValueError when the source has no ``--model-path`` either way (not a launch_server
    this reader understands), rather than calling every flag unknown.
    """
    server_args = _parse(os.path.join(sglang_root, SERVER_ARGS))
    flags, sources = {}, [_add_argument_flags(server_args), _field_flags(server_args)]
    fields = os.path.join(sglang_root, FIELDS_DIR)
    if os.path.isdir(fields):
        sources.extend(_field_flags(_parse(os.path.join(fields, name)))
                       for name in sorted(os.listdir(fields)) if name.endswith(".py"))
    for source in sources:
        for flag in source:
            for name in flag.names:
                flags.setdefault(name, flag)
    if "--model-path" not in flags:
        raise ValueError("%s declares no --model-path, neither with add_argument in %s nor as a field in %s; "
                         "this SGLang builds its command line a way this collection does not read"
                         % (sglang_root, SERVER_ARGS, FIELDS_DIR))
    return flags


def unknown(flags, argv):
    """The ``--flags`` of an argument list that are not in ``flags`` (a ``--flag=value`` counts as ``--flag``)."""
    found = []
    for arg in argv:
        text = str(arg)
        if text.startswith("--"):
            name = text.split("=", 1)[0]
            if name not in flags and name not in found:
                found.append(name)
    return found
