"""--config FILE, merged the way SGLang's ConfigArgumentMerger does (srt/server_args_config_parser.py).

SGLang reads the file with PyYAML, which the test venv does not have (sglang is installed
without its dependencies). The stand-in reads the flat mappings the launch role writes:
one ``key: value`` per line, each value a YAML scalar or a JSON value (JSON is YAML).
"""

import json
import os


def _scalar(text):
    text = text.strip()
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        pass
    lowered = text.lower()
    if lowered in ("true", "yes", "on"):
        return True
    if lowered in ("false", "no", "off"):
        return False
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    return text


def read_flat_yaml(path):
    data = {}
    with open(path) as handle:
        for number, line in enumerate(handle, 1):
            stripped = line.strip()
            if not stripped or stripped.startswith("#") or stripped == "---":
                continue
            key, sep, value = stripped.partition(":")
            if not sep or line[0].isspace():
                raise ValueError("%s:%d: the stand-in reads flat 'key: value' mappings only" % (path, number))
            data[key.strip()] = _scalar(value)
    return data


def merge(parser, argv):
    """argv with the config file's options in front (command-line flags win), like SGLang."""
    indices = [i for i, arg in enumerate(argv) if arg == "--config"]
    if not indices:
        return argv
    if len(indices) > 1:
        raise ValueError("Multiple config files specified! Only one allowed.")
    index = indices[0]
    if index == len(argv) - 1:
        raise ValueError("No config file specified after --config flag!")
    path = argv[index + 1]
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in (".yaml", ".yml"):
        raise ValueError("Config file must be YAML format, got: %s" % suffix)
    if not os.path.exists(path):
        raise ValueError("Config file not found: %s" % path)
    store_true = set(a.dest for a in parser._actions if a.__class__.__name__ == "_StoreTrueAction")
    config_args = []
    for key, value in read_flat_yaml(path).items():
        if isinstance(value, bool):
            if key.replace("-", "_") in store_true:
                if value:
                    config_args.append("--" + key)
            else:
                config_args.extend(["--" + key, str(value).lower()])
        elif isinstance(value, list):
            if value:
                config_args.append("--" + key)
                config_args.extend(str(item) for item in value)
        elif value is not None:
            config_args.extend(["--" + key, str(value)])
    return config_args + argv[:index] + argv[index + 2:]
