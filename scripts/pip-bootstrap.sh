#!/usr/bin/env bash
# ansible-test fetches a pip bootstrap script (get-pip.py) from a host that cannot be reached here. This
# writes, where ansible-test caches it for the pip version that VENV's ansible-test asks for, one that
# does the same job offline: ensurepip, then pip from the configured index.
#   scripts/pip-bootstrap.sh VENV
set -euo pipefail
venv="$1"
pip_version="$("$venv/bin/python" - <<'PY'
import re, ansible_test, pathlib
src = pathlib.Path(ansible_test.__file__).parent / "_internal" / "python_requirements.py"
print(re.search(r"pip='([^']+)'", src.read_text()).group(1))
PY
)"
cache="$HOME/.ansible/test/cache/get_pip_${pip_version//./_}.py"
mkdir -p "$(dirname "$cache")"
cat >"$cache" <<'PY'
"""Offline stand-in for get-pip.py, written by gpufleet.sglang."""
import ensurepip
import os
import subprocess
import sys

# The system's CA store (Debian's, which holds a local proxy's CA), not the certificates pip bundles:
# ansible-test runs pip isolated from its configuration and environment.
SYSTEM_CA = "/etc/ssl/certs/ca-certificates.crt"

GET_PIP_ONLY = {"--no-setuptools", "--no-wheel"}

ensurepip.bootstrap(upgrade=True)
args = [a for a in sys.argv[1:] if a not in GET_PIP_ONLY] + (["--cert", SYSTEM_CA] if os.path.exists(SYSTEM_CA) else [])
sys.exit(subprocess.call([sys.executable, "-m", "pip", "install"] + args))
PY
