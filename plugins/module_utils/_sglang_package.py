# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Find an installed sglang package and its version without importing it.

Importing sglang pulls in torch and wants a GPU; reading files does not.
"""

from __future__ import annotations

import ast
import glob
import os

# Run by the interpreter of the venv that has sglang. find_spec on a top-level
# package locates it without executing its __init__.
LOCATE_SNIPPET = (
    "import importlib.util, sys\n"
    "spec = importlib.util.find_spec('sglang')\n"
    "sys.stdout.write(spec.submodule_search_locations[0] if spec and spec.submodule_search_locations else '')\n"
)


class PackageError(Exception):
    """The sglang package is not where the caller said."""


def check_root(sglang_root):
    """Fail unless ``sglang_root`` looks like an installed sglang package directory."""
    if not os.path.isdir(os.path.join(sglang_root, "srt")):
        raise PackageError(
            "%s is not an sglang package directory (no srt/ inside); point sglang_root at "
            ".../site-packages/sglang, or give python= the venv's interpreter" % sglang_root)
    return os.path.abspath(sglang_root)


def _version_from_dist_info(sglang_root):
    site = os.path.dirname(os.path.abspath(sglang_root))
    for metadata in sorted(glob.glob(os.path.join(site, "sglang-*.dist-info", "METADATA"))):
        with open(metadata, encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("Version:"):
                    return line.split(":", 1)[1].strip()
                if not line.strip():
                    break
    return None


def _version_from_file(path):
    """The literal ``__version__ = "..."`` assigned in a file, if any."""
    if not os.path.isfile(path):
        return None
    with open(path, "rb") as handle:
        tree = ast.parse(handle.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            # `__version__ = version = '0.5.23'` is one Assign with two targets.
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            if "__version__" in names and isinstance(node.value.value, str):
                return node.value.value
    return None


def sglang_version(sglang_root):
    """The installed version: dist-info first (what pip installed), then the version files."""
    return (_version_from_dist_info(sglang_root)
            or _version_from_file(os.path.join(sglang_root, "_version.py"))
            or _version_from_file(os.path.join(sglang_root, "version.py")))


def locate_with_python(module, python):
    """The sglang package directory in the environment of ``python`` (an AnsibleModule fails otherwise)."""
    if not os.path.exists(python):
        module.fail_json(msg="%s does not exist: install SGLang first (gpufleet.sglang.install) or set sglang_venv "
                             "to the venv that has it" % python)
    rc, out, err = module.run_command([python, "-c", LOCATE_SNIPPET])
    if rc != 0:
        module.fail_json(msg="%s could not be run to locate sglang: %s" % (python, err.strip() or out.strip()))
    if not out.strip():
        module.fail_json(msg="sglang is not installed in the environment of %s; install it first "
                             "(gpufleet.sglang.install) or give sglang_root" % python)
    return out.strip()
