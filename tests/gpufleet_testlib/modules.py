"""Run an Ansible module's main() in-process, as a unit test does."""

import contextlib
import io
import json


def run_module(module, args, check_mode=False, diff=False):
    """Run module.main() with args; returns its result dict (failed ones too)."""
    from ansible.module_utils.testing import patch_module_args

    args = dict(args, _ansible_check_mode=check_mode, _ansible_diff=diff)
    out = io.StringIO()
    with patch_module_args(args), contextlib.redirect_stdout(out):
        try:
            module.main()
        except SystemExit:
            pass
    return json.loads(out.getvalue())
