"""Synthetic Python source trees for the audit's unit tests."""

import textwrap


def write_tree(root, files):
    """Write ``{relative path: source text}`` under ``root`` (a pathlib.Path), each text dedented."""
    for relpath, text in files.items():
        path = root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
