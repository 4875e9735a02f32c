#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: draft_check
short_description: Check an EAGLE-3 draft on the host against what SGLang checks at startup
version_added: 0.2.0
description:
  - Reads the C(config.json) of a draft model directory on the host and reports whether it is there, whether it
    is an EAGLE-3 draft (an C(eagle_config), or an C(*Eagle3*) architecture), and the context length SGLang
    derives from it.
  - Fails, with SGLang's own error and what to change, when the draft's context is shorter than the served one
    (O(context_length)) and O(allow_longer_context) is false, which SGLang refuses at startup after the target
    model has loaded.
  - A draft that is not on the host (a Hugging Face repository id that SGLang downloads) has no file to read;
    RV(found) is false and nothing else is checked.
author:
  - gpufleet.sglang developers (@gpufleet)
options:
  path:
    description: The draft's directory on the host.
    type: path
    required: true
  context_length:
    description: The context length the server serves (C(sglang_context_length)); 0 checks nothing.
    type: int
    default: 0
  allow_longer_context:
    description: Whether the server runs with C(SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1), which lets a draft with a shorter context serve.
    type: bool
    default: false
  require_eagle3:
    description:
      - Fail, saying what to change, when the draft on the host is not an EAGLE-3 draft (the server runs
        C(--speculative-algorithm EAGLE3)).
    type: bool
    default: false
    version_added: 0.2.1
extends_documentation_fragment:
  - gpufleet.sglang._read_only
"""

EXAMPLES = r"""
- name: Check the draft's context against the served one
  gpufleet.sglang.draft_check:
    path: /var/lib/sglang/models/drafts/AQ-MedAI--Kimi-K25-eagle3
    context_length: 262144
    allow_longer_context: true
  register: draft
"""

RETURN = r"""
found:
  description: Whether the draft's C(config.json) exists on the host.
  returned: always
  type: bool
eagle3:
  description: Whether it is an EAGLE-3 draft.
  returned: always
  type: bool
architectures:
  description: The draft's C(architectures).
  returned: always
  type: list
  elements: str
context_length:
  description: The context length SGLang derives from the draft's config, or null when it is not on the host.
  returned: always
  type: int
  sample: 131072
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpufleet.sglang.plugins.module_utils import _host_files, _sglang_config


def main():
    module = AnsibleModule(
        argument_spec=dict(
            path=dict(type="path", required=True),
            context_length=dict(type="int", default=0),
            allow_longer_context=dict(type="bool", default=False),
            require_eagle3=dict(type="bool", default=False),
        ),
        supports_check_mode=True,
    )
    params = module.params
    config_path = os.path.join(params["path"], "config.json")
    result = dict(changed=False, found=False, eagle3=False, architectures=[], context_length=None)
    try:
        config = _host_files.read_json(config_path, _host_files.CONFIG_LIMIT, "config.json")
    except _host_files.HostFileError as exc:
        module.fail_json(msg="The draft's %s. Nothing was stopped: stage the draft again (it comes from a mirror, "
                         "and what it holds is not a model's config)." % exc, **result)
    if config is None:
        module.exit_json(**result)
    problem = _sglang_config.config_problem(config)
    if problem:
        module.fail_json(msg="The draft's %s is not a config SGLang can load: %s. Nothing was stopped: stage a "
                         "draft whose config.json is a model's." % (config_path, problem), **result)
    result.update(found=True, eagle3=_sglang_config.is_eagle3_draft(config),
                  architectures=list(config.get("architectures") or []),
                  context_length=_sglang_config.context_length(config))
    refusal = _sglang_config.draft_context_refusal(params["path"], config, params["context_length"],
                                                   params["allow_longer_context"])
    if params["require_eagle3"] and not result["eagle3"]:
        refusal = ("%s is not an EAGLE-3 draft (architectures %s, no eagle_config), which --speculative-algorithm "
                   "EAGLE3 needs. Nothing was stopped: name an EAGLE-3 draft in sglang_draft_model_path."
                   % (params["path"], result["architectures"]))
    if refusal:
        module.fail_json(msg=refusal, **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
