"""The project's test containers, seen from the controller."""

import subprocess


def address(name):
    """The container's address on its (first) docker network."""
    return subprocess.check_output(
        ["docker", "inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}", name],
        text=True).strip()


def run(name, *command):
    """Run a command in the container; returns its stdout."""
    return subprocess.check_output(["docker", "exec", name] + list(command), text=True)
