"""Every typed setting is read as its type, whatever form it arrived in.

A role's argument spec validates `-e sglang_tp_size=8` (a string, as -e name=value and AWX surveys give
it) but leaves the variable a string: `8 % 2` fails, `"false"` is true in a template's `if`, a when
refuses a string. So every read of an int, float, bool or list option in the roles and playbooks goes
through its conversion (`int`, `float`, `bool`, `gpufleet.sglang.setting_list`), possibly after
`default`, or is a test (`is defined`, `is none`). This reads every Jinja expression and template with
Jinja's own parser. The demo fleet's check-mode run with every typed option given as a string is in
tests/integration/test_typed_settings.py."""

import glob
import os

import jinja2
from jinja2 import nodes
import pytest
import yaml

from gpufleet_testlib import ROOT
from gpufleet_testlib.typed_settings import typed_options

CONVERSION = {"int": {"int"}, "float": {"float"}, "bool": {"bool"}, "list": {"gpufleet.sglang.setting_list"},
              "dict": {"gpufleet.sglang.setting_dict"}}
TESTS = {"defined", "undefined", "none"}
EXPRESSION_KEYS = {"when", "that", "failed_when", "changed_when", "until"}


def expressions(path):
    """(where, template source) of every Jinja template and expression in one file."""
    text = open(path).read()
    if path.endswith(".j2"):
        yield path, text
        return

    def walk(value, key, where):
        if isinstance(value, dict):
            for child_key, child in value.items():
                if key is None or not isinstance(child_key, str) or "{{" not in child_key:
                    yield from walk(child, child_key, where)
        elif isinstance(value, list):
            for child in value:
                yield from walk(child, key, where)
        elif isinstance(value, str):
            if key in EXPRESSION_KEYS:
                yield where + " " + key, "{{ (" + value + ") }}"
            elif "{{" in value or "{%" in value:
                yield where + " " + str(key), value

    for document in yaml.safe_load_all(text):
        yield from walk(document, None, path)


def unconverted(source, typed):
    """The typed names that the template reads without their conversion."""
    found = []

    def visit(node, parents):
        if isinstance(node, nodes.Name) and node.ctx == "load" and node.name in typed:
            if not converted(node, parents, typed[node.name]):
                found.append(node.name)
        for child in node.iter_child_nodes():
            visit(child, parents + [node])

    visit(jinja2.Environment(extensions=["jinja2.ext.do", "jinja2.ext.loopcontrols"]).parse(source), [])
    return found


def converted(node, parents, kind):
    for parent in reversed(parents):
        if isinstance(parent, nodes.Test) and parent.node is node and parent.name in TESTS:
            return True
        if not isinstance(parent, nodes.Filter) or parent.node is not node:
            return False
        if parent.name in CONVERSION[kind]:
            return True
        if parent.name != "default":
            return False
        node = parent
    return False


def files():
    paths = (glob.glob(os.path.join(ROOT, "playbooks", "*.yml"))
             + glob.glob(os.path.join(ROOT, "roles", "*", "*", "*.yml"))
             + glob.glob(os.path.join(ROOT, "roles", "*", "templates", "*.j2")))
    return sorted(path for path in paths if "/meta/" not in path)


def test_the_reader_tells_converted_reads_from_raw_ones():
    typed = {"n": "int", "on": "bool", "names": "list", "env": "dict"}
    assert unconverted("{{ n + 1 }}", typed) == ["n"]
    assert unconverted("{{ (n | int) + 1 }} {{ n | default(2) | int }} {{ n is defined }}", typed) == []
    assert unconverted("{% if on %}x{% endif %}{{ on | bool }}", typed) == ["on"]
    assert unconverted("{% for x in names %}{{ x }}{% endfor %}", typed) == ["names"]
    assert unconverted("{{ names | gpufleet.sglang.setting_list | join(',') }}", typed) == []
    assert unconverted("{{ n | string }}", typed) == ["n"]
    assert unconverted("{{ a | combine(env) }}", typed) == ["env"]
    assert unconverted("{{ env | default({}, true) | gpufleet.sglang.setting_dict }}", typed) == []


def test_every_typed_setting_is_read_through_its_conversion():
    typed = dict((name, kind) for name, (kind, _default) in typed_options().items())
    assert "sglang_tp_size" in typed and typed["cuda_driver_reboot"] == "bool"
    raw = []
    for path in files():
        for where, source in expressions(path):
            for name in unconverted(source, typed):
                raw.append("%s: %s (%s)" % (os.path.relpath(where, ROOT), name, typed[name]))
    assert raw == [], "read without conversion:\n" + "\n".join(raw)


@pytest.mark.parametrize("given, expected", [("a,b", ["a", "b"]), (["a"], ["a"]), ("", []), ([], [])])
def test_setting_list_reads_a_list_in_every_form(given, expected):
    from ansible_collections.gpufleet.sglang.plugins.filter.setting_list import setting_list

    assert setting_list(given) == expected


@pytest.mark.parametrize("given, expected", [
    ('{"load-format": "dummy", "max-total-tokens": 4096}', {"load-format": "dummy", "max-total-tokens": 4096}),
    ("a=1 b=x", {"a": "1", "b": "x"}), ({"a": 1}, {"a": 1}), ("", {}), ("{}", {})])
def test_setting_dict_reads_a_dict_in_every_form(given, expected):
    from ansible_collections.gpufleet.sglang.plugins.filter.setting_dict import setting_dict

    assert setting_dict(given) == expected
