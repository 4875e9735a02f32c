#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: model_weights
short_description: Stage a model's weights on the host at a pinned revision, verified, before any server uses them
version_added: 0.2.0
description:
  - Each model is a Hugging Face repository at a revision, staged below O(root) in C(<org>--<name>/<commit>) from
    the Hub or a mirror that speaks its API (O(endpoint), the C(HF_ENDPOINT) of C(huggingface_hub)), or a directory
    that is already on the host (a shared filesystem), checked where it is and never copied.
  - O(state=resolved) turns each revision (a branch, a tag or a commit) into the commit it names; run it once per
    run so that every host stages the same commit.
  - O(state=inspected) verifies what the host has against the revision's listing (every file, its size, and its
    sha256 for LFS files or its git blob id for the others) and plans what to fetch. A revision staged before is
    verified against the listing its manifest keeps, trusting each file whose size and mtime are those it was
    verified with (O(full) rehashes them all), so that a no-op neither asks the source nor rehashes the weights.
    It fails, with the numbers, when the filesystem cannot hold what is to be fetched.
  - O(state=fetched) fetches one planned file (O(file)) into C(<name>.part), resumed where a transfer stopped,
    verifies it and only then gives it its name; from a peer of the fleet when O(peer) is given, and from the
    source when the peer does not have it within O(peer_wait) seconds.
  - O(state=serving) runs this host's peer server (a transient systemd unit) that serves its complete files to
    the hosts below it in a fan-out; O(state=stopped) stops it.
  - O(state=pruned) removes the revisions of O(repos) beyond the newest O(keep), except those a file in
    O(in_use_files) names (the live and staged units) and those of O(used).
author:
  - gpufleet.sglang developers (@gpufleet)
options:
  state:
    description: What to do.
    type: str
    choices: [resolved, inspected, fetched, serving, stopped, pruned]
    default: inspected
  models:
    description:
      - The models, for O(state=resolved) and O(state=inspected). Each has a C(name) (target, draft) and either a
        C(repo) (a Hugging Face repository id) with a C(revision) (O(state=resolved)) or a C(commit)
        (O(state=inspected)), or a C(path) on the host, or an inspected model (RV(models)) whose C(dir) is checked.
      - A C(path) (or C(dir)) that lacks a file fails the module, naming the model, the directory and each file.
    type: list
    elements: dict
    default: []
  root:
    description: Where staged revisions live, C(<root>/<org>--<name>/<commit>).
    type: path
    default: /var/lib/sglang/models/weights
  endpoint:
    description: The Hugging Face Hub, or a mirror of it.
    type: str
    default: https://huggingface.co
  token:
    description: A Hugging Face token for O(endpoint) (gated or private repositories); never logged.
    type: str
    default: ""
  full:
    description: Rehash every file, trusting no size and mtime recorded before.
    type: bool
    default: false
  file:
    description: One planned file (an element of RV(fetch)), for O(state=fetched).
    type: dict
  peer:
    description: The URL of the peer server to fetch O(file) from first, C(http://host:port).
    type: str
    default: ""
  peer_token:
    description: The token the peers' servers ask for (O(state=fetched) with O(peer), O(state=serving)).
    type: str
    default: ""
  peer_wait:
    description: Seconds to wait for a peer that does not have O(file) yet before fetching it from the source.
    type: int
    default: 1800
  address:
    description: The address this host's peer server listens on (O(state=serving)).
    type: str
    default: 0.0.0.0
  port:
    description: The port this host's peer server listens on (O(state=serving)).
    type: int
    default: 18431
  group:
    description: The service account's group, which the staged files (0640) and directories (0750) belong to, and
      the peer server runs as (with O(user)).
    type: str
    default: sglang
  user:
    description: The user the peer server runs as.
    type: str
    default: sglang
  repos:
    description: The repositories whose old revisions O(state=pruned) removes.
    type: list
    elements: str
    default: []
  keep:
    description: How many revisions of each repository O(state=pruned) keeps (the newest), beside those in use.
    type: int
    default: 2
  used:
    description: Revision directories O(state=pruned) keeps in any case.
    type: list
    elements: path
    default: []
  in_use_files:
    description: Files or shell patterns (the units) whose text names revision directories in use, which
      O(state=pruned) keeps.
    type: list
    elements: path
    default: []
attributes:
  check_mode:
    description: Can run in check mode and return changed status prediction without modifying the target.
    support: full
    details: O(state=inspected) writes nothing in check mode; the others report what they would do.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing) when in diff mode.
    support: none
"""

EXAMPLES = r"""
- name: Resolve the revisions once
  gpufleet.sglang.model_weights:
    state: resolved
    models: [{name: target, repo: moonshotai/Kimi-K2.5, revision: main}]
    endpoint: http://hf-mirror.internal:8090
  run_once: true
  register: resolved

- name: Verify what the host has and plan what it lacks
  gpufleet.sglang.model_weights:
    models: "{{ resolved.models }}"
    endpoint: http://hf-mirror.internal:8090
  register: weights

