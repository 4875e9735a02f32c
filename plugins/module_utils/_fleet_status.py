# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet's state as rows (one per host, for scripts) and as a table (for people)."""

from __future__ import annotations

COLUMNS = (
    ("host", "HOST"), ("gpus_driver", "GPUS/DRIVER"), ("sglang", "SGLANG (VENV)"), ("patch", "PATCH"),
    ("drafts", "DRAFT UNIT | INVENTORY | SERVED"), ("weights", "WEIGHTS"), ("accept_length", "ACCEPT"), ("health", "HEALTH"),
    ("routers", "ROUTERS"), ("restart_pending", "RESTART PENDING"),
)


def router_states(worker_url, registered):
    """{router: in | in (unhealthy) | out | unreachable} for one worker URL."""
    states = {}
    for router, workers in sorted((registered or {}).items()):
        if workers is None:
            states[router] = "unreachable"
            continue
        match = [worker for worker in workers if worker.get("url") == worker_url]
        states[router] = "out" if not match else ("in" if match[0].get("is_healthy") else "in (unhealthy)")
    return states


def with_routers(rows, registered):
    """The rows, each with ``routers`` from what every router has registered."""
    return [dict(row, routers=router_states(row.get("worker_url"), registered)) for row in rows]


def _routers_cell(row):
    """Where the server stands in every router, and whether a run left it out of them (not back yet)."""
    cell = ", ".join("%s %s" % item for item in sorted((row.get("routers") or {}).items())) or "-"
    left = row.get("left_routers")
    if left:
        cell = "LEFT by a run since %s: %s" % (left.get("since", "?"), cell)
    return cell


def _weights_cell(models):
    """Each model the live unit runs from a directory: its commit (short) and whether its files are verified."""
    return ", ".join("%s %s %s" % (model["name"], (model.get("commit") or "-")[:8],
                                   "verified" if not model.get("lacks") else "%d FILE(S) BAD" % len(model["lacks"]))
                     for model in models) or "-"


def _cells(row):
    drafts = [row.get("draft_unit") or "-", row.get("draft_inventory") or "-", row.get("draft_served") or "-"]
    same = len(set(drafts)) == 1
    accept = row.get("accept_length")
    return {
        "host": row["host"],
        "gpus_driver": "%s/%s" % (row.get("gpus") or 0, row.get("driver") or "-"),
        "sglang": "%s (%s)" % (row.get("sglang_version") or "-", row.get("venv") or "-"),
        "patch": row.get("patch") or "-",
        "drafts": drafts[0] if same else " | ".join(drafts),
        "weights": _weights_cell(row.get("weights") or []),
        "accept_length": "-" if accept in (None, "") else "%.2f" % float(accept),
        "health": "healthy" if row.get("healthy") else "DOWN",
        "routers": _routers_cell(row),
        "restart_pending": ", ".join(row.get("restart_pending") or []) or "no",
    }


def table(rows):
    """Text lines: a header and one aligned line per host."""
    cells = [_cells(row) for row in rows]
    widths = dict((key, max([len(title)] + [len(cell[key]) for cell in cells])) for key, title in COLUMNS)
    line = "  ".join("%%-%ds" % widths[key] for key, _title in COLUMNS)
    return [(line % tuple(title for _key, title in COLUMNS)).rstrip()] + \
        [(line % tuple(cell[key] for key, _title in COLUMNS)).rstrip() for cell in cells]
