#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: delegation_patch
short_description: Add delegation methods to a Python class in one managed block
version_added: 0.1.0
description:
  - Adds one marked block at the end of a class body with one method per name, each forwarding
    C(*args, **kwargs) to C(self.<inner_attr>.<name>); a property on the inner class becomes a property.
  - Made for SGLang's multimodal wrappers (such as C(KimiK25ForConditionalGeneration)) that wrap a language
    model but do not delegate the methods EAGLE-3 calls on the target model.
  - Never adds a method the class already has (own or inherited); a block with a different set of methods
    is rewritten, not duplicated. O(state=absent) removes the block and gives back the original bytes.
  - The new text must compile before it replaces the file; the write is atomic and keeps owner, group and
    mode. Line endings and indentation follow the file.
  - On bad input the module fails with a message that says what to change, and the file is not touched.
  - When O(path) is a symbolic link, the file it points to is patched and the link is kept as it is
    (RV(target) says which file that was); O(state=absent) gives back that file's original bytes.
  - With O(python) and O(model_file) instead of O(path), the module finds the installed SGLang itself and,
    with O(methods=auto), returns the EAGLE-3 audit it patched from (RV(audit)), so one task audits and patches.
author:
  - gpufleet.sglang developers (@gpufleet)
options:
  path:
    description:
      - The Python file that defines the class.
      - One of O(path) and O(python) is required.
    type: path
  python:
    description:
      - The interpreter of the venv that has SGLang; the file is O(model_file) below its C(sglang) package.
      - In check mode, an interpreter that does not exist yet (the install that creates it has not run) is
        reported with RV(installed=false) instead of failing.
    type: path
  model_file:
    description: With O(python), the model file relative to the C(sglang) package directory.
    type: str
    default: srt/models/kimi_k25.py
  class_name:
    description:
      - The class to patch; a nested class is written C(Outer.Inner).
      - Required, except with O(methods=auto), where the audit finds the model's class.
    type: str
  instance:
    description:
      - The SGLang instance whose server runs this code. When the file changes (outside check mode), a restart
        of it is recorded as owed on the host, as M(gpufleet.sglang.staged_settings) with
        O(gpufleet.sglang.staged_settings#module:state=owe) does; with O(python), only when the live unit runs that venv.
    type: str
  inner_attr:
    description: The attribute, assigned in C(__init__), that holds the object to delegate to.
    type: str
    default: language_model
  methods:
    description:
      - The names to delegate, as a list.
      - C(auto) takes the names the SGLang EAGLE-3 audit (M(gpufleet.sglang.eagle3_audit)) requires
        of this class; names the inner class lacks are then reported in RV(undelegatable) instead of failing.
      - With a list, a name the inner class lacks is an error.
      - Required when O(state=present).
    type: raw
  sglang_root:
    description:
      - The installed C(sglang) package directory, used with O(methods=auto).
      - Defaults to the top-level package that contains O(path); may be given with it.
    type: path
  fail_on_gaps:
    description:
      - With O(methods=auto), fail when a method EAGLE-3 requires stays missing after the patch (the inner class lacks
        it) or the audit cannot settle it from the source, naming each with its call sites and what to do. The patch
        of what could be delegated is made first.
    type: bool
    default: false
  state:
    description: Whether the managed block should be present or absent.
    type: str
    choices: [present, absent]
    default: present
  backup:
    description: Keep a timestamped copy of the file (same owner and mode) before changing it.
    type: bool
    default: false
attributes:
  check_mode:
    description: Can run in check mode and return changed status prediction without modifying the target.
    support: full
    details: Computes and reports the change, including the diff, and writes nothing.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check mode), when in diff mode.
    support: full
    details: Shows a unified diff of the file.
extends_documentation_fragment:
  - gpufleet.sglang._audit_cache
seealso:
  - module: gpufleet.sglang.eagle3_audit
"""

EXAMPLES = r"""
- name: Delegate what EAGLE-3 needs from the Kimi-K2.5 wrapper to its language model
  gpufleet.sglang.delegation_patch:
    path: /opt/sglang/venv/lib/python3.12/site-packages/sglang/srt/models/kimi_k25.py
    class_name: KimiK25ForConditionalGeneration
    methods: auto
  notify: Restart sglang