- name: Fetch what it lacks, file by file
  gpufleet.sglang.model_weights:
    state: fetched
    file: "{{ item }}"
    endpoint: http://hf-mirror.internal:8090
  loop: "{{ weights.fetch }}"
"""

RETURN = r"""
models:
  description: >-
    Each model, resolved (C(name), C(repo), C(revision), C(commit), C(path)) or inspected (C(name), C(source)
    hub or path, C(repo), C(commit), C(dir) where SGLang reads it, C(files), C(bytes), C(lacks) what is missing
    or wrong by file, C(needed) bytes still to fetch, C(free) bytes free there).
  returned: states resolved and inspected
  type: list
  elements: dict
fetch:
  description: The files to fetch, with C(number), C(count), C(before) (bytes planned before it) and C(total).
  returned: state inspected
  type: list
  elements: dict
verified:
  description: Whether every model's files are all present and verified.
  returned: state inspected
  type: bool
bytes:
  description: The bytes O(file) took over the network.
  returned: state fetched
  type: int
source:
  description: Where O(file) came from (the peer or the endpoint).
  returned: state fetched
  type: str
pruned:
  description: The revision directories removed (or, in check mode, that would be).
  returned: state pruned
  type: list
  elements: str
"""

import glob
import grp
import shutil

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpufleet.sglang.plugins.module_utils import _model_weights as weights
from ansible_collections.gpufleet.sglang.plugins.module_utils import _weights_peer as peers


def resolved(module):
    out = []
    for model in module.params["models"]:
        model = dict(model)
        if model.get("repo") and not model.get("path"):
            revision = model.get("revision") or "main"
            model["commit"] = revision if weights.COMMIT.match(revision) else weights.resolve(
                module.params["endpoint"], model["repo"], revision, module.params["token"])
        out.append(model)
    return dict(changed=False, models=out)


def inspected(module):
    p = module.params
    models = [weights.inspect(model, p["root"], p["endpoint"], p["token"], p["full"], write=not module.check_mode)
              for model in p["models"]]
    problems = weights.unusable(models)
    if problems:
        module.fail_json(msg="%s. Nothing was changed and the server was not touched: put the model's files there, "
                             "or give a Hugging Face repository to stage it from." % problems, models=models)
    return dict(changed=False, models=models, fetch=weights.plan_fetches(models),
                verified=not any(model["lacks"] for model in models))


def fetched(module):
    p = module.params
    if module.check_mode:
        return dict(changed=True, bytes=0, source="")
    result = weights.stage_file(p["file"], p["endpoint"], p["token"], p["peer"], p["peer_token"], p["peer_wait"],
                                grp.getgrnam(p["group"]).gr_gid)
    return dict(changed=True, **result)


def pruned(module):
    p = module.params
    used = list(p["used"])
    texts = []
    for path in [found for pattern in p["in_use_files"] for found in glob.glob(pattern)]:
        try:
            with open(path) as handle:
                texts.append(handle.read())
        except OSError:
            pass
    gone = []
    for repo in p["repos"]:
        for path in weights.pruned_revisions(p["root"], repo, p["keep"], used):
            if not any(path in text for text in texts):
                gone.append(path)
    if not module.check_mode:
        for path in gone:
            shutil.rmtree(path)
    return dict(changed=bool(gone), pruned=gone)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            state=dict(type="str", default="inspected",
                       choices=["resolved", "inspected", "fetched", "serving", "stopped", "pruned"]),
            models=dict(type="list", elements="dict", default=[]),
            root=dict(type="path", default="/var/lib/sglang/models/weights"),
            endpoint=dict(type="str", default="https://huggingface.co"),
            token=dict(type="str", default="", no_log=True),
            full=dict(type="bool", default=False),
            file=dict(type="dict"),
            peer=dict(type="str", default=""),
            peer_token=dict(type="str", default="", no_log=True),
            peer_wait=dict(type="int", default=1800),
            address=dict(type="str", default="0.0.0.0"),
            port=dict(type="int", default=18431),
            group=dict(type="str", default="sglang"),
            user=dict(type="str", default="sglang"),
            repos=dict(type="list", elements="str", default=[]),
            keep=dict(type="int", default=2),
            used=dict(type="list", elements="path", default=[]),
            in_use_files=dict(type="list", elements="path", default=[]),
        ),
        required_if=[("state", "fetched", ["file"]), ("state", "serving", ["peer_token"])],
        supports_check_mode=True,
    )
    state = module.params["state"]
    try:
        if state in ("serving", "stopped"):
            p = module.params
            changed = module.check_mode or (peers.serve(p["root"], p["address"], p["port"], p["peer_token"], p["user"],
                                                        p["group"], module.run_command) if state == "serving"
                                            else peers.stop(module.run_command))
            module.exit_json(changed=changed)
        module.exit_json(**dict(resolved=resolved, inspected=inspected, fetched=fetched, pruned=pruned)[state](module))
    except (weights.WeightsError, peers.PeerError) as exc:
        module.fail_json(msg=str(exc))


if __name__ == "__main__":
    main()
