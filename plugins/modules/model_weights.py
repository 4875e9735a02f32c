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
    Files are hashed O(hash_workers) at a time. It fails, with the numbers, when the filesystem cannot hold the
    bytes it will fetch (files another staged revision has verified are hard-linked and count for nothing).
  - Every name, size and digest of a listing (from the source or from a manifest on disk) is checked before
    anything is planned; a name that would leave the revision's directory (absolute, C(..), a backslash, a NUL),
    an entry listed twice, a size that is not a whole number of bytes, or a listing without end refuses the whole
    revision, naming the entry and the repository, and nothing is written.
  - O(state=fetched) fetches one planned piece of a file (O(file), an element of RV(fetch)) into C(<name>.part),
    resumed with a Range request where a transfer stopped (a body cut short is asked again from there; the
    C(.part) is kept for the next run when the source keeps failing), and once the file is whole verifies it and
    only then gives it its name; from another staged revision that has it verified (a hard link), from a peer of
    the fleet when O(peer) is given, and from the source when the peer does not have it within O(peer_wait)
    seconds. A copy found wrong that other revisions shared (a hard link) is replaced for each of them.
  - O(state=serving) runs this host's peer server (a transient systemd unit) that serves its complete files to
    the hosts below it in a fan-out; O(state=stopped) stops it.
  - The revisions no unit names any more are removed by M(gpufleet.sglang.unused_revisions).
author:
  - gpufleet.sglang developers (@gpufleet)
