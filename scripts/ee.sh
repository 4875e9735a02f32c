#!/usr/bin/env bash
# The execution environment (execution-environment.yml):
#   scripts/ee.sh build                 ansible-builder -> image gpufleet-sglang-ee:<version>
#   scripts/ee.sh run PLAYBOOK [ARGS]   PLAYBOOK (e.g. site.yml) against the demo fleet with
#                                       ansible-runner inside that image, as AWX/AAP runs a job
#                                       (GPUFLEET_EE_JSON=1: ansible-runner's JSON events on stdout)
# `run` gives ansible-runner what an AWX job has: a project (docs/awx-project, the layout the README gives
# AWX/AAP users: playbooks importing the collection's by name), an inventory (the demo
# fleet's, without a key file) and a machine credential (the demo's SSH key, handed to ssh-agent
# inside the container). The wheelhouses in GPUFLEET_CACHE are mounted read-only where the
# inventory looks for them. ARGS go to ansible-playbook.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
CACHE="${GPUFLEET_CACHE:-$HOME/.cache/gpufleet-sglang}"
version="$(awk '/^version:/ {print $2}' "$root/galaxy.yml")"
IMAGE="${GPUFLEET_EE_IMAGE:-gpufleet-sglang-ee:$version}"
log() { printf 'ee: %s\n' "$*" >&2; }

# The CA bundle and index pip uses on this machine, so that the build reaches the same index.
pip_setting() { "$venv/bin/python" -m pip config get "global.$1" 2>/dev/null || true; }

build() {
    local files="$root/build/ee/files" cert index previous
    bash "$root/scripts/base-image.sh" trixie
    rm -rf "$root/build/ee"
    mkdir -p "$files"
    "$venv/bin/ansible-galaxy" collection build --force --output-path "$files" "$root" >/dev/null
    mv "$files"/gpufleet-sglang-*.tar.gz "$files/gpufleet-sglang.tar.gz"
    cert="${PIP_CERT:-$(pip_setting cert)}"
    [ -n "$cert" ] || cert="$("$venv/bin/python" -c 'import ssl; print(ssl.get_default_verify_paths().openssl_cafile)')"
    cp "$cert" "$files/pip-ca.crt"
    index="${PIP_INDEX_URL:-$(pip_setting index-url)}"
    index="${index:-https://pypi.org/simple}"
    log "building $IMAGE (pip index $index, CA bundle $cert)"
    previous="$(docker image inspect -f '{{.Id}}' "$IMAGE" 2>/dev/null || true)"
    (cd "$root" && "$venv/bin/ansible-builder" build --container-runtime docker --file execution-environment.yml \
        --context build/ee/context --tag "$IMAGE" --build-arg "PIP_INDEX_URL=$index" --verbosity 1)
    log "built $IMAGE"
    # The image it replaces would stay behind untagged (about 0.5 GB a build); one a container still uses stays.
    if [ -n "$previous" ] && [ "$previous" != "$(docker image inspect -f '{{.Id}}' "$IMAGE")" ]; then
        docker image rm "$previous" >/dev/null 2>&1 || true
    fi
}

data=""
cleanup() { [ -z "$data" ] || rm -rf "$data"; }
trap cleanup EXIT

run() {
    local playbook="$1"
    shift
    docker image inspect "$IMAGE" >/dev/null 2>&1 || { log "no image $IMAGE: run scripts/ee.sh build"; exit 1; }
    data="$(mktemp -d /tmp/gpufleet-ee.XXXXXX)"
    mkdir -p "$data/project" "$data/env"
    cp -r "$root/docs/awx-project/." "$data/project/"
    cp -r "$root/inventories/demo" "$data/inventory"
    # The credential, not the inventory, holds the key.
    sed -i '/^ansible_ssh_private_key_file:/,/^ *{{.*}}\/demo-ssh\/id_ed25519$/d' "$data/inventory/group_vars/all.yml"
    cp "$CACHE/demo-ssh/id_ed25519" "$data/env/ssh_key"
    printf 'GPUFLEET_CACHE: %s\nANSIBLE_PIPELINING: "True"\n' "$CACHE" >"$data/env/envvars"
    local output=()
    [ -z "${GPUFLEET_EE_JSON:-}" ] || output=(-j)
    "$venv/bin/ansible-runner" run "$data" "${output[@]}" --playbook "$playbook" --cmdline="$*" \
        --process-isolation --process-isolation-executable docker --container-image "$IMAGE" \
        --container-volume-mount "$CACHE:$CACHE:ro" --container-option=--network=gpufleet-demo
}

case "${1:-}" in
    build) build ;;
    run) shift; [ "$#" -ge 1 ] || { echo "usage: $0 run PLAYBOOK [ansible-playbook args]" >&2; exit 2; }; run "$@" ;;
    *) echo "usage: $0 build | run PLAYBOOK [ansible-playbook args]" >&2; exit 2 ;;
esac
