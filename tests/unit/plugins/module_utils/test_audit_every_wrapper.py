"""The audit of every wrapper of srt/models/ on pinned releases, against the reviewed tables.

tests/unit/fixtures/wrappers-<version>.txt is written by tests/gpufleet_testlib/wrapper_table.py
and reviewed by hand (the shapes are spot-checked in test_audit_shapes.py). A change in what the
audit concludes on any wrapper shows here as a diff; the releases are pinned, so a new SGLang
release never changes this test.
"""

import os

import pytest

from gpufleet_testlib import wrapper_table

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "fixtures")


@pytest.mark.parametrize("version", ["0.5.8", "0.5.9", "0.5.23"])
def test_every_wrapper_is_audited_as_reviewed(pristine_trees, version):
    with open(os.path.join(FIXTURES, "wrappers-%s.txt" % version)) as handle:
        expected = handle.read()
    assert wrapper_table.table(pristine_trees[version]) == expected


@pytest.mark.parametrize("version", ["0.5.8", "0.5.9", "0.5.23"])
def test_no_wrapper_stops_the_audit_and_each_open_question_has_a_site(pristine_trees, version):
    lines = wrapper_table.table(pristine_trees[version]).splitlines()
    assert len(lines) >= 30
    for line in lines:
        undetermined = line.split("undetermined: ", 1)[1]
        assert undetermined == "-" or "(srt/models/" in undetermined, line