options:
  state:
    description: What to do.
    type: str
    choices: [resolved, inspected, fetched, serving, stopped]
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
    description:
      - A Hugging Face token for O(endpoint) (gated or private repositories); never logged.
      - It is sent to the origin of O(endpoint) only, never to a host a redirect points to (the Hub's CDN).
    type: str
    default: ""
  validate_certs:
    description: Verify the TLS certificate of an C(https://) O(endpoint) (and of the hosts it redirects to).
    type: bool
    default: true
  ca_path:
    description: A PEM file of the CA certificates that O(endpoint)'s certificate is verified with (an on-prem
      mirror with a private CA), instead of the system's.
    type: path
  client_cert:
    description: A PEM client certificate for O(endpoint) (mutual TLS); with O(client_key) when the key is apart.
    type: path
  client_key:
    description: The PEM private key of O(client_cert).
    type: path
  use_proxy:
    description: Use the proxy the environment names (C(https_proxy), C(http_proxy), C(no_proxy)).
    type: bool
    default: true
  timeout:
    description: Seconds a request may wait for an answer, and the window in which a body must send 64 KiB.
    type: int
    default: 60
  hash_workers:
    description: How many files are hashed at once; V(0) is one per core, at most 16.
    type: int
    default: 0
  piece_size:
    description: Files larger than this many bytes are planned in pieces of this size (RV(fetch)), so that
      progress shows within a large shard; V(0) plans whole files.
    type: int
    default: 4294967296
  full:
    description: Rehash every file, trusting no size and mtime recorded before.
    type: bool
    default: false
  file:
    description:
      - One planned piece of a file (an element of RV(fetch)), for O(state=fetched).
      - Its name is checked again and its C(dir) must be its revision's directory below O(root).
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
    description:
      - The address this host's peer server listens on (required with O(state=serving)), one the hosts it feeds
        reach it at. It serves with a bearer token over plain HTTP, so there is no default of all addresses.
    type: str
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
    endpoint: https://hf-mirror.internal:8443
    ca_path: /etc/ssl/certs/internal-ca.pem
  run_once: true
  register: resolved

- name: Verify what the host has and plan what it lacks
  gpufleet.sglang.model_weights:
    models: "{{ resolved.models }}"
    endpoint: https://hf-mirror.internal:8443
    ca_path: /etc/ssl/certs/internal-ca.pem
  register: weights

- name: Fetch what it lacks, piece by piece, with a private CA
  gpufleet.sglang.model_weights:
    state: fetched
    file: "{{ item }}"
    endpoint: https://hf-mirror.internal:8443
    ca_path: /etc/ssl/certs/internal-ca.pem
  loop: "{{ weights.fetch }}"
  loop_control:
    label: "{{ item.path }} {{ item.piece }}/{{ item.pieces }}"
"""

RETURN = r"""
models:
  description: >-
    Each model, resolved (C(name), C(repo), C(revision), C(commit), C(path)) or inspected (C(name), C(source)
    hub or path, C(repo), C(commit), C(dir) where SGLang reads it, C(files), C(bytes), C(lacks) what is missing
    or wrong by file, C(needed) bytes that will come over the network, C(linked) bytes that another staged
    revision has verified (hard links, no space), C(free) bytes free there).
  returned: states resolved and inspected
  type: list
  elements: dict
commits:
  description: >-
    The commit of each model by its name, C({target: <commit>, draft: <commit>}): the one staged from the Hub, or the
    one a directory's staging record names; empty for a directory without one.
  returned: state inspected
  type: dict
  sample: {target: 0123456789abcdef0123456789abcdef01234567, draft: ""}
fetch:
  description: >-
    The pieces to fetch, one or more per file (O(piece_size)), with C(piece) and C(pieces), C(end) (the byte it
    ends at), C(done) (bytes planned up to its end), C(total), C(number) and C(count).
  returned: state inspected
  type: list
  elements: dict
hashed:
  description: What this run hashed to verify (C(files), C(bytes), C(seconds)); a no-op hashes nothing.
  returned: state inspected
  type: dict
verified:
  description: Whether every model's files are all present and verified.
  returned: state inspected
  type: bool
bytes:
  description: The bytes O(file) took over the network.
  returned: state fetched
  type: int
source:
  description: Where O(file) came from (the peer, the endpoint, or another staged revision's directory); empty
    when an earlier piece made the file whole.
  returned: state fetched
  type: str
note:
  description: What happened beside the fetch (a peer that failed, revisions whose shared copy was replaced).
  returned: state fetched
  type: str
listen:
  description: Where the peer server listens, C(ADDRESS:PORT).
  returned: state serving
  type: str
"""

import grp

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpufleet.sglang.plugins.module_utils import _model_weights as weights
from ansible_collections.gpufleet.sglang.plugins.module_utils import _weights_peer as peers
from ansible_collections.gpufleet.sglang.plugins.module_utils._http import HttpError as TransportError
from ansible_collections.gpufleet.sglang.plugins.module_utils._weights_http import Hub


def source(module):
    p = module.params
    return Hub(p["endpoint"], p["token"], p["validate_certs"], p["ca_path"], p["client_cert"], p["client_key"],
               p["use_proxy"], p["timeout"])


def resolved(module):
    out = []
    for model in module.params["models"]:
        model = dict(model)
        if model.get("repo") and not model.get("path"):
            revision = model.get("revision") or "main"
            model["commit"] = revision if weights.COMMIT.match(revision) else weights.resolve(
                source(module), model["repo"], revision)
        out.append(model)
    return dict(changed=False, models=out)


def inspected(module):
    p = module.params
    hub, stats = source(module), {"files": 0, "bytes": 0, "seconds": 0.0}
    models = [weights.inspect(model, p["root"], hub, p["full"], write=not module.check_mode,
                              workers=p["hash_workers"], stats=stats) for model in p["models"]]
    problems = weights.unusable(models)
    if problems:
        module.fail_json(msg="%s. Nothing was changed and the server was not touched: put the model's files there, "
                             "or give a Hugging Face repository to stage it from." % problems, models=models)
    stats["seconds"] = round(stats["seconds"], 3)
    return dict(changed=False, models=models, commits=dict((model["name"], model["commit"]) for model in models),
                fetch=weights.plan_fetches(models, p["piece_size"]),
                verified=not any(model["lacks"] for model in models), hashed=stats)


def fetched(module):
    p = module.params
    if module.check_mode:
        return dict(changed=True, bytes=0, source="", note="")
    peer = Hub(p["peer"], p["peer_token"], use_proxy=False, timeout=p["timeout"]) if p["peer"] else None
    result = weights.stage_file(p["file"], source(module), p["root"], peer, p["peer_wait"],
                                grp.getgrnam(p["group"]).gr_gid)
    return dict(changed=True, **result)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            state=dict(type="str", default="inspected",
                       choices=["resolved", "inspected", "fetched", "serving", "stopped"]),
            models=dict(type="list", elements="dict", default=[]),
            root=dict(type="path", default="/var/lib/sglang/models/weights"),
            endpoint=dict(type="str", default="https://huggingface.co"),
            token=dict(type="str", default="", no_log=True),
            validate_certs=dict(type="bool", default=True),
            ca_path=dict(type="path"),
            client_cert=dict(type="path"),
            client_key=dict(type="path", no_log=False),
            use_proxy=dict(type="bool", default=True),
            timeout=dict(type="int", default=60),
            full=dict(type="bool", default=False),
            hash_workers=dict(type="int", default=0),
            piece_size=dict(type="int", default=4 * 1024 ** 3),
            file=dict(type="dict"),
            peer=dict(type="str", default=""),
            peer_token=dict(type="str", default="", no_log=True),
            peer_wait=dict(type="int", default=1800),
            address=dict(type="str"),
            port=dict(type="int", default=18431),
            group=dict(type="str", default="sglang"),
            user=dict(type="str", default="sglang"),
        ),
        required_if=[("state", "fetched", ["file"]), ("state", "serving", ["peer_token", "address"])],
        supports_check_mode=True,
    )
    state = module.params["state"]
    try:
        if state in ("serving", "stopped"):
            p = module.params
            changed = module.check_mode or (peers.serve(p["root"], p["address"], p["port"], p["peer_token"], p["user"],
                                                        p["group"], module.run_command) if state == "serving"
                                            else peers.stop(module.run_command))
            result = dict(changed=changed)
            if state == "serving":
                result["listen"] = "%s:%d" % (p["address"], p["port"])
            module.exit_json(**result)
        module.exit_json(**dict(resolved=resolved, inspected=inspected, fetched=fetched)[state](module))
    except (weights.WeightsError, peers.PeerError, TransportError) as exc:
        module.fail_json(msg=str(exc))


if __name__ == "__main__":
    main()
