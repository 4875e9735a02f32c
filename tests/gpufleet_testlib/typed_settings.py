"""The typed options of the roles' argument specs, and each as the string `-e name=value` gives it."""

import glob
import json
import os

import yaml

from gpufleet_testlib import ROOT


def typed_options():
    """{name: (type, default)} of every int, float, bool, dict and list-of-str option of every role's argument
    spec."""
    typed = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "roles", "*", "meta", "argument_specs.yml"))):
        for spec in yaml.safe_load(open(path))["argument_specs"].values():
            for name, option in (spec.get("options") or {}).items():
                kind = option.get("type", "str")
                if kind in ("int", "float", "bool", "dict") or (kind == "list" and option.get("elements") == "str"):
                    typed[name] = (kind, option.get("default"))
    return typed


def as_string(kind, value):
    """VALUE as -e name=VALUE writes it, or None where no string means it (a template, no value)."""
    if value is None or (isinstance(value, str) and "{{" in value):
        return None
    if kind == "bool":
        return "true" if value else "false"
    if kind == "list":
        return ",".join(value) if all("," not in item for item in value) else None
    if kind == "dict":
        return json.dumps(value, separators=(",", ":"))  # a JSON object, as -e 'name={...}' gives it
    return str(value)


def extra_vars_as_strings(inventory_vars):
    """`name=value` for every typed option at the value the inventory gives it, else its default."""
    pairs = []
    for name, (kind, default) in typed_options().items():
        text = as_string(kind, inventory_vars.get(name, default))
        if text is not None:
            pairs.append("%s=%s" % (name, text))
    return pairs
