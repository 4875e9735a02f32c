#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: host_state
short_description: What a Debian or Ubuntu host lacks of a wanted state, read in one round trip
version_added: 0.2.0
description:
  - Reads, without changing anything, whether the given packages are installed (and at which version),
    whether the given files exist with the given content, lines, mode and owner, whether the given paths
    are absent, whether the given systemd units are enabled and running, whether the given groups, accounts
    and directories exist as given, and whether a Python distribution is installed at a version in a venv.
  - Also reports, without owing anything for them, the state of further units (O(units)).
  - Returns RV(owes), one sentence per difference. A role reads this once and runs its converging tasks
    only when RV(owes) is not empty, so that a host already in the wanted state costs one task, not one
    per package, file and service; those tasks stay the single place where each change is made.
author:
  - gpufleet.sglang developers (@gpufleet)
options:
  packages:
    description: Packages that must be installed (C(dpkg-query) status C(ii)).
    type: list
    elements: str
    default: []
  versions:
    description: For installed packages, a regular expression (Python C(re.match)) their version must match.
    type: dict
    default: {}
  files:
    description:
      - Files that must exist, with the given content, lines, mode and owner.
      - Each is opened without following a link and read only as a regular file, no further than the wanted
        content (for a digest or lines, at most 16 MiB), and compared as bytes. A link, a directory, a FIFO or a
        device at the path is owed, as V(... is a symbolic link, not a regular file) or V(... is not a regular
        file), since the role's copy replaces it.
    type: list
    elements: dict
    default: []
    suboptions:
      path:
        description: The file.
        type: path
        required: true
      content:
        description: The whole text, as a template renders it.
        type: str
      sha256:
        description:
          - The SHA-256 of the whole text's bytes (hex), in place of O(files[].content) for a file that holds a
            secret, so that the secret is not a module argument. Hidden from every log and output (C(no_log)).
        type: str
        version_added: 0.2.2
      lines:
        description: Lines the file must hold among others.
        type: list
        elements: str
      mode:
        description: Its mode, an octal string.
        type: str
      owner:
        description: Its owner.
        type: str
      group:
        description: Its group.
        type: str
  absent:
    description: Paths that must not exist.
    type: list
    elements: path
    default: []
  services:
    description: systemd units that must be enabled and active.
    type: list
    elements: str
    default: []
  groups:
    description: Groups that must exist.
    type: list
    elements: str
    default: []
  users:
    description: Accounts that must exist; each has C(name) and optionally C(group) (its primary group), C(home), C(shell).
    type: list
    elements: dict
    default: []
  directories:
    description: Directories that must exist; each has C(path) and optionally C(mode) (octal string), C(owner), C(group).
    type: list
    elements: dict
    default: []
  python_packages:
    description:
      - Python distributions that must be installed at a version in a venv, read from its C(.dist-info) directories
        without running its interpreter; each has C(venv), C(name) and C(version).
    type: list
    elements: dict
    default: []
  units:
    description: systemd units whose C(ActiveState) to report in RV(units); they owe nothing.
    type: list
    elements: str
    default: []
extends_documentation_fragment:
  - gpufleet.sglang._read_only
"""

EXAMPLES = r"""
- name: Read what the host lacks
  gpufleet.sglang.host_state:
    packages: [dkms, nvidia-open]
    versions: {nvidia-open: '^([0-9]+:)?580[.]'}
    files:
      - {path: /etc/modprobe.d/blacklist-nouveau.conf, content: "{{ lookup('ansible.builtin.template', 'nouveau.j2') }}",
         mode: "0644", owner: root, group: root}
    absent: [/etc/apt/sources.list.d/cuda.list]
    services: [nvidia-persistenced]
  register: stack

- name: Converge only what is owed
  ansible.builtin.include_tasks: converge.yml
  when: stack.owes | length > 0
"""

RETURN = r"""
owes:
  description: One sentence per difference from the wanted state; empty when the host is there.
  returned: always
  type: list
  elements: str
  sample: ["package dkms is not installed", "nvidia-persistenced is not running"]
differing:
  description: The paths of O(files) that are missing or differ (in content, lines, mode or owner), in their order.
  returned: always
  type: list
  elements: str
  sample: ["/etc/sglang/staged/kimi-k25.env"]
  version_added: 0.2.2
