"""Run ansible-playbook from a test and read its results as data (the ansible.posix.json callback),
not as the human-readable output."""

import json
import os
import subprocess
import sys

# The test interpreter's own ansible-playbook, whatever PATH holds.
ANSIBLE_PLAYBOOK = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")


class PlaybookRun(object):
    """One ansible-playbook run: its return code, per-host stats and every result's message."""

    def __init__(self, returncode, report, stderr):
        self.returncode = returncode
        self.report = report
        self.stderr = stderr

    @property
    def stats(self):
        return self.report.get("stats", {})

    def changed(self, host):
        return self.stats.get(host, {}).get("changed")

    def results(self):
        """(task name, host, result) for every task result, loop items included."""
        for play in self.report.get("plays", []):
            for task in play.get("tasks", []):
                for host, result in task.get("hosts", {}).items():
                    yield task["task"]["name"], host, result
                    for item in result.get("results", []) or []:
                        if isinstance(item, dict):
                            yield task["task"]["name"], host, item

    def task_counts(self, play_name=None):
        """{host: {"ran": n, "skipped": n, "changed": n}}: one count per task (loop items not apart), in the
        plays named play_name (a batched play runs once per batch) or in all."""
        counts = {}
        for play in self.report.get("plays", []):
            if play_name is not None and play["play"]["name"] != play_name:
                continue
            for task in play.get("tasks", []):
                for host, result in task.get("hosts", {}).items():
                    row = counts.setdefault(host, {"ran": 0, "skipped": 0, "changed": 0})
                    row["skipped" if result.get("skipped") else "ran"] += 1
                    row["changed"] += bool(result.get("changed"))
        return counts

    @property
    def messages(self):
        """Every result's msg (failures, asserts, debug), in order."""
        return [str(result["msg"]) for _task, _host, result in self.results() if result.get("msg")]

    def ran(self, task, host=None):
        """Whether a task (or handler) whose name holds ``task`` ran (was not skipped) on host, or on any."""
        return any(task in name and (host is None or host == on) and not result.get("skipped")
                   for name, on, result in self.results())

    def result(self, task, host):
        """The result of the first task whose name holds ``task`` on host."""
        for name, on, result in self.results():
            if task in name and on == host:
                return result
        raise KeyError("no result of %r on %s" % (task, host))

    def says(self, text):
        """Whether any result's message holds text."""
        return any(text in message for message in self.messages)

    def __str__(self):
        """What a failing assertion shows: the messages, and stderr's tail."""
        return "\n".join(self.messages[-20:] + [self.stderr[-2000:]])


def run_playbook(playbook, inventory, extra_vars=(), args=(), timeout=900, env=None):
    """ansible-playbook PLAYBOOK -i INVENTORY -e VARS... ARGS...; returns a PlaybookRun.

    extra_vars: dicts (passed as JSON) or key=value strings, in order. env: more environment variables.
    """
    command = [ANSIBLE_PLAYBOOK, "-i", inventory, playbook]
    for item in extra_vars:
        command += ["-e", json.dumps(item) if isinstance(item, dict) else item]
    env = dict(os.environ, ANSIBLE_STDOUT_CALLBACK="ansible.posix.json", ANSIBLE_NOCOLOR="1",
               ANSIBLE_FORCE_COLOR="0", **(env or {}))
    result = subprocess.run(command + list(args), capture_output=True, text=True, check=False, timeout=timeout,
                            env=env)
    try:
        report = json.loads(result.stdout)
    except ValueError:  # the playbook did not start (syntax, inventory): no report, the reason is on stderr
        report = {}
    return PlaybookRun(result.returncode, report, result.stderr + result.stdout[-2000:] * (not report))


def run_in_scenario(playbook, extra_vars=(), args=(), timeout=900):
    """A playbook of the molecule scenario under test (a path relative to its directory, or absolute),
    on the scenario's inventory."""
    path = os.path.join(os.environ["MOLECULE_SCENARIO_DIRECTORY"], playbook)
    return run_playbook(path, os.environ["MOLECULE_INVENTORY_FILE"], extra_vars, args, timeout)
