#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: server_flags
short_description: Check SGLang server flags against the flag list of the installed release
version_added: 0.2.0
description:
  - Reads the flags the installed C(sglang) accepts from its source, without importing it, the two ways
    SGLang declares them - C(add_argument) calls in C(srt/server_args.py) (every release) and the
    annotated fields of C(ServerArgs) (0.5.14 to 0.5.1x) or of C(srt/arg_groups/fields/) (0.5.2x).
  - Fails, naming each flag and the release, when O(flags) or O(config_keys) has one this release does not
    know; a server started with it would exit at once (argparse's C(unrecognized arguments)) and
    C(Restart=on-failure) would loop.
author:
  - gpufleet.sglang developers (@gpufleet)
options:
  sglang_root:
    description:
      - The installed C(sglang) package directory.
      - Exactly one of O(sglang_root) and O(python) is required.
    type: path
  python:
    description:
      - A Python interpreter whose environment has C(sglang) installed, for example C(/opt/sglang/venvs/sglang-0.5.9/bin/python).
    type: path
  flags:
    description:
      - The command line to check, or its flags; items that do not start with C(--) (values) are skipped,
        and C(--flag=value) counts as C(--flag).
    type: list
    elements: str
    default: []
  config_keys:
    description:
      - The keys of the C(--config) file; SGLang turns each C(key) into C(--key).
    type: list
    elements: str
    default: []
extends_documentation_fragment:
  - gpufleet.sglang._read_only
seealso:
  - module: gpufleet.sglang.eagle3_audit
"""

EXAMPLES = r"""
- name: Check the flags of the unit about to be written against the installed release
  gpufleet.sglang.server_flags:
    python: /opt/sglang/venvs/sglang-0.5.23/bin/python
    flags: [--model-path, /srv/models/kimi-k25, --tp-size, "8", --speculative-algorithm, EAGLE3]
    config_keys: [api-key]
"""

RETURN = r"""
sglang_version:
  description: The installed release whose flags were read.
  returned: always
  type: str
  sample: 0.5.23
flag_count:
  description: How many flag names (aliases included) the release accepts.
  returned: success
  type: int
  sample: 547
unknown:
  description: The flags of O(flags), and C(--key) for each key of O(config_keys), that the release does not know.
  returned: always
  type: list
  elements: str
  sample: []
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpufleet.sglang.plugins.module_utils._sglang_cli import read_flags, unknown
from ansible_collections.gpufleet.sglang.plugins.module_utils._sglang_package import (
    PackageError,
    check_root,
    locate_with_python,
    sglang_version,
)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            sglang_root=dict(type="path"),
            python=dict(type="path"),
            flags=dict(type="list", elements="str", default=[]),
            config_keys=dict(type="list", elements="str", default=[], no_log=False),
        ),
        mutually_exclusive=[("sglang_root", "python")],
        required_one_of=[("sglang_root", "python")],
        supports_check_mode=True,
    )
    params = module.params
    try:
        root = check_root(params["sglang_root"] or locate_with_python(module, params["python"]))
        version = sglang_version(root)
        flags = read_flags(root)
    except (PackageError, ValueError, OSError, SyntaxError) as exc:
        module.fail_json(msg="the flags of the installed SGLang cannot be read: %s" % exc)
    on_command_line = unknown(flags, params["flags"])
    in_config = unknown(flags, ["--" + key.lstrip("-") for key in params["config_keys"]])
    if on_command_line or in_config:
        where = []
        if on_command_line:
            where.append("%s on the command line" % ", ".join(on_command_line))
        if in_config:
            where.append("%s in the --config file" % ", ".join(name[2:] for name in in_config))
        them = "it" if len(on_command_line + in_config) == 1 else "them"
        module.fail_json(msg="SGLang %s does not know %s: a server started with %s would exit at once. Remove or "
                             "rename %s (sglang_extra_args, or the role setting behind %s) for this release, or keep "
                             "sglang_version at a release that has %s." % (version, " and ".join(where), them, them,
                                                                           them, them),
                         sglang_version=version, unknown=on_command_line + in_config)
    module.exit_json(changed=False, sglang_version=version, flag_count=len(flags), unknown=[])


if __name__ == "__main__":
    main()