installed:
  description: The version of each wanted package that is installed.
  returned: always
  type: dict
  sample: {dkms: "3.0.10-8+deb12u1"}
units:
  description: The C(ActiveState) of each unit of O(units) (V(inactive) for a unit systemd does not know).
  returned: always
  type: dict
  sample: {sglang-kimi-k25.service: active}
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpufleet.sglang.plugins.module_utils._host_state import (
    DPKG_QUERY, SYSTEMCTL_ACTIVE, SYSTEMCTL_SHOW, absent_owes, directory_owes, file_owes, group_owes, package_owes,
    parse_dpkg_query, python_package_owes, service_owes, unit_states, user_owes)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            packages=dict(type="list", elements="str", default=[]),
            versions=dict(type="dict", default={}),
            files=dict(type="list", elements="dict", default=[], options=dict(
                path=dict(type="path", required=True), content=dict(type="str"),
                sha256=dict(type="str", no_log=True), lines=dict(type="list", elements="str"),
                mode=dict(type="str"), owner=dict(type="str"), group=dict(type="str"))),
            absent=dict(type="list", elements="path", default=[]),
            services=dict(type="list", elements="str", default=[]),
            groups=dict(type="list", elements="str", default=[]),
            users=dict(type="list", elements="dict", default=[]),
            directories=dict(type="list", elements="dict", default=[]),
            python_packages=dict(type="list", elements="dict", default=[]),
            units=dict(type="list", elements="str", default=[]),
        ),
        supports_check_mode=True,
    )
    params = module.params
    named = ([("files", item.get("path")) for item in params["files"]]
             + [("directories", item.get("path")) for item in params["directories"]]
             + [("absent", path) for path in params["absent"]]
             + [("python_packages", item.get("venv")) for item in params["python_packages"]])
    for option, path in named:
        if path and "\0" in path:
            module.fail_json(msg="%s names a path with a NUL byte (%r): no file can have that name; fix the variable "
                             "that gives it" % (option, path))
    installed = {}
    wanted = list(params["packages"]) + sorted(set(params["versions"]) - set(params["packages"]))
    if wanted:
        # rc 1 only says that some package is unknown to dpkg: those are simply not installed.
        rc, out, err = module.run_command(DPKG_QUERY + wanted)
        if rc not in (0, 1):
            module.fail_json(msg="dpkg-query failed (rc %d): %s" % (rc, err.strip()))
        installed = parse_dpkg_query(out)
    owes = package_owes(params["packages"], installed, params["versions"])
    differing = []
    for wanted_file in params["files"]:
        file_owed = file_owes(wanted_file)
        differing.extend([wanted_file["path"]] if file_owed else [])
        owes.extend(file_owed)
    for option, key, check in (("directories", "path", directory_owes), ("users", "name", user_owes)):
        for wanted_item in params[option]:
            if not wanted_item.get(key):
                module.fail_json(msg="every entry of %s needs a %s (got %r)" % (option, key, wanted_item))
            owes.extend(check(wanted_item))
    owes.extend(absent_owes(params["absent"]))
    owes.extend(group_owes(params["groups"]))
    for wanted_package in params["python_packages"]:
        if not all(wanted_package.get(key) for key in ("venv", "name", "version")):
            module.fail_json(msg="every entry of python_packages needs venv, name and version (got %r)"
                             % (wanted_package,))
        owes.extend(python_package_owes(wanted_package))
    if params["services"]:
        systemctl = module.get_bin_path("systemctl", required=True)
        rc, out, err = module.run_command([systemctl] + SYSTEMCTL_SHOW + params["services"])
        if rc != 0:
            module.fail_json(msg="systemctl show failed (rc %d): %s" % (rc, err.strip()))
        owes.extend(service_owes(params["services"], out))
    units = {}
    if params["units"]:
        systemctl = module.get_bin_path("systemctl", required=True)
        rc, out, err = module.run_command([systemctl] + SYSTEMCTL_ACTIVE + params["units"])
        units = unit_states(params["units"], out if rc == 0 else "")
    module.exit_json(changed=False, owes=owes, differing=differing, units=units,
                     installed=dict((name, installed[name]) for name in wanted if name in installed))


if __name__ == "__main__":
    main()
