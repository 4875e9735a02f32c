# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Static view of Python classes across a source tree: what a class provides.

Nothing here imports the code it reads. Classes are found by AST, following the
file's imports (``from pkg.mod import Name``) and base classes across files, so
that "does class X have attribute Y" is answered the way Python's MRO would,
for the part of the hierarchy whose source is on disk.
"""

from __future__ import annotations

import ast
import os

# Attributes every torch.nn.Module has. A wrapper that subclasses nn.Module
# provides these without defining them.
NN_MODULE_ATTRIBUTES = frozenset((
    "__call__", "add_module", "apply", "bfloat16", "buffers", "children", "compile", "cpu",
    "cuda", "double", "eval", "extra_repr", "float", "forward", "get_buffer",
    "get_extra_state", "get_parameter", "get_submodule", "half", "ipu", "load_state_dict",
    "modules", "mtia", "named_buffers", "named_children", "named_modules",
    "named_parameters", "parameters", "register_backward_hook", "register_buffer",
    "register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
    "register_full_backward_pre_hook", "register_load_state_dict_post_hook",
    "register_module", "register_parameter", "register_state_dict_pre_hook",
    "requires_grad_", "set_extra_state", "share_memory", "state_dict", "to", "to_empty",
    "train", "training", "type", "xpu", "zero_grad",
))
NN_MODULE_NAMES = frozenset(("nn.Module", "torch.nn.Module", "Module"))


class SourceError(Exception):
    """The source tree does not have what the caller asked for."""


class ClassInfo(object):
    """One class definition: where it is and what its body defines."""

    def __init__(self, node, path):
        self.node = node
        self.path = path
        self.name = node.name
        self.members = _members(node)

    def __repr__(self):
        return "ClassInfo(%s in %s)" % (self.name, self.path)


class Provision(object):
    """How a class provides an attribute: kind is method, property or attribute; owner is the class defining it."""

    def __init__(self, kind, owner):
        self.kind = kind
        self.owner = owner

    def as_dict(self, inherited):
        return {"kind": self.kind, "defined_in": self.owner, "inherited": inherited}


def _members(class_node):
    """Map attribute name -> kind for what a class body (and its __init__) defines."""
    members = {}
    for stmt in class_node.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            members[stmt.name] = "property" if _is_property(stmt) else "method"
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    members.setdefault(target.id, "attribute")
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            members.setdefault(stmt.target.id, "attribute")
    init = find_method(class_node, "__init__")
    if init is not None:
        for name in self_assignments(init):
            members.setdefault(name, "attribute")
    return members


def _is_property(func):
    for deco in func.decorator_list:
        text = ast.unparse(deco)
        if text in ("property", "functools.cached_property", "cached_property") or text.endswith(".setter"):
            return True
    return False


def find_method(class_node, name):
    for stmt in class_node.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
            return stmt
    return None


def self_assignments(func):
    """Names assigned as ``self.NAME = ...`` anywhere in a function, with their value nodes."""
    found = {}
    for node in ast.walk(func):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets, value = [node.target], node.value
        else:
            continue
        for target in targets:
            if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                    and target.value.id == "self"):
                found.setdefault(target.attr, []).append(value)
    return found


def import_root_of(path, max_levels=6):
    """The directory Python would import ``path`` from: above its outermost package.

    Folders like sglang/srt/ have no __init__.py (namespace packages), so the search
    first climbs to the nearest regular package, then above the outermost one.
    """
    directory = os.path.dirname(os.path.abspath(path))
    probe = directory
    for dummy in range(max_levels):
        if os.path.exists(os.path.join(probe, "__init__.py")):
            break
        parent = os.path.dirname(probe)
        if parent == probe:
            return directory
        probe = parent
    else:
        return directory
    while os.path.exists(os.path.join(probe, "__init__.py")):
        probe = os.path.dirname(probe)
    return probe


def iter_classes(tree):
    """Every class in a module, with its dotted name inside the module (Outer.Inner)."""
    stack = [(node, "") for node in tree.body]
    while stack:
        node, prefix = stack.pop(0)
        if isinstance(node, ast.ClassDef):
            qualname = prefix + node.name
            yield qualname, node
            stack.extend((child, qualname + ".") for child in node.body)
        elif isinstance(node, (ast.If, ast.Try)):
            stack.extend((child, prefix) for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt))


class SourceIndex(object):
    """Parses files on demand and resolves class names across them, each once."""

    def __init__(self, import_root):
        self.import_root = import_root
        self._trees = {}
        self._classes = {}  # (path, qualname) -> ClassInfo or None
        self._bases = {}    # (path, qualname) -> bases() result

    def parse(self, path):
        path = os.path.abspath(path)
        if path not in self._trees:
            with open(path, "rb") as handle:
                source = handle.read()
            self._trees[path] = ast.parse(source, filename=path)
        return self._trees[path]

    def add(self, path, tree):
        """Use ``tree`` for ``path`` instead of what is on disk (a text not yet written)."""
        path = os.path.abspath(path)
        self._trees[path] = tree
        for cache in (self._classes, self._bases):
            for key in [key for key in cache if key[0] == path]:
                del cache[key]

    def module_path(self, module):
        """The file of a dotted module name under the import root, or None."""
        base = os.path.join(self.import_root, *module.split("."))
        for candidate in (base + ".py", os.path.join(base, "__init__.py")):
            if os.path.isfile(candidate):
                return candidate
        return None

    def class_in_file(self, path, qualname):
        key = (os.path.abspath(path), qualname)
        if key not in self._classes:
            self._classes[key] = next((ClassInfo(node, key[0]) for name, node in iter_classes(self.parse(path))
                                       if name == qualname), None)
        return self._classes[key]

    def resolve(self, name, from_path, _seen=None):
        """The class a name refers to inside file ``from_path``, or None when not on disk."""
        seen = _seen if _seen is not None else set()
        if (from_path, name) in seen:
            return None
        seen.add((from_path, name))
        found = self.class_in_file(from_path, name)
        if found is not None:
            return found
        head, dummy, rest = name.partition(".")
        for node in self.parse(from_path).body:
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    if (alias.asname or alias.name) != head:
                        continue
                    submodule = self.module_path(node.module + "." + alias.name) if rest else None
                    if submodule is not None:
                        return self.resolve(rest, submodule, seen)
                    target = self.module_path(node.module)
                    if target is None:
                        return None
                    return self.resolve(alias.name + ("." + rest if rest else ""), target, seen)
            elif isinstance(node, ast.Import) and rest:
                for alias in node.names:
                    if alias.asname == head:
                        module, class_name = alias.name, rest
                    elif alias.asname is None and name.startswith(alias.name + "."):
                        module, class_name = alias.name, name[len(alias.name) + 1:]
                    else:
                        continue
                    target = self.module_path(module)
                    if target is not None:
                        return self.resolve(class_name, target, seen)
        return None

    def bases(self, info):
        """(resolved ClassInfo list, nn.Module flag, unresolved base names) for a class."""
        key = (info.path, info.name, info.node.lineno)
        if key not in self._bases:
            self._bases[key] = self._resolve_bases(info)
        return self._bases[key]

    def _resolve_bases(self, info):
        resolved, unresolved, is_module = [], [], False
        for base in info.node.bases:
            text = ast.unparse(base)
            if text in NN_MODULE_NAMES:
                is_module = True
                continue
            found = self.resolve(text, info.path)
            if found is None:
                unresolved.append(text)
            else:
                resolved.append(found)
        return resolved, is_module, unresolved

    def provides(self, info, attribute, _depth=0):
        """How ``info`` provides ``attribute`` (a Provision), following bases like the MRO, or None."""
        kind = info.members.get(attribute)
        if kind is not None:
            return Provision(kind, info.name)
        if _depth > 50:
            return None
        resolved, is_module = self.bases(info)[:2]
        for base in resolved:
            found = self.provides(base, attribute, _depth + 1)
            if found is not None:
                return found
        if is_module and attribute in NN_MODULE_ATTRIBUTES:
            return Provision("method", "torch.nn.Module")
        return None

    def unresolved_bases(self, info, _depth=0):
        bases = self.bases(info)
        resolved, unresolved = bases[0], bases[2]
        names = list(unresolved)
        if _depth < 50:
            for base in resolved:
                names.extend(self.unresolved_bases(base, _depth + 1))
        return names

    def inner_classes(self, info, inner_attr):
        """The classes ``self.<inner_attr>`` is built from in ``__init__`` (constructor calls)."""
        init = None
        for cls in [info] + self.bases(info)[0]:
            init = find_method(cls.node, "__init__")
            if init is not None and inner_attr in self_assignments(init):
                break
            init = None
        if init is None:
            raise SourceError(
                "class %s never assigns self.%s in __init__; set inner_attr to the attribute that "
                "holds the wrapped language model" % (info.name, inner_attr))
        names = []
        for value in self_assignments(init)[inner_attr]:
            if isinstance(value, ast.Call):
                names.append(ast.unparse(value.func))
        if not names:
            raise SourceError(
                "self.%s in %s.__init__ is not assigned a constructor call, so its class cannot be "
                "determined from the source" % (inner_attr, info.name))
        classes = []
        for name in names:
            found = self.resolve(name, info.path) or self._search_siblings(name, info.path)
            if found is None:
                raise SourceError(
                    "class %s (assigned to self.%s in %s) is not defined in a source file that can be "
                    "found from %s" % (name, inner_attr, info.name, info.path))
            classes.append(found)
        return classes

    def _search_siblings(self, name, path):
        """Fallback: look for a top-level class in the .py files next to ``path`` (srt/models/*.py)."""
        directory = os.path.dirname(path)
        simple = name.rsplit(".", 1)[-1]
        needle = ("class %s" % simple).encode()
        for entry in sorted(os.listdir(directory)):
            candidate = os.path.join(directory, entry)
            if entry.endswith(".py") and candidate != path:
                with open(candidate, "rb") as handle:
                    if needle not in handle.read():
                        continue
                found = self.class_in_file(candidate, simple)
                if found is not None:
                    return found
        return None
