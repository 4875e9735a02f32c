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
without it on the target: the EAGLE-3 set below, always, plus any name called on the
target without probing it first on the EAGLE path: the EAGLE modules
(``srt/speculative/*eagle*``) and every function of the scanned trees they reach through
calls (imported helpers such as the draft-embedding ones of 0.5.21+, and what those call).
Everything else found is reported with its call sites, but is not a gap.

What the source does not settle (an inner model whose class is chosen at run time) is
reported as ``undetermined``, with the reason and the site, never guessed.

With ``load_format="dummy"`` (a launch with ``--load-format dummy``, how operators smoke-test a fleet
before the weights arrive), the audit also reads ``srt/model_loader/``: what SGLang's dummy loader (and
what it calls) probes on the model with ``hasattr``/``getattr`` and then calls, it calls on the
top-level model only, so a wrapper that lacks a name its inner model has skips the inner model's step
without a word (0.5.9's Kimi-K2.5 wrapper and ``post_load_weights``: the first request then fails in
the inner model). Such a name is required when the inner model provides it.
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
# Read apart (their functions never join the EAGLE path): where a --load-format dummy launch loads the model.
LOADER_TREES = ("srt/model_loader",)
DUMMY_LOADER = ("srt/model_loader/loader.py", "DummyModelLoader.")
DEFAULT_MODEL_FILE = "srt/models/kimi_k25.py"
DEFAULT_INNER_ATTR = "language_model"
# Where wrappers keep their language model, in the order inner_attr=auto looks for them.
INNER_ATTR_CANDIDATES = ("language_model", "llm", "model")
PROBES = ("hasattr", "getattr")


class CallSite(object):
    def __init__(self, name, site, kind, model, probed, scope):
        self.name = name
        self.site = site
        self.kind = kind        # "call", "hasattr" or "getattr"
        self.model = model      # "target" or "draft"
        self.probed = probed    # the enclosing function probes this name first
        self.scope = scope      # (file, top-level function or Class.method) the site is in


class FileScan(object):
    """One scanned file: its model call sites, and what each of its functions calls (for the EAGLE path)."""

    def __init__(self, relpath, sites, calls, imports):
        self.relpath = relpath
        self.sites = sites
        self.calls = calls          # scope -> names it calls (``f``, or ``Class.m`` for self.m)
        self.imports = imports      # local name -> dotted module it is imported from


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
    """Every model call and probe in one file, and what each of its functions calls (a FileScan), in one walk.

    A scope is a top-level function or a method of a top-level class (``Class.method``); what is
    outside them is scope "". A call counts as probed when the innermost function around it also
    probes that name.
    """
    found, calls, imports = [], {"": set()}, {}
    stack = [(node, "", None, 0) for node in reversed(tree.body)]
    while stack:
        node, scope, class_name, inner = stack.pop()
        if isinstance(node, ast.ClassDef) and not scope:
            class_name = class_name or node.name
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            if not scope and not isinstance(node, ast.Lambda):
                scope = "%s.%s" % (class_name, node.name) if class_name else node.name
                calls.setdefault(scope, set())
            inner = id(node)
        elif isinstance(node, ast.ImportFrom):
            if node.module and node.level == 0:
                imports.update((alias.asname or alias.name, node.module) for alias in node.names)
        elif isinstance(node, ast.Call):
            access = _model_access(node)
            if access is not None:
                found.append((scope, inner, access[0], node.lineno, access[1], access[2]))
            func = node.func
            if isinstance(func, ast.Name):
                calls[scope].add(func.id)
            elif class_name and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                    and func.value.id == "self":
                calls[scope].add("%s.%s" % (class_name, func.attr))
        stack.extend((child, scope, class_name, inner) for child in ast.iter_child_nodes(node))
    probed = set((inner, name) for scope, inner, name, line, kind, receiver in found if kind in PROBES)
    found.sort(key=lambda entry: entry[3])
    sites = [CallSite(name, "%s:%d" % (relpath, line), kind, _model_side(receiver, relpath),
                      (inner, name) in probed, (relpath, scope))
             for scope, inner, name, line, kind, receiver in found]
    return FileScan(relpath, sites, calls, imports)


def scan_tree(index, sglang_root, trees=SCANNED_TREES):
    """Scan the trees (by default the speculative and model-executor ones): {relpath: FileScan}."""
    scans = {}
    for sub in trees:
        for directory, dirnames, filenames in os.walk(os.path.join(sglang_root, sub)):
            index.listdir(directory)
            dirnames.sort()
            for filename in sorted(filenames):
                if filename.endswith(".py"):
                    path = os.path.join(directory, filename)
                    relpath = os.path.relpath(path, sglang_root)
                    scans[relpath] = scan_file(relpath, index.parse(path))
    return scans


def _is_eagle_module(relpath):
    return relpath.startswith("srt/speculative/") and "eagle" in os.path.basename(relpath)


def eagle_path(scans):
    """The (file, scope) pairs on the EAGLE path: every scope of the EAGLE modules, and every
    function of the scanned trees reached from them by a call (local, imported, or self.method)."""
    return reached_from(scans, [(relpath, scope) for relpath in scans if _is_eagle_module(relpath)
                                for scope in scans[relpath].calls])


def dummy_probes(scans):
    """{name: [CallSite]} of what the dummy loader's path probes on the target model (probe and call sites)."""
    relpath, prefix = DUMMY_LOADER
    seeds = [(relpath, scope) for scope in scans[relpath].calls if scope.startswith(prefix)] if relpath in scans else []
    path = reached_from(scans, seeds)
    sites = [site for scan in scans.values() for site in scan.sites if site.scope in path and site.model == "target"]
    probed = set(site.name for site in sites if site.kind in PROBES)
    return dict((name, [site for site in sites if site.name == name]) for name in sorted(probed))


def reached_from(scans, todo):
    """The (file, scope) pairs reached from ``todo`` by calls (local, imported, or self.method)."""
    module_files = dict(("sglang." + relpath[:-3].replace("/", "."), relpath) for relpath in scans)
    todo = list(todo)
    reached = set()
    while todo:
        relpath, scope = todo.pop()
        if (relpath, scope) in reached:
            continue
        reached.add((relpath, scope))
        scan = scans[relpath]
        for name in scan.calls.get(scope, ()):
            target = relpath if name in scan.calls else module_files.get(scan.imports.get(name))
            if target is not None and name in scans[target].calls:
                todo.append((target, name))
    return reached


def _is_required(name, sites, path):
    if name in EAGLE3_METHODS:
        return True
    return any(site.model == "target" and site.kind == "call" and not site.probed and site.scope in path
               for site in sites)


def entry_class_names(tree):
    """Every class name listed by ``EntryClass = X`` or ``EntryClass = [X, ...]``."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "EntryClass" for t in node.targets):
            value = node.value
            values = value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]
            return [v.id for v in values if isinstance(v, ast.Name)]
    return []


def entry_class_name(tree, model_file):
    """The first class named by ``EntryClass``."""
    names = entry_class_names(tree)
    if not names:
        raise SourceError("%s has no EntryClass; set class_name to the wrapper class to audit" % model_file)
    return names[0]


class Auditor(object):
    """Audits the wrapper classes of one installed SGLang, on one parse of its trees."""

    def __init__(self, sglang_root):
        self.root = check_root(sglang_root)
        self.index = SourceIndex(os.path.dirname(self.root))
        self.index.listdir(os.path.dirname(self.root))  # the dist-info the version is read from
        self.version = sglang_version(self.root)
        scans = scan_tree(self.index, self.root)
        path = eagle_path(scans)
        self.sites = dict((name, []) for name in EAGLE3_METHODS)
        for scan in scans.values():
            for site in scan.sites:
                self.sites.setdefault(site.name, []).append(site)
        self.required = dict((name, _is_required(name, sites, path)) for name, sites in self.sites.items())
        loader_scans = scan_tree(self.index, self.root, LOADER_TREES)
        self.dummy_sites = dummy_probes(loader_scans)
        self.files_scanned = len(scans) + len(loader_scans)

    def relative(self, site):
        path, line = site.rsplit(":", 1)
        if path.startswith(self.root + os.sep):
            path = os.path.relpath(path, self.root)
        return "%s:%s" % (path, line)

    def inner_attribute(self, wrapper):
        """The attribute that holds a wrapper's language model (inner_attr=auto), or None:
        self.language_model or self.llm, else what ``__getattr__`` forwards to, else self.model
        when it is built from a ``*For*`` class (or the source cannot tell what it is built from)."""
        for attribute in INNER_ATTR_CANDIDATES[:-1]:
            if self.index.init_assignments(wrapper, attribute):
                return attribute
        forward = self.index.forwarding(wrapper)
        if forward is not None and forward.attribute:
            return forward.attribute
        if self.index.init_assignments(wrapper, "model"):
            inner = self.index.attribute_classes(wrapper, "model")
            if inner.undetermined or all("For" in cls.name for cls in inner.classes):
                return "model"
        return None

    def audit(self, model_file=DEFAULT_MODEL_FILE, class_name=None, inner_attr=DEFAULT_INNER_ATTR, load_format="auto"):
        """The audit result as a dict (see the eagle3_audit module's RETURN)."""
        model_path = model_file if os.path.isabs(model_file) else os.path.join(self.root, model_file)
        if not os.path.isfile(model_path):
            raise SourceError("model file %s does not exist in this sglang (%s); this version may not "
                              "ship the model" % (model_file, self.version))
        class_name = class_name or entry_class_name(self.index.parse(model_path), model_file)
        wrapper = self.index.class_in_file(model_path, class_name)
        if wrapper is None:
            raise SourceError("class %s is not defined in %s" % (class_name, model_file))
        if inner_attr in (None, "auto"):
            inner_attr = self.inner_attribute(wrapper)
            if inner_attr is None:
                raise SourceError("class %s holds no language model in self.%s, and forwards nothing with "
                                  "__getattr__; set inner_attr to the attribute that holds it"
                                  % (wrapper.name, ", self.".join(INNER_ATTR_CANDIDATES)))
        inner = self.index.attribute_classes(wrapper, inner_attr)
        undetermined = _Undetermined(self.relative)

        settled = bool(inner.classes) and not inner.undetermined
        dummy = self.dummy_sites if load_format == "dummy" else {}
        methods = []
        for name in sorted(set(self.sites) | set(dummy)):
            sites = self.sites.get(name, []) + dummy.get(name, [])
            on_wrapper, unknown = self.index.lookup(wrapper, name)
            on_inner = [self.index.provides(cls, name) for cls in inner.classes]
            # A name the dummy loader probes is skipped on a wrapper that lacks it: a gap when the inner model has it.
            required = self.required.get(name, False) or (name in dummy and settled and all(on_inner))
            undetermined.add(unknown, [name] if required else [])
            methods.append({
                "name": name,
                "required": required,
                "status": "present" if on_wrapper else ("undetermined" if unknown else "missing"),
                "call_sites": sorted(set(s.site for s in sites), key=_site_key),
                "called_on": sorted(set(s.model for s in sites)),
                "wrapper": on_wrapper.as_dict(on_wrapper.owner != wrapper.name) if on_wrapper else None,
                "inner": (on_inner[0].as_dict(on_inner[0].owner != inner.classes[0].name)
                          if settled and all(on_inner) else None),
            })

        required = [m for m in methods if m["required"]]
        missing = [m for m in required if m["status"] == "missing"]
        # An undetermined inner class leaves open whether the missing names can be delegated.
        undetermined.add(inner.undetermined, [m["name"] for m in missing])
        return {
            "sglang_root": self.root,
            "sglang_version": self.version,
            "load_format": load_format,
            "model_file": os.path.relpath(model_path, self.root),
            "class_name": class_name,
            "inner_attr": inner_attr,
            "inner_class": [cls.name for cls in inner.classes],
            "required": [m["name"] for m in required],
            "present": [m["name"] for m in required if m["status"] == "present"],
            "missing": [m["name"] for m in missing],
            "delegatable": [m["name"] for m in missing if m["inner"]],
            "undelegatable": [m["name"] for m in missing if not m["inner"] and not inner.undetermined],
            "undetermined": undetermined.entries,
            "methods": methods,
            "unresolved_bases": sorted(set(self.index.unresolved_bases(wrapper))),
            "files_scanned": self.files_scanned,
        }

    def wrappers(self):
        """(model file, class, inner attribute) for every class an ``EntryClass`` of srt/models/ lists
        that holds a language model: in self.language_model or self.llm, behind __getattr__, or in
        self.model when that is built from a ``*For*`` class or the source cannot tell."""
        models = os.path.join(self.root, "srt", "models")
        for filename in sorted(self.index.listdir(models)):
            if not filename.endswith(".py"):
                continue
            path = os.path.join(models, filename)
            for class_name in entry_class_names(self.index.parse(path)):
                info = self.index.class_in_file(path, class_name)
                attribute = info and self.inner_attribute(info)
                if attribute is not None:
                    yield "srt/models/" + filename, class_name, attribute

    def audit_all(self):
        """The audit of every wrapper (see wrappers()), as a list of results."""
        return [self.audit(model_file, class_name, inner_attr)
                for model_file, class_name, inner_attr in self.wrappers()]


class _Undetermined(object):
    """What the source leaves open, each reason once: {reason, site, names} with the required names it affects."""

    def __init__(self, relative):
        self.relative = relative
        self.entries = []

    def _entry(self, item):
        site = self.relative(item.site)
        for entry in self.entries:
            if entry["reason"] == item.reason and entry["site"] == site:
                return entry
        entry = {"reason": item.reason, "site": site, "names": []}
        self.entries.append(entry)
        return entry

    def add(self, items, names):
        for item in items:
            entry = self._entry(item)
            entry["names"] = sorted(set(entry["names"]) | set(names))


def audit(sglang_root, model_file=DEFAULT_MODEL_FILE, class_name=None, inner_attr=DEFAULT_INNER_ATTR,
          load_format="auto"):
    """The audit of one wrapper class (see Auditor.audit)."""
    return Auditor(sglang_root).audit(model_file, class_name, inner_attr, load_format)


def _site_key(site):
    path, line = site.rsplit(":", 1)
    return (path, int(line))


def refusals(result, undelegatable):
    """What keeps an EAGLE-3 launch from working after a patch, one sentence each with what to do:
    required names the patch could not delegate (the inner class lacks them), and names the source
    cannot settle. ``result`` is the audit of the file before the patch."""
    found = []
    where = "%s in %s (SGLang %s)" % (result["class_name"], result["model_file"], result["sglang_version"])
    if undelegatable:
        sites = [site for method in result["methods"] if method["name"] in undelegatable for site in method["call_sites"]]
        found.append("%s still lacks %s, which SGLang's EAGLE-3 path calls on the target model (%s), and %s does not "
                     "have %s to delegate to. Use an SGLang release that provides them or patch the model code by hand."
                     % (where, ", ".join(undelegatable), ", ".join(sites), "/".join(result.get("inner_class") or []),
                        "it" if len(undelegatable) == 1 else "them"))
    undetermined = [item for item in result.get("undetermined") or [] if item.get("names")]
    if undetermined:
        found.append("The audit of %s cannot tell from the source whether EAGLE-3 will find what it needs: %s. Give "
                     "inner_attr the attribute that holds the language model, or check the class by hand and let the "
                     "gap pass (fail_on_gaps false; the patch role's sglang_patch_fail_on_gaps)."
                     % (where, "; ".join("%s at %s" % (item["reason"], item["site"]) for item in undetermined)))
    return found
