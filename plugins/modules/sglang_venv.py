#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: sglang_venv
short_description: One exact SGLang release in its own venv, checked before pip runs
version_added: 0.2.0
description:
  - Reads the SGLang version installed in O(venv) with the venv's own interpreter; when it is O(version),
    nothing else runs (one round trip on a host that has it).
  - Before a new venv, refuses a filesystem with less than O(min_free_gb) free, and creates the venv with
    O(python). Before pip installs, a C(pip install --dry-run --no-deps) refuses a release whose
    Requires-Python this interpreter does not meet, with pip's own message; nothing is installed then.
  - With O(instance), records on the host that the instance's server owes a restart for the code changed
    under it (as M(gpufleet.sglang.staged_settings) with O(gpufleet.sglang.staged_settings#module:state=owe)
    does), when its live unit runs this venv; the launch role restarts it inside its batch.
author:
  - gpufleet.sglang developers (@gpufleet)
options:
  version:
    description: The exact SGLang release, such as C(0.5.9).
    type: str
    required: true
  venv:
    description: The venv, one per release (C(/opt/sglang/venvs/sglang-0.5.9)).
    type: path
    required: true
  python:
    description: The interpreter that creates a new venv.
    type: str
    default: /usr/bin/python3
  pip_args:
    description: pip's source arguments (index, extra indexes, C(--no-index --find-links) for a wheelhouse).
    type: list
    elements: str
    default: []
  min_free_gb:
    description: Free space, in GB, that a new venv needs where it goes.
    type: float
    default: 20
  instance:
    description: The SGLang instance whose server owes a restart when this venv's code changes.
    type: str
attributes:
  check_mode:
    description: Can run in check mode and return changed status prediction without modifying the target.
    support: full
    details: Reads the installed version and runs pip's dry run on an existing venv; creates and installs nothing.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check mode), when in diff mode.
    support: none
seealso:
  - module: gpufleet.sglang.staged_settings
"""

EXAMPLES = r"""
- name: Install SGLang 0.5.9 into its own venv
  gpufleet.sglang.sglang_venv:
    version: "0.5.9"
    venv: /opt/sglang/venvs/sglang-0.5.9
    pip_args: [--extra-index-url, "https://download.pytorch.org/whl/cu128"]
    instance: kimi
"""

RETURN = r"""
version:
  description: The release the venv has (or would have, in check mode).
  returned: always
  type: str
  sample: "0.5.9"
previous:
  description: The SGLang release the venv had before, empty when it had none.
  returned: always
  type: str
  sample: ""
created:
  description: Whether the venv was created (would be, in check mode).
  returned: always
  type: bool
owed:
  description: Whether a restart of O(instance) was recorded as owed.
  returned: always
  type: bool
cmd:
  description: The pip command that installed the release.
  returned: when pip installed it
  type: list
  elements: str
  sample: [/opt/sglang/venvs/sglang-0.5.9/bin/pip, install, --disable-pip-version-check, sglang==0.5.9]
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpufleet.sglang.plugins.module_utils import _staged_settings as staged
from ansible_collections.gpufleet.sglang.plugins.module_utils._sglang_install import (
    READ_VERSION, dry_run_refusal, free_gb, no_room_message)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            version=dict(type="str", required=True),
            venv=dict(type="path", required=True),
            python=dict(type="str", default="/usr/bin/python3"),
            pip_args=dict(type="list", elements="str", default=[]),
            min_free_gb=dict(type="float", default=20),
            instance=dict(type="str"),
        ),
        supports_check_mode=True,
    )
    params = module.params
    version, venv = params["version"], params["venv"].rstrip("/")
    python, pip = os.path.join(venv, "bin", "python"), os.path.join(venv, "bin", "pip")
    result = dict(changed=False, version=version, previous="", created=False, owed=False)
    if os.path.exists(python):
        rc, out, _err = module.run_command([python, "-c", READ_VERSION, "sglang"])
        result["previous"] = out.strip() if rc == 0 else ""
        if result["previous"] == version:
            module.exit_json(**result)
    else:
        parent = os.path.dirname(venv)
        if not os.path.isdir(parent) and not module.check_mode:
            os.makedirs(parent, mode=0o755)
        where = parent if os.path.isdir(parent) else "/"
        if free_gb(where) < params["min_free_gb"]:
            module.fail_json(msg=no_room_message(parent, free_gb(where), params["min_free_gb"], version,
                                                 os.uname()[1]), **result)
        result.update(changed=True, created=True)
        if module.check_mode:
            module.exit_json(**result)
        module.run_command([params["python"], "-m", "venv", venv], check_rc=True)
    requirement = "sglang==%s" % version
    rc, _out, err = module.run_command([pip, "install", "--dry-run", "--no-deps", "--quiet",
                                        "--disable-pip-version-check"] + params["pip_args"] + [requirement])
    if rc != 0:
        _rc, python_version, _err = module.run_command([python, "-c", "import platform; print(platform.python_version())"])
        refusal = dry_run_refusal(rc, err, version, venv, python_version.strip())
        if refusal:
            module.fail_json(msg=refusal, **result)
    result["changed"] = True
    if module.check_mode:
        module.exit_json(**result)
    result["cmd"] = [pip, "install", "--disable-pip-version-check"] + params["pip_args"] + [requirement]
    rc, out, err = module.run_command(result["cmd"])
    if rc != 0:
        module.fail_json(msg="pip could not install %s into %s (rc %d): %s" % (
            requirement, venv, rc, (err.strip() or out.strip())[-2000:]), **result)
    if params["instance"]:
        reason = "SGLang %s installed into %s" % (version, venv)
        result["owed"] = staged.owe(staged.Layout(params["instance"]), reason, venv)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
