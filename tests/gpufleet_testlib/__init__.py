"""The project's test helpers: playbook runs with structured results, containers, SGLang wheels,
the controller-side health probe, and an in-process module runner. Importable from unit tests,
molecule's testinfra tests and the benchmarks (pytest.ini puts tests/ on the path)."""

import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
