#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: eagle3_audit
short_description: Audit an installed SGLang for the methods EAGLE-3 calls on a model wrapper
version_added: 0.1.0
description:
  - Reads the installed C(sglang) package without importing it (importing needs torch and a GPU).
  - Finds, by AST over C(srt/speculative/) and C(srt/model_executor/), every method SGLang calls or
    probes with C(hasattr)/C(getattr) on a model object, with its call sites.
  - For each name, tells whether the wrapper class provides it (own method, property, attribute,
    inherited along its MRO from a base class in SGLang's sources, or from C(torch.nn.Module)); when
    normal lookup finds nothing and the wrapper defines C(__getattr__) that forwards to an attribute
    (C(return getattr(self.inner, name))), the forwarded object's class provides it (kind C(forwarded)).
  - Also tells whether the class of its inner language model provides it. That class is followed from
    C(self.<inner_attr> = ...) in the C(__init__) methods the wrapper runs (its own and those its bases
    reach with C(super().__init__)) - a class call, a method that builds it (the subclass's override
    counts, across every class it may return), a class passed up as an argument, a class attribute.
  - The EAGLE path goes beyond C(srt/speculative/*eagle*) - every function of the scanned trees those
    modules reach by calling it (helpers such as the draft-embedding ones of 0.5.21+) counts.
  - What the source does not settle (a class chosen at run time from a registry, C(getattr) on a name,
    a class from another package) is reported in RV(undetermined) with the reason and the site, never guessed.
  - A name is required when EAGLE-3 cannot run without it on the target model; C(missing) lists the
    required names the wrapper lacks, split into C(delegatable) (the inner class has them) and
    C(undelegatable).
  - The EAGLE-3 set (C(set_eagle3_layers_to_capture), C(get_embed_and_head), C(set_embed_and_head))
    is always required.
author:
  - gpufleet.sglang developers (@gpufleet)
options:
  sglang_root:
    description:
      - The installed C(sglang) package directory, for example C(/opt/sglang/venv/lib/python3.12/site-packages/sglang).
      - Exactly one of O(sglang_root) and O(python) is required.
    type: path
  python:
    description:
      - A Python interpreter whose environment has C(sglang) installed, for example C(/opt/sglang/venv/bin/python).
      - The package is located with C(importlib.util.find_spec), which does not import it.
    type: path
  model_file:
    description:
      - The model file to audit, relative to the package directory (or absolute).
    type: str
    default: srt/models/kimi_k25.py
  class_name:
    description:
      - The wrapper class to audit. Defaults to the first class named by the file's C(EntryClass).
    type: str
  inner_attr:
    description:
      - The attribute of the wrapper that holds the wrapped language model.
      - C(auto) picks C(language_model) or C(llm) when C(__init__) assigns it, else what C(__getattr__) forwards
        to, else C(model) when it holds a C(*For*) class.
    type: str
    default: language_model
extends_documentation_fragment:
  - gpufleet.sglang._audit_cache
  - gpufleet.sglang._read_only
notes:
  - The audit reads the source on the managed host; it never imports C(sglang) or C(torch).
seealso:
  - module: gpufleet.sglang.delegation_patch
"""

EXAMPLES = r"""
- name: Audit the Kimi-K2.5 wrapper of the SGLang in a venv
  gpufleet.sglang.eagle3_audit:
    python: /opt/sglang/venv/bin/python
  register: audit

- name: Fail when a launch with EAGLE-3 would crash
  ansible.builtin.assert:
    that: audit.missing | length == 0
    fail_msg: "SGLang {{ audit.sglang_version }} lacks {{ audit.missing | join(', ') }} on {{ audit.class_name }}"

- name: Audit another wrapper
  gpufleet.sglang.eagle3_audit:
    sglang_root: /opt/sglang/venv/lib/python3.12/site-packages/sglang
    model_file: srt/models/kimi_vl.py
    class_name: KimiVLForConditionalGeneration
"""

RETURN = r"""
sglang_root:
  description: The package directory that was audited.
  returned: success
  type: str
  sample: /opt/sglang/venv/lib/python3.12/site-packages/sglang
sglang_version:
  description: The installed version, read from the package's dist-info or version file.
  returned: success
  type: str
  sample: 0.5.9
load_format:
  description: The load format audited for (O(load_format)).
  returned: success
  type: str
  sample: dummy
  version_added: 0.2.2
model_file:
  description: The audited model file, relative to O(sglang_root).
  returned: success
  type: str
  sample: srt/models/kimi_k25.py
class_name:
  description: The audited wrapper class.
  returned: success
  type: str
  sample: KimiK25ForConditionalGeneration
inner_class:
  description: The class or classes C(self.<inner_attr>) is built from.
  returned: success
  type: list
  elements: str
  sample: [DeepseekV3ForCausalLM]
required:
  description: Names the wrapper must provide for EAGLE-3 to run.
  returned: success
  type: list
  elements: str
  sample: [get_embed_and_head, set_eagle3_layers_to_capture, set_embed_and_head]
present:
  description: Required names the wrapper provides.
  returned: success
  type: list
  elements: str
  sample: []
missing:
  description: Required names the wrapper lacks; a launch with EAGLE-3 fails on the first of them.
  returned: success
  type: list
  elements: str
  sample: [get_embed_and_head, set_eagle3_layers_to_capture, set_embed_and_head]
delegatable:
  description: Missing names that the inner class provides, so a delegation fixes them.
  returned: success
  type: list
  elements: str
  sample: [get_embed_and_head, set_eagle3_layers_to_capture, set_embed_and_head]
undelegatable:
  description: Missing names that the inner class does not provide either.
  returned: success
  type: list
  elements: str
  sample: []
undetermined:
  description:
    - What the source does not settle, each with its reason, its site (C(path:line)) and the required names it
      leaves open. A missing name whose inner class is undetermined is in neither RV(delegatable) nor
      RV(undelegatable); a name whose presence on the wrapper is undetermined is not in RV(missing).
  returned: success
  type: list
  elements: dict
  sample:
    - reason: the class is chosen at run time from a registry (instance_class = _SUPPORT_VERSION.get(version))
      site: srt/models/minicpmv.py:1750
      names: [get_embed_and_head, set_eagle3_layers_to_capture, set_embed_and_head]
cached:
  description: Whether the result came from O(cache_dir) (nothing the audit reads had changed).
  returned: success
  type: bool
  sample: true
methods:
  description:
    - Every name found, required or not, with its call sites (C(path:line) relative to O(sglang_root)),
      which model the sites call it on (C(target), C(draft)), its C(status) on the wrapper (C(present),
      C(missing), C(undetermined)), and how the wrapper and the inner class provide it (null when they do not).
  returned: success
  type: list
  elements: dict
  sample:
    - name: get_embed_and_head
      required: true
      status: missing
      call_sites: ["srt/speculative/eagle_worker.py:157"]
      called_on: [target]
      wrapper: null
      inner: {kind: method, defined_in: DeepseekV2ForCausalLM, inherited: true}
unresolved_bases:
  description: Base classes of the wrapper whose source is not in the package (their methods are not seen).
  returned: success
  type: list
  elements: str
  sample: []
files_scanned:
  description: Number of files parsed for call sites.
  returned: success
  type: int
  sample: 30
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpufleet.sglang.plugins.module_utils._audit_cache import DEFAULT_DIR, cached_audit
from ansible_collections.gpufleet.sglang.plugins.module_utils._eagle3_audit import (
    DEFAULT_INNER_ATTR,
    DEFAULT_MODEL_FILE,
)
from ansible_collections.gpufleet.sglang.plugins.module_utils._python_classes import SourceError
from ansible_collections.gpufleet.sglang.plugins.module_utils._sglang_package import (
    PackageError,
    locate_with_python,
)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            sglang_root=dict(type="path"),
            python=dict(type="path"),
            model_file=dict(type="str", default=DEFAULT_MODEL_FILE),
            class_name=dict(type="str"),
            inner_attr=dict(type="str", default=DEFAULT_INNER_ATTR),
            cache_dir=dict(type="path", default=DEFAULT_DIR),
            load_format=dict(type="str", default="auto"),
        ),
        mutually_exclusive=[("sglang_root", "python")],
        required_one_of=[("sglang_root", "python")],
        supports_check_mode=True,
    )
    params = module.params
    root = params["sglang_root"] or locate_with_python(module, params["python"])
    try:
        result, cached = cached_audit(root, params["model_file"], params["class_name"], params["inner_attr"],
                                      params["cache_dir"], write=not module.check_mode,
                                      load_format=params["load_format"])
    except (SourceError, PackageError) as exc:
        module.fail_json(msg=str(exc))
    module.exit_json(changed=False, cached=cached, **result)


if __name__ == "__main__":
    main()
