"""Loaded by bench/noop_profile.py (PYTHONPATH) into ansible-playbook: each worker process (one task on one
host) appends a line to $GPUFLEET_TASK_CPU_LOG with its task, its host, the CPU time it took on the controller
and the Jinja templates it compiled (Ansible 2.19+ compiles a template each time it renders one).
It wraps two private functions of ansible-core (read from 2.21's source); if they move, it says so and the
bench fails rather than print figures without them."""

import builtins
import collections
import json
import os
import sys
import time

_LOG = os.environ.get("GPUFLEET_TASK_CPU_LOG")
_compiled = collections.Counter()


def _wrap_templating(engine):
    def counting(original, prefix):
        def wrapper(self, source, options):
            _compiled[prefix + str(source)[:160]] += 1
            return original(self, source, options)
        return wrapper

    engine.TemplateEngine._compile_template = counting(engine.TemplateEngine._compile_template, "")
    engine.TemplateEngine._compile_expression = counting(engine.TemplateEngine._compile_expression, "expression: ")


def _play_of(task):
    parent = task
    while parent is not None and getattr(parent, "_play", None) is None:
        parent = getattr(parent, "_parent", None)
    return parent._play.get_name() if parent is not None else ""


def _wrap_worker(worker):
    original = worker.WorkerProcess._run

    def run(self):
        _compiled.clear()
        start, wall = os.times(), time.monotonic()
        try:
            return original(self)
        finally:
            end = os.times()
            with open(_LOG, "a") as log:
                log.write(json.dumps({
                    "play": _play_of(self._task), "task": self._task.get_name(), "host": self._host.name,
                    "cpu": end.user - start.user + end.system - start.system,
                    "wall": time.monotonic() - wall, "compiled": sum(_compiled.values()),
                    "templates": _compiled.most_common(),
                }) + "\n")

    worker.WorkerProcess._run = run


def _install():
    try:
        from ansible._internal._templating import _engine
        from ansible.executor.process import worker
        getattr(_engine.TemplateEngine, "_compile_template")
        getattr(_engine.TemplateEngine, "_compile_expression")
        getattr(worker.WorkerProcess, "_run")
    except (ImportError, AttributeError) as error:
        sys.exit("bench/task_cpu: this ansible-core lacks what the bench wraps (%s); it was written for 2.21" % error)
    _wrap_templating(_engine)
    _wrap_worker(worker)


# Wrap once ansible-playbook has set itself up (its task queue manager imports the worker), not before.
_import = builtins.__import__


def _import_then_install(name, *args, **kwargs):
    module = _import(name, *args, **kwargs)
    if name == "ansible.executor.task_queue_manager":
        builtins.__import__ = _import
        _install()
    return module


if _LOG:
    builtins.__import__ = _import_then_install
