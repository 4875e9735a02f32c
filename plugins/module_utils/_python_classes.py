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
import collections
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
# Bases from other packages that are torch.nn.Module subclasses (their source is not SGLang's).
NN_MODULE_SUBCLASSES = frozenset(("PreTrainedModel",))


def file_identity(info):
    """What tells a file or directory changed, from its stat result: inode, size, mtime in ns."""
    return [info.st_ino, info.st_size, info.st_mtime_ns]


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
    """The function ``name`` defined in the body of a class (or of a module), or None."""
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


class Undetermined(object):
    """Something the source does not settle: why, and where (path:line)."""

    def __init__(self, reason, site):
        self.reason = reason
        self.site = site


class Resolution(object):
    """The classes an attribute may be built from, and what the source leaves undetermined."""

    def __init__(self):
        self.classes = []
        self.undetermined = []
        self.callers = {}  # id(__init__ node) -> (call, calling __init__, its class), see init_assignments

    def add(self, info):
        if all(known is not info for known in self.classes):
            self.classes.append(info)


class Forwarding(object):
    """A class's ``__getattr__``: the class defining it, and the self attribute it forwards to (or None)."""

    def __init__(self, owner, func, attribute):
        self.owner = owner
        self.attribute = attribute
        self.site = _site(owner.path, func)


def _site(path, node):
    return "%s:%d" % (path, node.lineno)


def _own_nodes(func):
    """The nodes of a function's body, without those of functions and classes nested in it."""
    queue = collections.deque(func.body)
    while queue:
        node = queue.popleft()
        yield node
        queue.extend(child for child in ast.iter_child_nodes(node)
                     if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)))


def _is_self_attribute(node):
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _parameters(func):
    arguments = func.args
    return [a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs]


def _local_values(func, name):
    """The values assigned to the local ``name`` in ``func`` (plain and annotated assignments)."""
    values = []
    for node in _own_nodes(func):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            values.append(node.value)
        elif (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name
              and node.value is not None):
            values.append(node.value)
    return values


def _assigned_in(func, name):
    return bool(_local_values(func, name)) or name in _parameters(func)


def _forwarded_attribute(func):
    """``inner`` when a ``__getattr__`` returns ``getattr(self.inner, <its name parameter>)``, else None."""
    parameters = _parameters(func)
    if len(parameters) < 2:
        return None
    for node in _own_nodes(func):
        value = node.value if isinstance(node, ast.Return) else None
        if (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "getattr"
                and len(value.args) >= 2 and _is_self_attribute(value.args[0])
                and isinstance(value.args[1], ast.Name) and value.args[1].id == parameters[1]):
            return value.args[0].attr
    return None


def _init_handed_to(init):
    """("super", call) when an ``__init__`` calls ``super().__init__``, (base name, call) for
    ``Base.__init__(self, ...)``, else (None, None). Where branches do both, super() is followed."""
    explicit = (None, None)
    for node in _own_nodes(init):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__init__"):
            continue
        receiver = node.func.value
        if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "super":
            return "super", node
        if (explicit[0] is None and isinstance(receiver, (ast.Name, ast.Attribute)) and node.args
                and isinstance(node.args[0], ast.Name) and node.args[0].id == "self"):
            explicit = (ast.unparse(receiver), _without_self(node))
    return explicit


def _without_self(call):
    """``Base.__init__(self, a, b=c)`` as the call ``super().__init__(a, b=c)`` would be."""
    return ast.Call(func=call.func, args=call.args[1:], keywords=call.keywords)


def _passed_argument(func, name, caller):
    """(value node, calling function, its class) for what the caller passed as parameter ``name``, or None."""
    if caller is None:
        return None
    call, calling, calling_class = caller
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value, calling, calling_class
    positional = [a.arg for a in func.args.posonlyargs + func.args.args][1:]  # after self
    if name in positional and not any(isinstance(a, ast.Starred) for a in call.args):
        index = positional.index(name)
        if index < len(call.args):
            return call.args[index], calling, calling_class
    return None


