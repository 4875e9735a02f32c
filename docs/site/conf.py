# Sphinx configuration of the collection's documentation site (scripts/docs-site.sh, make docs-site): the
# pages antsibull-docs writes for every plugin and role, and docs/design.md through MyST
# (design.rst). Made from `antsibull-docs sphinx-init` (antsibull-docs 2.28.0).
project = "gpufleet.sglang"
copyright = "gpufleet.sglang contributors"
title = "gpufleet.sglang"
html_short_title = "gpufleet.sglang"
extensions = ["sphinx.ext.intersphinx", "sphinx_antsibull_ext", "myst_parser"]
pygments_style = "ansible"
highlight_language = "YAML+Jinja"
html_theme = "sphinx_ansible_theme"
html_show_sphinx = False
display_version = False
html_use_smartypants = True
html_use_modindex = False
html_use_index = False
html_copy_source = False
# docs/design.md is included by design.rst, not a page of its own.
exclude_patterns = ["design.md", "benchmarks.md", "development.md", "runbooks.md"]
intersphinx_mapping = {
    "python3": ("https://docs.python.org/3/", (None, "../python3.inv")),
    "ansible_devel": ("https://docs.ansible.com/projects/ansible/devel/", (None, "../ansible_devel.inv")),
}
default_role = "any"
nitpicky = True
