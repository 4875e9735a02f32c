"""The audit of every wrapper of a release's srt/models/, as a compact table (one line per wrapper).

    python tests/gpufleet_testlib/wrapper_table.py 0.5.9 > tests/unit/fixtures/wrappers-0.5.9.txt

The table in tests/unit/fixtures/ is the reviewed reading of each release; the unit test
compares the audit with it, so a change in what the audit concludes shows as a diff.
"""

import sys
import tempfile

from ansible_collections.gpufleet.sglang.plugins.module_utils._eagle3_audit import Auditor
from gpufleet_testlib import sglang_wheels


def rows(sglang_root):
    for result in Auditor(sglang_root).audit_all():
        undetermined = "; ".join("%s (%s)" % (u["reason"], u["site"]) for u in result["undetermined"])
        yield " | ".join([
            "%s %s" % (result["model_file"], result["class_name"]),
            "self.%s: %s" % (result["inner_attr"], ",".join(result["inner_class"]) or "?"),
            "missing: %s" % (",".join(result["missing"]) or "-"),
            "delegatable: %s" % (",".join(result["delegatable"]) or "-"),
            "undetermined: %s" % (undetermined or "-"),
        ])


def table(sglang_root):
    return "\n".join(rows(sglang_root)) + "\n"


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as site:
        sys.stdout.write(table(sglang_wheels.extract(sys.argv[1], site)))
