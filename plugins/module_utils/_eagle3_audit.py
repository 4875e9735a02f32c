# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Audit an installed SGLang for the methods its speculative path needs on a model class.

The call sites are found by AST over ``srt/speculative/`` and ``srt/model_executor/``:
every ``<receiver>.NAME(...)`` call and every ``hasattr``/``getattr(<receiver>, "NAME")``
probe where the receiver is a model object (an identifier ``model`` or ``*_model`` at
the end of the expression). Each site is classed as concerning the draft model when the
receiver names a draft (``draft``/``mtp``), or the target model otherwise.

A name is *required* when a launch with ``--speculative-algorithm EAGLE3`` cannot work
without it on the target: the EAGLE-3 set below, always, plus any name the EAGLE
modules (``srt/speculative/*eagle*``) call on the target without probing it first.
Everything else found is reported with its call sites, but is not a gap.
"""

from __future__ import annotations

import ast
import os

from ansible_collections.gpufleet.sglang.plugins.module_utils._python_classes import (
    SourceError,
    SourceIndex,
)
from ansible_collections.gpufleet.sglang.plugins.module_utils._sglang_package import (
    check_root,
    sglang_version,
)

EAGLE3_METHODS = ("set_eagle3_layers_to_capture", "get_embed_and_head", "set_embed_and_head")
SCANNED_TREES = ("srt/speculative", "srt/model_executor")
DEFAULT_MODEL_FILE = "srt/models/kimi_k25.py"
DEFAULT_INNER_ATTR = "language_model"
PROBES = ("hasattr", "getattr")


class CallSite(object):
    def __init__(self, name, site, kind, model, probed):
        self.name = name
        self.site = site
        self.kind = kind        # "call", "hasattr" or "getattr"
        self.model = model      # "target" or "draft"
        self.probed = probed    # the enclosing function probes this name first


def _receiver_names(node):
    """Identifiers along an expression like ``self.target_worker.model_runner.model``."""
    names = []
    while True:
        if isinstance(node, ast.Attribute):
            names.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Name):
            names.append(node.id)
            return names
        elif isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Subscript):
            node = node.value
        else:
            return names


def _is_model(names):
    return bool(names) and (names[0] == "model" or names[0].endswith("_model"))


def _model_side(names, relpath):
    text = ".".join(names).lower()
    if "target" in text:
        return "target"
    if "draft" in text or "mtp" in text or "draft" in os.path.basename(relpath):
        return "draft"
    return "target"


def _model_access(node):
    """(name, kind, receiver identifiers) when ``node`` calls or probes a model, else None."""
    func = node.func
    if isinstance(func, ast.Attribute):
        receiver = _receiver_names(func.value)
        if _is_model(receiver):
            return func.attr, "call", receiver
    elif (isinstance(func, ast.Name) and func.id in PROBES and len(node.args) >= 2
          and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
        receiver = _receiver_names(node.args[0])
        if _is_model(receiver):
            return node.args[1].value, func.id, receiver
    return None


def scan_file(relpath, tree):
    """Every model call and probe in one file, as CallSite objects (one pass over the tree).

    A call counts as probed when the innermost function around it also probes that name.
    """
    found = []  # (scope, name, line, kind, receiver)
    stack = [(tree, 0)]
    while stack:
        node, scope = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            scope = id(node)
        elif isinstance(node, ast.Call):
            access = _model_access(node)
            if access is not None:
                found.append((scope, access[0], node.lineno, access[1], access[2]))
        stack.extend((child, scope) for child in ast.iter_child_nodes(node))
    probed = set((scope, name) for scope, name, line, kind, receiver in found if kind in PROBES)
    found.sort(key=lambda entry: entry[2])
    return [CallSite(name, "%s:%d" % (relpath, line), kind, _model_side(receiver, relpath),
                     (scope, name) in probed)
            for scope, name, line, kind, receiver in found]


def scan_tree(index, sglang_root):
    """Scan the speculative and model-executor trees; returns (sites, files parsed)."""
    sites, files = [], 0
    for sub in SCANNED_TREES:
        base = os.path.join(sglang_root, sub)
        for directory, dirnames, filenames in os.walk(base):
            dirnames.sort()
            for filename in sorted(filenames):
                if not filename.endswith(".py"):
                    continue
                path = os.path.join(directory, filename)
                relpath = os.path.relpath(path, sglang_root)
                tree = index.parse(path)
                files += 1
                sites.extend(scan_file(relpath, tree))
    return sites, files


def _is_required(name, sites):
    if name in EAGLE3_METHODS:
        return True
    return any(site.model == "target" and site.kind == "call" and not site.probed
               and "eagle" in os.path.basename(site.site.split(":")[0])
               and site.site.startswith("srt/speculative/")
               for site in sites)


def entry_class_name(tree, model_file):
    """The first class named by ``EntryClass = X`` or ``EntryClass = [X, ...]``."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "EntryClass" for t in node.targets):
            value = node.value
            if isinstance(value, (ast.List, ast.Tuple)) and value.elts:
                value = value.elts[0]
            if isinstance(value, ast.Name):
                return value.id
    raise SourceError("%s has no EntryClass; set class_name to the wrapper class to audit" % model_file)


def audit(sglang_root, model_file=DEFAULT_MODEL_FILE, class_name=None, inner_attr=DEFAULT_INNER_ATTR):
    """The audit result as a dict (see the eagle3_audit module's RETURN)."""
    sglang_root = check_root(sglang_root)
    index = SourceIndex(os.path.dirname(sglang_root))
    model_path = model_file if os.path.isabs(model_file) else os.path.join(sglang_root, model_file)
    if not os.path.isfile(model_path):
        raise SourceError("model file %s does not exist in this sglang (%s); this version may not "
                          "ship the model" % (model_file, sglang_version(sglang_root)))
    tree = index.parse(model_path)
    class_name = class_name or entry_class_name(tree, model_file)
    wrapper = index.class_in_file(model_path, class_name)
    if wrapper is None:
        raise SourceError("class %s is not defined in %s" % (class_name, model_file))
    inner_classes = index.inner_classes(wrapper, inner_attr)

    sites, files_parsed = scan_tree(index, sglang_root)
    by_name = {}
    for site in sites:
        by_name.setdefault(site.name, []).append(site)
    for name in EAGLE3_METHODS:
        by_name.setdefault(name, [])

    methods = []
    for name in sorted(by_name):
        named_sites = by_name[name]
        on_wrapper = index.provides(wrapper, name)
        on_inner = [index.provides(cls, name) for cls in inner_classes]
        methods.append({
            "name": name,
            "required": _is_required(name, named_sites),
            "call_sites": sorted(set(s.site for s in named_sites), key=_site_key),
            "called_on": sorted(set(s.model for s in named_sites)),
            "wrapper": on_wrapper.as_dict(on_wrapper.owner != wrapper.name) if on_wrapper else None,
            "inner": (on_inner[0].as_dict(on_inner[0].owner != inner_classes[0].name)
                      if all(on_inner) else None),
        })

    required = [m["name"] for m in methods if m["required"]]
    present = [m["name"] for m in methods if m["required"] and m["wrapper"]]
    missing = [m["name"] for m in methods if m["required"] and not m["wrapper"]]
    inner_has = dict((m["name"], m["inner"]) for m in methods)
    return {
        "sglang_root": sglang_root,
        "sglang_version": sglang_version(sglang_root),
        "model_file": os.path.relpath(model_path, sglang_root),
        "class_name": class_name,
        "inner_attr": inner_attr,
        "inner_class": [cls.name for cls in inner_classes],
        "required": required,
        "present": present,
        "missing": missing,
        "delegatable": [n for n in missing if inner_has[n]],
        "undelegatable": [n for n in missing if not inner_has[n]],
        "methods": methods,
        "unresolved_bases": sorted(set(index.unresolved_bases(wrapper))),
        "files_scanned": files_parsed,
    }


def _site_key(site):
    path, line = site.rsplit(":", 1)
    return (path, int(line))
