"""Runs the role from the controller with a test's variables, for the tests that read its output."""

import json
import os
import re
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))


def run_role(target, variables):
    """ansible-playbook run_role.yml on one host; returns (rc, output, changed count of the host)."""
    command = ["ansible-playbook", "-i", os.environ["MOLECULE_INVENTORY_FILE"],
               os.path.join(HERE, "..", "run_role.yml"), "-e", json.dumps(dict(variables, target=target))]
    # One JSON line per result: messages are not folded the way the YAML callback folds them.
    env = dict(os.environ, ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0", ANSIBLE_CALLBACK_RESULT_FORMAT="json")
    result = subprocess.run(command, capture_output=True, text=True, check=False, timeout=900, env=env)
    output = result.stdout + result.stderr
    recap = re.search(r"^%s\s+:.*changed=(\d+)" % re.escape(target), output, re.M)
    return result.returncode, output, int(recap.group(1)) if recap else None
