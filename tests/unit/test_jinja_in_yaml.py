"""Jinja in the playbooks and roles stays short: no chain of more than two filters that compute (a chain
may end in conversions and formatting: list, int, float, bool, string, default, length, join, first,
unique, flatten, sum, round). What needs more is a filter plugin backed by module_utils, with unit
tests, or named steps (task vars), each short."""

import glob
import os
import re

import yaml

from gpufleet_testlib import ROOT

PLAIN = {"list", "int", "float", "bool", "string", "default", "length", "join", "first", "unique", "flatten", "sum",
         "round"}
TOKENS = re.compile(r"""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\|\s*[A-Za-z_][\w.]*|\b(?:or|and|if|else|not|in|is)\b"""
                    r"""|==|!=|<=|>=|[<>+~,:*/%-]|[(\[{]|[)\]}]|\S""")
BREAKS = {"or", "and", "if", "else", "not", "in", "is", "==", "!=", "<=", ">=", "<", ">", "+", "~", ",", ":", "*", "/",
          "%", "-"}


def longest_chain(expression):
    """The computing filters of the longest filter chain in one Jinja expression (by nesting level)."""
    levels, longest = [[]], []
    for token in TOKENS.findall(expression):
        if token.startswith("|"):
            levels[-1].append(token[1:].strip())
            computing = [name for name in levels[-1] if name not in PLAIN]
            if len(computing) > len(longest):
                longest = computing
        elif token in "([{":
            levels.append([])
        elif token in ")]}":
            if len(levels) > 1:
                levels.pop()
        elif token in BREAKS:
            levels[-1] = []
    return longest


def test_the_chain_reader_counts_computing_filters_per_chain():
    assert longest_chain("a | map('extract', h) | selectattr('x') | map(attribute='y') | list") == [
        "map", "selectattr", "map"]
    assert longest_chain("a | map('x') | list + b | select('y') | list") == ["map"]
    assert longest_chain("(a | map('x') | zip(b | map('y'))) | first") == ["map", "zip"]


def test_no_expression_chains_more_than_two_computing_filters():
    long = []
    paths = glob.glob(os.path.join(ROOT, "playbooks", "*.yml")) + glob.glob(os.path.join(ROOT, "roles", "*", "*", "*"))
    for path in sorted(path for path in paths if path.endswith((".yml", ".j2"))):
        text = open(path).read()
        for match in re.finditer(r"\{\{(.*?)\}\}|\{%(.*?)%\}", text, re.S):
            chain = longest_chain(match.group(1) or match.group(2) or "")
            if len(chain) > 2:
                long.append("%s:%d %s" % (os.path.relpath(path, ROOT), text[:match.start()].count("\n") + 1,
                                          " | ".join(chain)))
    assert long == [], "\n".join(long)


def yaml_strings(node):
    if isinstance(node, dict):
        for value in node.values():
            yield from yaml_strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from yaml_strings(value)
    elif isinstance(node, str):
        yield node


def jinja_literal_escapes(text):
    """The backslash escapes in the string literals of text's Jinja expressions."""
    found = []
    for match in re.finditer(r"\{\{(.*?)\}\}|\{%(.*?)%\}", text, re.S):
        for literal in re.findall(r"""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*\"""", match.group(1) or match.group(2) or ""):
            found += re.findall(r"\\.", literal)
    return found


def test_the_escape_reader_finds_them():
    assert jinja_literal_escapes("{{ x | regex_replace('^\\\\s*$', '.') ~ 'a\\nb' }}") == ["\\\\", "\\n"]
    assert jinja_literal_escapes("{{ x is match('^127\\.') }}") == ["\\."]


def test_no_jinja_in_yaml_relies_on_a_backslash_escape():
    """ansible-core 2.21 (the release pinned, checked) does not decode the backslash escapes of a string literal
    in a template that comes from YAML, though it does in a .j2 file: after YAML has read it, '^\\\\s*$' stays a
    regex for a backslash and 'a\\nb' four characters. The apt source's lines for a key given as text were built
    that way, and never matched (cuda_driver, 0.2.1). A backslash in YAML-borne Jinja is for a regex only (\\.
    \\d \\s, one backslash)."""
    suspicious = []
    paths = glob.glob(os.path.join(ROOT, "playbooks", "*.yml")) + glob.glob(os.path.join(ROOT, "roles", "*", "*", "*.yml"))
    for path in sorted(paths):
        for document in yaml.safe_load_all(open(path)):
            for text in yaml_strings(document):
                escapes = [escape for escape in jinja_literal_escapes(text) if escape in ("\\\\", "\\n", "\\t", "\\'", '\\"')]
                if escapes:
                    suspicious.append("%s: %s in %s" % (os.path.relpath(path, ROOT), escapes, text[:100]))
    assert suspicious == [], "\n".join(suspicious)
