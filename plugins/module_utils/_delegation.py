# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Add, rewrite or remove a managed block of delegation methods at the end of a class body.

The block is a run of whole lines between two marker comments. Adding it inserts
exactly those lines after the class's last statement; removing it deletes exactly
those lines, so add followed by remove gives back the original bytes. The file's
line endings and the class's indentation are reused for the generated lines.
"""

from __future__ import annotations

import ast
import os

from ansible_collections.gpufleet.sglang.plugins.module_utils._python_classes import (
    ClassInfo,
    SourceError,
    SourceIndex,
    import_root_of,
    iter_classes,
)

BEGIN_MARKER = "# BEGIN gpufleet.sglang delegation_patch: managed block, edits here are overwritten"
END_MARKER = "# END gpufleet.sglang delegation_patch"


class PatchError(Exception):
    """The patch cannot be applied; the message says what to change. Nothing was written."""


class Plan(object):
    """What a patch run would do: the new text and the names behind the change."""

    def __init__(self, original, new, delegated, already_present, lacking, previous):
        self.original = original
        self.new = new
        self.delegated = delegated              # names in the managed block after the run
        self.already_present = already_present  # requested names the class has without the block
        self.lacking = lacking                  # requested names the inner class does not have
        self.previous = previous                # names in the managed block before the run

    @property
    def changed(self):
        return self.new != self.original


def decode_source(data, path):
    """(text, AST) of a Python source file, or PatchError when it is not one."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise PatchError("%s is not a UTF-8 Python source file; give path= a .py file" % path)
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as exc:
        raise PatchError("%s is not valid Python (line %s: %s); give path= a Python source file "
                         "that compiles" % (path, exc.lineno, exc.msg))
    return text, tree


def newline_of(text):
    index = text.find("\n")
    return "\r\n" if index > 0 and text[index - 1] == "\r" else "\n"


def _line_offsets(text):
    """Character offset at which each 1-based line starts (index 0 unused), plus len(text)."""
    offsets = [0, 0]
    position = text.find("\n")
    while position != -1:
        offsets.append(position + 1)
        position = text.find("\n", position + 1)
    offsets.append(len(text))
    return offsets


def _indent_of(line):
    return line[:len(line) - len(line.lstrip(" \t"))]


def find_class(tree, class_name, path):
    matches = [(qualname, node) for qualname, node in iter_classes(tree)
               if qualname == class_name or (node.name == class_name and "." not in class_name)]
    if not matches:
        raise PatchError("class %s is not defined in %s; check class_name (nested classes are "
                         "written Outer.Inner)" % (class_name, path))
    if len(matches) > 1:
        qualnames = ", ".join(qualname for qualname, node in matches)
        raise PatchError("class %s is defined %d times in %s (%s); give class_name as the dotted "
                         "name of one of them" % (class_name, len(matches), path, qualnames))
    return matches[0][1]


def _body_indent(text_lines, class_node, path):
    first = class_node.body[0]
    if first.lineno == class_node.lineno:
        raise PatchError("the body of class %s in %s is on its class line; put it on lines of "
                         "its own first" % (class_node.name, path))
    class_indent = _indent_of(text_lines[class_node.lineno - 1])
    body_indent = _indent_of(text_lines[first.lineno - 1])
    return body_indent, body_indent[len(class_indent):] or "    "


def _find_block(text_lines, class_node, body_indent, path):
    """(first, last) 1-based line numbers of the managed block in this class, or None."""
    begin = None
    for number in range(class_node.lineno, class_node.end_lineno + 1):
        if text_lines[number - 1].rstrip("\r") == body_indent + BEGIN_MARKER:
            begin = number
            break
    if begin is None:
        return None
    for number in range(begin + 1, len(text_lines) + 1):
        if text_lines[number - 1].rstrip("\r") == body_indent + END_MARKER:
            # The blank line that render_block puts before the BEGIN marker belongs to the block.
            if text_lines[begin - 2].strip() == "":
                begin -= 1
            return begin, number
    raise PatchError("the managed block in class %s of %s has a BEGIN marker (line %d) but no END "
                     "marker; restore the file (reinstall the package) and run again"
                     % (class_node.name, path, begin))


