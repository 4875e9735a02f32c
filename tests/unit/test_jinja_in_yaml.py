"""Jinja in the playbooks and roles stays short: no chain of more than two filters that compute (a chain
may end in conversions and formatting: list, int, float, bool, string, default, length, join, first,
unique, flatten, sum, round). What needs more is a filter plugin backed by module_utils, with unit
tests, or named steps (task vars), each short."""

import glob
import os
import re

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