- name: Audit the installed SGLang and delegate what EAGLE-3 needs, in one task; record the restart owed
  gpufleet.sglang.delegation_patch:
    python: /opt/sglang/venvs/sglang-0.5.9/bin/python
    model_file: srt/models/kimi_k25.py
    methods: auto
    instance: kimi
  register: patched

- name: Delegate an explicit list of methods
  gpufleet.sglang.delegation_patch:
    path: /srv/app/models/wrapper.py
    class_name: VisionWrapper
    inner_attr: language_model
    methods:
      - get_embed_and_head
      - set_eagle3_layers_to_capture
    backup: true

- name: Remove the managed block again
  gpufleet.sglang.delegation_patch:
    path: /srv/app/models/wrapper.py
    class_name: VisionWrapper
    state: absent
"""

RETURN = r"""
target:
  description: The file that was read and written; O(path) itself, or the file a symbolic link at O(path) points to.
  returned: success
  type: str
  sample: /opt/sglang/venvs/sglang-0.5.9/lib/python3.11/site-packages/sglang/srt/models/kimi_k25.py
delegated:
  description: The names in the managed block after the run.
  returned: always
  type: list
  elements: str
  sample: [get_embed_and_head, set_eagle3_layers_to_capture, set_embed_and_head]
previous:
  description: The names in the managed block before the run.
  returned: always
  type: list
  elements: str
  sample: []
already_present:
  description: Requested names the class already has without the block; they are not added.
  returned: always
  type: list
  elements: str
  sample: []
undelegatable:
  description: With O(methods=auto), required names that neither the class nor its inner class has.
  returned: always
  type: list
  elements: str
  sample: []
audit:
  description:
    - With O(methods=auto), the EAGLE-3 audit the patch was made from (as M(gpufleet.sglang.eagle3_audit) returns it,
      C(cached) included).
  returned: when methods is auto
  type: dict
  sample: {sglang_version: "0.5.9", class_name: KimiK25ForConditionalGeneration, required: [get_embed_and_head],
           missing: [get_embed_and_head], undetermined: []}
installed:
  description: With O(python), whether that interpreter exists (false only in check mode, before the install).
  returned: always
  type: bool
owed:
  description: Whether a restart of O(instance) was recorded as owed.
  returned: always
  type: bool
backup_file:
  description: The backup copy, when O(backup=true) and the file changed.
  returned: changed and backup requested
  type: str
  sample: /opt/sglang/venv/lib/python3.12/site-packages/sglang/srt/models/kimi_k25.py.12345.2026-12-02@12:00:00~