def remove_block(text, tree, class_name, path):
    """(text without the managed block, names that were in it); ``tree`` is the AST of ``text``."""
    class_node = find_class(tree, class_name, path)
    lines = text.split("\n")
    body_indent = _body_indent(lines, class_node, path)[0]
    block = _find_block(lines, class_node, body_indent, path)
    if block is None:
        return text, []
    first, last = block
    block_tree = [n for n in class_node.body if first < n.lineno < last]
    names = [n.name for n in block_tree if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    offsets = _line_offsets(text)
    start, end = offsets[first], offsets[last + 1]
    if last == len(lines):
        # The block closed the file without a final newline: it was added with one before it.
        start -= len(newline_of(text))
    return text[:start] + text[end:], names


def render_block(names, inner_attr, properties, body_indent, unit, newline):
    lines = ["", body_indent + BEGIN_MARKER]
    for position, name in enumerate(names):
        if position:
            lines.append("")
        if name in properties:
            lines.append(body_indent + "@property")
            lines.append(body_indent + "def %s(self):" % name)
            lines.append(body_indent + unit + "return self.%s.%s" % (inner_attr, name))
        else:
            lines.append(body_indent + "def %s(self, *args, **kwargs):" % name)
            lines.append(body_indent + unit + "return self.%s.%s(*args, **kwargs)" % (inner_attr, name))
    lines.append(body_indent + END_MARKER)
    return newline.join(lines)


def insert_block(text, class_node, block, newline):
    """Insert the block's lines after the last statement of the class body."""
    offsets = _line_offsets(text)
    after_line = class_node.body[-1].end_lineno
    position = offsets[after_line + 1]
    if position == len(text) and not text.endswith("\n"):
        return text + newline + block
    return text[:position] + block + newline + text[position:]


def plan_patch(path, data, class_name, inner_attr, methods, state, strict=True, index=None):
    """Work out the new file content. ``strict``: a name the inner class lacks is an error;
    otherwise such names are left out and reported in ``lacking``."""
    text, tree = decode_source(data, path)
    base, old_names = remove_block(text, tree, class_name, path)
    if state == "absent":
        return Plan(text, base, [], [], [], old_names)

    if base != text:
        tree = ast.parse(base, filename=path)
    class_node = find_class(tree, class_name, path)
    index = index or SourceIndex(import_root_of(path))
    index.add(path, tree)
    wrapper = ClassInfo(class_node, os.path.abspath(path))
    try:
        inner_classes = index.inner_classes(wrapper, inner_attr)
    except SourceError as exc:
        raise PatchError(str(exc))

    wanted = []
    for name in methods:
        if name not in wanted:
            wanted.append(name)
    already = [n for n in wanted if index.lookup(wrapper, n)[0] is not None]
    inner = dict((n, [index.provides(cls, n) for cls in inner_classes]) for n in wanted)
    lacking = [n for n in wanted if n not in already and not all(inner[n])]
    if lacking and strict:
        raise PatchError("%s (the class of self.%s) does not have %s, so %s cannot delegate %s; "
                         "remove %s from methods" % (
                             "/".join(c.name for c in inner_classes), inner_attr, ", ".join(lacking),
                             class_name, "it" if len(lacking) == 1 else "them",
                             "it" if len(lacking) == 1 else "them"))
    delegated = [n for n in wanted if n not in already and n not in lacking]
    if not delegated:
        return Plan(text, base, [], already, lacking, old_names)

    properties = set(n for n in delegated if inner[n][0].kind == "property")
    newline = newline_of(base)
    body_indent, unit = _body_indent(base.split("\n"), class_node, path)
    block = render_block(delegated, inner_attr, properties, body_indent, unit, newline)
    new = insert_block(base, class_node, block, newline)
    try:
        compile(new, path, "exec")
    except SyntaxError as exc:
        raise PatchError("the patched %s would not compile (line %s: %s); the file was left as it "
                         "was" % (path, exc.lineno, exc.msg))
    return Plan(text, new, delegated, already, lacking, old_names)