def _parameter_default(func, name):
    arguments = func.args
    positional = arguments.posonlyargs + arguments.args
    defaults = dict(zip([a.arg for a in positional[len(positional) - len(arguments.defaults):]], arguments.defaults))
    defaults.update((a.arg, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None)
    return defaults.get(name)


def _c3_merge(sequences):
    """Python's C3 merge of linearizations (lists of ClassInfo), or None when there is none."""
    sequences = [list(seq) for seq in sequences if seq]
    result = []
    while sequences:
        for seq in sequences:
            head = seq[0]
            if not any(head in other[1:] for other in sequences):
                break
        else:
            return None
        result.append(head)
        sequences = [[c for c in seq if c is not head] for seq in sequences]
        sequences = [seq for seq in sequences if seq]
    return result


def _depth_first(linearizations):
    result = []
    for linear in linearizations:
        result.extend(c for c in linear if c not in result)
    return result


class SourceIndex(object):
    """Parses files on demand and resolves class names across them, each once."""

    def __init__(self, import_root):
        self.import_root = import_root
        self._trees = {}
        self._classes = {}  # (path, qualname) -> ClassInfo or None
        self._bases = {}    # (path, qualname) -> bases() result
        self._mros = {}     # (path, qualname, line) -> mro() result
        self.read = {}      # path -> identity of each file parsed and directory listed, as read

    def parse(self, path):
        path = os.path.abspath(path)
        if path not in self._trees:
            with open(path, "rb") as handle:
                self.read[path] = file_identity(os.fstat(handle.fileno()))
                source = handle.read()
            self._trees[path] = ast.parse(source, filename=path)
        return self._trees[path]

    def listdir(self, directory):
        """os.listdir, with the directory's identity noted in ``read`` (a file added or removed changes it)."""
        self.read[os.path.abspath(directory)] = file_identity(os.stat(directory))
        return os.listdir(directory)

    def add(self, path, tree):
        """Use ``tree`` for ``path`` instead of what is on disk (a text not yet written)."""
        path = os.path.abspath(path)
        self._trees[path] = tree
        for cache in (self._classes, self._bases):
            for key in [key for key in cache if key[0] == path]:
                del cache[key]
        self._mros.clear()

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
            if isinstance(node, ast.ImportFrom) and (node.module or node.level):
                module = self._absolute_module(node, from_path)
                for alias in node.names:
                    if (alias.asname or alias.name) != head or module is None:
                        continue
                    if not node.module:  # from . import submodule
                        target = self.module_path(module + "." + alias.name)
                        return self.resolve(rest, target, seen) if target and rest else None
                    submodule = self.module_path(module + "." + alias.name) if rest else None
                    if submodule is not None:
                        return self.resolve(rest, submodule, seen)
                    target = self.module_path(module)
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

    def _absolute_module(self, node, from_path):
        """The dotted module an ImportFrom names, relative imports (``from .x import y``) made absolute."""
        if not node.level:
            return node.module
        directory = os.path.dirname(os.path.abspath(from_path))
        for dummy in range(node.level - 1):
            directory = os.path.dirname(directory)
        package = os.path.relpath(directory, self.import_root)
        if package.startswith(".."):
            return None
        parts = [] if package == "." else package.split(os.sep)
        return ".".join(parts + ([node.module] if node.module else []))

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
                # transformers' PreTrainedModel (and the like) is a torch.nn.Module.
                is_module = is_module or text.rsplit(".", 1)[-1] in NN_MODULE_SUBCLASSES
            else:
                resolved.append(found)
        return resolved, is_module, unresolved

    def mro(self, info):
        """The classes of ``info``'s method resolution order whose source is on disk, ``info`` first.

        C3 linearization over the resolved bases, as Python computes it; bases whose source is not
        on disk (torch.nn.Module, other packages) are left out. Where C3 has no answer (Python
        would refuse the class), depth-first order stands in.
        """
        key = (info.path, info.name, info.node.lineno)
        if key not in self._mros:
            self._mros[key] = None  # a cycle in the sources ends here
            bases = self.bases(info)[0]
            linear = [self.mro(base) or [base] for base in bases]
            self._mros[key] = [info] + (_c3_merge(linear + [list(bases)]) or _depth_first(linear))
        return self._mros[key]

    def provides(self, info, attribute):
        """How ``info`` provides ``attribute`` (a Provision) by normal lookup along its MRO, or None."""
        chain = self.mro(info)
        for cls in chain:
            kind = cls.members.get(attribute)
            if kind is not None:
                return Provision(kind, cls.name)
        if attribute in NN_MODULE_ATTRIBUTES and any(self.bases(cls)[1] for cls in chain):
            return Provision("method", "torch.nn.Module")
        return None

    def lookup(self, info, attribute):
        """(Provision or None, Undetermined list): normal lookup, then the class's own ``__getattr__``.

        Python consults ``__getattr__`` only when normal lookup fails, so a forwarding
        ``__getattr__`` (``return getattr(self.inner, name)``) provides what the forwarded
        object provides. Only a ``__getattr__`` in the class's own source counts (nn.Module's
        resolves registered submodules, which normal lookup here already covers).
        """
        found = self.provides(info, attribute)
        if found is not None:
            return found, []
        forward = self.forwarding(info)
        if forward is None:
            return None, []
        if forward.attribute is None:
            return None, [Undetermined("%s.__getattr__ answers names the source does not tell (it does not "
                                       "forward to an attribute of self)" % forward.owner.name, forward.site)]
        resolution = self.attribute_classes(info, forward.attribute)
        if resolution.undetermined:
            return None, resolution.undetermined
        provisions = [self.provides(cls, attribute) for cls in resolution.classes]
        if resolution.classes and all(provisions):
            owners = "/".join(p.owner for p in provisions)
            return Provision("forwarded", "%s via %s.__getattr__ to self.%s" % (
                owners, forward.owner.name, forward.attribute)), []
        return None, []

    def forwarding(self, info):
        """The ``__getattr__`` along ``info``'s MRO in the source, as a Forwarding, or None."""
        for cls in self.mro(info):
            func = find_method(cls.node, "__getattr__")
            if func is not None:
                return Forwarding(cls, func, _forwarded_attribute(func))
        return None

    def unresolved_bases(self, info):
        names = []
        for cls in self.mro(info):
            names.extend(self.bases(cls)[2])
        return names

    def init_assignments(self, info, attribute, callers=None):
        """[(value node, __init__ node, class)] for ``self.<attribute> = value`` in the ``__init__``
        methods that constructing ``info`` runs: the first ``__init__`` along the MRO, and the next
        ones as far as each hands on with ``super().__init__`` (or ``Base.__init__(self)``).

        ``callers`` (a dict) is filled with id(__init__ node) -> (the call that reached it, the
        calling __init__, its class), so that a parameter can be followed to what was passed.
        """
        chain = self.mro(info)
        found, position, caller = [], 0, None
        while position < len(chain):
            cls = chain[position]
            init = find_method(cls.node, "__init__")
            if init is None:
                position += 1
                continue
            if callers is not None and caller is not None:
                callers[id(init)] = caller
            found.extend((value, init, cls) for value in self_assignments(init).get(attribute, []))
            handed_to, call = _init_handed_to(init)
            if handed_to is None:
                break
            caller = (call, init, cls)
            position += 1
            if handed_to != "super":
                named = [i for i, c in enumerate(chain) if c.name == handed_to.rsplit(".", 1)[-1]]
                if not named:
                    break  # a base outside the source (nn.Module.__init__(self)) assigns nothing of ours
                position = max(named[0], position)
        return found

    def attribute_classes(self, info, attribute):
        """The classes ``self.<attribute>`` may be built from when ``info`` is constructed (a Resolution).

        Follows a class call, a method of the class (looked up on ``info``, so that a subclass's
        override counts) or a module function by what it returns, and local variables; what the
        source does not tell (a class from a registry, getattr on a string, a parameter) is
        Undetermined with its reason and site. SourceError when the attribute is never assigned.
        """
        resolution = Resolution()
        assignments = self.init_assignments(info, attribute, resolution.callers)
        if not assignments:
            raise SourceError(
                "class %s never assigns self.%s in __init__ (nor in an __init__ of its bases that it reaches "
                "with super().__init__); set inner_attr to the attribute that holds the wrapped language "
                "model" % (info.name, attribute))
        for value, func, owner in assignments:
            self._follow(value, func, owner, info, resolution, 0)
        if not resolution.classes and not resolution.undetermined:
            func, owner = assignments[0][1], assignments[0][2]
            resolution.undetermined.append(Undetermined(
                "self.%s is only assigned None in %s.__init__" % (attribute, owner.name),
                _site(owner.path, assignments[0][0])))
        return resolution

    def inner_classes(self, info, inner_attr):
        """The classes of ``self.<inner_attr>``; SourceError when the source does not settle them."""
        resolution = self.attribute_classes(info, inner_attr)
        if resolution.undetermined:
            first = resolution.undetermined[0]
            raise SourceError("the class of self.%s in %s cannot be determined from the source: %s (%s)"
                              % (inner_attr, info.name, first.reason, first.site))
        return resolution.classes

    def _follow(self, node, func, owner, wrapper, resolution, depth):
        """Add to ``resolution`` the classes the expression ``node`` (inside ``func`` of ``owner``) may build."""
        site = _site(owner.path, node)
        text = ast.unparse(node)
        if depth > 12:
            resolution.undetermined.append(Undetermined("%s is built through too many calls to follow" % text, site))
        elif isinstance(node, ast.Constant) and node.value is None:
            return
        elif isinstance(node, ast.IfExp):
            for branch in (node.body, node.orelse):
                self._follow(branch, func, owner, wrapper, resolution, depth + 1)
        elif isinstance(node, ast.Name):
            self._follow_local(node.id, func, owner, wrapper, resolution, depth, site)
        elif not isinstance(node, ast.Call):
            resolution.undetermined.append(Undetermined("self attribute is set from %s, not a call" % text, site))
        elif _is_self_attribute(node.func):
            method, defined_in = self._method(wrapper, node.func.attr)
            named = None if method is not None else self._class_attribute_class(wrapper, node.func.attr)
            if method is not None:
                self._follow_returns(method, defined_in, wrapper, resolution, depth)
            elif named is not None:
                resolution.add(named)
            else:
                resolution.undetermined.append(Undetermined(
                    "%s calls something %s does not define as a method or class in the source"
                    % (text, wrapper.name), site))
        elif isinstance(node.func, ast.Name) and _assigned_in(func, node.func.id):
            self._follow_local(node.func.id, func, owner, wrapper, resolution, depth, site, called=True)
        elif isinstance(node.func, (ast.Name, ast.Attribute)):
            name = ast.unparse(node.func)
            if name == "getattr":
                resolution.undetermined.append(Undetermined("%s looks a name up at run time" % text, site))
                return
            found = self.resolve(name, owner.path) or self._search_siblings(name, owner.path)
            function = find_method(self.parse(owner.path), name)  # a module-level function
            if found is not None:
                resolution.add(found)
            elif function is not None:
                self._follow_returns(function, owner, wrapper, resolution, depth)
            else:
                resolution.undetermined.append(Undetermined(
                    "%s is not a class or function in a source file found from %s (it comes from "
                    "another package, or is built at run time)" % (name, os.path.basename(owner.path)), site))
        else:
            resolution.undetermined.append(Undetermined("%s calls the result of an expression" % text, site))

    def _follow_local(self, name, func, owner, wrapper, resolution, depth, site, called=False):
        """Follow a local variable to what it is assigned (a parameter to what the caller passed, or
        its default), or say why that does not tell."""
        if depth > 12:
            resolution.undetermined.append(Undetermined("%s is assigned through too many names to follow" % name, site))
            return
        values = _local_values(func, name)
        if not values and name in _parameters(func):
            passed = _passed_argument(func, name, resolution.callers.get(id(func)))
            if passed is not None:
                value, func, owner = passed
                values = [value]
            else:
                values = [v for v in [_parameter_default(func, name)] if v is not None]
        if not values:
            kind = "a parameter" if name in _parameters(func) else "not assigned in %s" % func.name
            resolution.undetermined.append(Undetermined("%s is %s without a default" % (name, kind), site))
            return
        for value in values:
            if called:
                self._follow_class(name, value, value, func, owner, wrapper, resolution, depth, site)
            else:
                self._follow(value, func, owner, wrapper, resolution, depth + 1)

    def _follow_class(self, name, value, whole, func, owner, wrapper, resolution, depth, site):
        """Add the class a local ``name`` (assigned ``whole``; ``value`` is the part followed) names when called."""
        if isinstance(value, ast.IfExp):
            for branch in (value.body, value.orelse):
                self._follow_class(name, branch, whole, func, owner, wrapper, resolution, depth, site)
        elif isinstance(value, ast.Name) and _assigned_in(func, value.id):
            self._follow_local(value.id, func, owner, wrapper, resolution, depth + 1, site, called=True)
        elif isinstance(value, (ast.Name, ast.Attribute)) and self.resolve(ast.unparse(value), owner.path):
            resolution.add(self.resolve(ast.unparse(value), owner.path))
        elif isinstance(value, ast.Subscript) or (
                isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "get"):
            resolution.undetermined.append(Undetermined(
                "the class is chosen at run time from a registry (%s = %s)" % (name, ast.unparse(whole)),
                _site(owner.path, whole)))
        else:
            resolution.undetermined.append(Undetermined(
                "the class is chosen at run time (%s = %s)" % (name, ast.unparse(whole)), _site(owner.path, whole)))

    def _follow_returns(self, function, owner, wrapper, resolution, depth):
        returns = sorted((node for node in _own_nodes(function) if isinstance(node, ast.Return)),
                         key=lambda node: node.lineno)
        returns = [node.value for node in returns]
        if not any(value is not None for value in returns):
            resolution.undetermined.append(Undetermined(
                "%s returns nothing in the source (abstract, or raises)" % function.name, _site(owner.path, function)))
        for value in returns:
            if value is not None:
                self._follow(value, function, owner, wrapper, resolution, depth + 1)

    def _class_attribute_class(self, info, name):
        """The class that ``name = SomeClass`` in a class body along the MRO names, or None."""
        for cls in self.mro(info):
            for stmt in cls.node.body:
                if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
                    return self.resolve(ast.unparse(stmt.value), cls.path)
        return None

    def _method(self, info, name):
        """(FunctionDef, defining ClassInfo) of a method along ``info``'s MRO, or (None, None)."""
        for cls in self.mro(info):
            func = find_method(cls.node, name)
            if func is not None:
                return func, cls
        return None, None

    def _search_siblings(self, name, path):
        """Fallback: look for a top-level class in the .py files next to ``path`` (srt/models/*.py)."""
        directory = os.path.dirname(path)
        simple = name.rsplit(".", 1)[-1]
        needle = ("class %s" % simple).encode()
        for entry in sorted(self.listdir(directory)):
            candidate = os.path.join(directory, entry)
            if entry.endswith(".py") and candidate != path:
                with open(candidate, "rb") as handle:
                    if needle not in handle.read():
                        continue
                found = self.class_in_file(candidate, simple)
                if found is not None:
                    return found
        return None