"""

import os
import tempfile

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpufleet.sglang.plugins.module_utils._delegation import PatchError, plan_patch
from ansible_collections.gpufleet.sglang.plugins.module_utils._audit_cache import DEFAULT_DIR, cached_audit
from ansible_collections.gpufleet.sglang.plugins.module_utils._eagle3_audit import refusals
from ansible_collections.gpufleet.sglang.plugins.module_utils._python_classes import (
    SourceError,
    import_root_of,
)
from ansible_collections.gpufleet.sglang.plugins.module_utils._sglang_package import PackageError, locate_with_python
from ansible_collections.gpufleet.sglang.plugins.module_utils import _staged_settings as staged


def package_root_of(path):
    """The top-level package directory that contains ``path``."""
    import_root = import_root_of(path)
    top = os.path.relpath(os.path.abspath(path), import_root).split(os.sep, maxsplit=1)[0]
    return os.path.join(import_root, top)


def requested_methods(module, path, audited_file):
    """(names, strict, audit) from the methods option; auto asks the EAGLE-3 audit of audited_file."""
    params = module.params
    methods = params["methods"]
    if methods in ("auto", ["auto"]):
        root = params["sglang_root"] or package_root_of(path)
        try:
            result, cached = cached_audit(root, audited_file, params["class_name"], params["inner_attr"],
                                          params["cache_dir"], write=not module.check_mode,
                                          load_format=params["load_format"])
        except (SourceError, PackageError) as exc:
            module.fail_json(msg="methods=auto needs the EAGLE-3 audit, which failed: %s" % exc)
        return result["required"], False, dict(result, cached=cached)
    if isinstance(methods, str):
        methods = [m.strip() for m in methods.split(",") if m.strip()]
    if not isinstance(methods, list) or not methods or not all(isinstance(m, str) and m.isidentifier() for m in methods):
        module.fail_json(msg="methods must be 'auto' or a non-empty list of method names, got %r" % (methods,))
    return methods, True, None


def write_atomically(module, path, text):
    """Write next to the file, then rename over it; atomic_move keeps owner, group and mode."""
    fd, tmp = tempfile.mkstemp(prefix=".%s." % os.path.basename(path), dir=os.path.dirname(os.path.abspath(path)))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8"))
        module.atomic_move(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            path=dict(type="path"),
            python=dict(type="path"),
            model_file=dict(type="str", default="srt/models/kimi_k25.py"),
            class_name=dict(type="str"),
            instance=dict(type="str"),
            inner_attr=dict(type="str", default="language_model"),
            methods=dict(type="raw"),
            sglang_root=dict(type="path"),
            state=dict(type="str", choices=["present", "absent"], default="present"),
            backup=dict(type="bool", default=False),
            cache_dir=dict(type="path", default=DEFAULT_DIR),
            load_format=dict(type="str", default="auto"),
            fail_on_gaps=dict(type="bool", default=False),
        ),
        required_if=[("state", "present", ("methods",))],
        mutually_exclusive=[("path", "python"), ("python", "sglang_root")],
        required_one_of=[("path", "python")],
        supports_check_mode=True,
    )
    params = module.params
    path, audited_file, venv = params["path"], params["path"], None
    if params["python"]:
        if module.check_mode and not os.path.exists(params["python"]):
            module.exit_json(changed=False, installed=False, owed=False, delegated=[], previous=[],
                             already_present=[], undelegatable=[],
                             msg="%s does not exist yet (check mode): the audit and the patch run after the install"
                                 % params["python"])
        params["sglang_root"] = locate_with_python(module, params["python"])
        path = os.path.join(params["sglang_root"], params["model_file"])
        audited_file = params["model_file"]
        venv = os.path.dirname(os.path.dirname(params["python"]))
    if not os.path.isfile(path):
        module.fail_json(msg="%s does not exist or is not a file; give path= the Python file that "
                             "defines %s" % (path, params["class_name"]))

    methods, strict, audit = (requested_methods(module, path, audited_file) if params["state"] == "present"
                              else ([], True, None))
    class_name = params["class_name"] or (audit or {}).get("class_name")
    if not class_name:
        module.fail_json(msg="class_name is required unless methods is auto (the audit finds the model's class)")
    target = os.path.realpath(path)  # a symbolic link is kept; the file it points to is patched
    with open(target, "rb") as handle:
        data = handle.read()
    try:
        plan = plan_patch(path, data, class_name, params["inner_attr"], methods,
                          params["state"], strict=strict)
    except PatchError as exc:
        module.fail_json(msg=str(exc))

    result = dict(
        installed=True,
        owed=False,
        changed=plan.changed,
        delegated=plan.delegated,
        previous=plan.previous,
        already_present=plan.already_present,
        undelegatable=plan.lacking,
        target=target,
    )
    if audit is not None:
        result["audit"] = audit
    if module._diff:
        result["diff"] = dict(before=plan.original, after=plan.new,
                              before_header=path, after_header=path)
    if plan.changed and not module.check_mode:
        if params["backup"]:
            result["backup_file"] = module.backup_local(target)
        write_atomically(module, target, plan.new)
        if params["instance"]:
            reason = "%s patched in %s" % (params["model_file"] if params["python"] else path, venv or "its venv")
            result["owed"] = staged.owe(staged.Layout(params["instance"]), reason, venv)
    if audit is not None:
        result["msg"] = "SGLang %s %s %s: required %s; %s; %s: %s" % (
            audit["sglang_version"], audit["model_file"], audit["class_name"], ", ".join(audit["required"]),
            "missing before: " + ", ".join(audit["missing"]) if audit["missing"] else "nothing missing",
            "would delegate" if module.check_mode else "delegated", ", ".join(plan.delegated) or "none")
        problems = refusals(audit, plan.lacking) if params["fail_on_gaps"] else []
        if problems:
            result["msg"] = " ".join(problems)
            module.fail_json(**result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
