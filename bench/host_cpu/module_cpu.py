"""The Python interpreter Ansible runs modules with on a demo host, for bench/host_cpu.py only: it runs the module
(AnsiballZ on stdin, as pipelining sends it) with the host's python3 and appends one line to
/var/tmp/gpufleet-module-cpu.jsonl: the module's name and the CPU seconds the module's process took on the host.
stdin, stdout, stderr and the exit status pass through unchanged."""

import json
import re
import resource
import subprocess
import sys

payload = sys.stdin.buffer.read()
done = subprocess.run([sys.executable] + sys.argv[1:], input=payload, capture_output=True, check=False)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
found = re.search(rb"'(ansible(?:_collections)?\.[A-Za-z0-9_.]*modules\.[A-Za-z0-9_]+)'", payload)
with open("/var/tmp/gpufleet-module-cpu.jsonl", "a") as log:
    log.write(json.dumps({"module": found.group(1).decode() if found else "?",
                          "cpu": usage.ru_utime + usage.ru_stime}) + "\n")
sys.stdout.buffer.write(done.stdout)
sys.stderr.buffer.write(done.stderr)
sys.exit(done.returncode)
