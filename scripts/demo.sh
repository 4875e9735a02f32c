#!/usr/bin/env bash
# The demo fleet: three systemd containers from the local base image, named and addressed as in
# inventories/demo/hosts.yml, and a fourth that serves the stand-in for NVIDIA's CUDA repository
# (tests/standin/nvidia_repo) to them on their own network.   Usage: scripts/demo.sh up|down|url
# (url prints where clients reach the router that playbooks/site.yml puts on gpufleet-demo-1).
# The controller reaches the hosts as a real fleet's: over SSH as the user deploy, who becomes
# root with sudo, with a key that every `up` makes anew ($GPUFLEET_CACHE/demo-ssh).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
IMAGE="${GPUFLEET_BASE_IMAGE:-gpufleet-sglang/debian12-systemd:bookworm}"
# GPUFLEET_DEMO_SIZE hosts (3, as inventories/demo names them; the example inventory's test adds a fourth).
HOSTS=()
declare -A ADDRESS=()
for n in $(seq 1 "${GPUFLEET_DEMO_SIZE:-3}"); do
    HOSTS+=("gpufleet-demo-$n")
    ADDRESS[gpufleet-demo-$n]="10.213.0.$((10 + n))"
done
REPO=gpufleet-demo-cuda-repo
NETWORK=gpufleet-demo
SUBNET=10.213.0.0/24
CACHE="${GPUFLEET_CACHE:-$HOME/.cache/gpufleet-sglang}"
log() { printf 'demo: %s\n' "$*" >&2; }
running() { [ "$(docker inspect -f '{{.State.Running}}' "$1" 2>/dev/null)" = "true" ]; }

up() {
    bash "$root/scripts/engine.sh"
    bash "$root/scripts/base-image.sh"
    log "wheelhouse: $("$root/.venv/bin/python" "$root/tests/gpufleet_testlib/sglang_wheels.py" --wheelhouse 0.5.9)"
    log "router wheelhouse: $(PYTHONPATH="$root/tests" "$root/.venv/bin/python" -m gpufleet_testlib.router 3.11)"
    GPUFLEET_CACHE="$CACHE" python3 "$root/tests/standin/nvidia_repo/build.py"
    if [ "$(docker network inspect -f '{{range .IPAM.Config}}{{.Subnet}}{{end}}' "$NETWORK" 2>/dev/null)" != "$SUBNET" ]; then
        down
        docker network create --subnet "$SUBNET" "$NETWORK" >/dev/null
    fi
    if ! running "$REPO"; then
        docker rm -f "$REPO" >/dev/null 2>&1 || true
        docker run -d --name "$REPO" --network "$NETWORK" -v "$CACHE:/srv/cache:ro" --label gpufleet.demo=true \
            "$IMAGE" python3 -m http.server 8080 --directory /srv/cache/nvidia-standin-repo >/dev/null
        log "$REPO started"
    fi
    for name in "${HOSTS[@]}"; do
        if running "$name"; then
            log "$name is running"
            continue
        fi
        docker rm -f "$name" >/dev/null 2>&1 || true
        # restart always: the driver role reboots a host after installing its driver.
        docker run -d --name "$name" --hostname "$name" --network "$NETWORK" --ip "${ADDRESS[$name]}" --restart always \
            --cap-add SYS_ADMIN --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
            -v /sys/fs/cgroup:/sys/fs/cgroup:rw --tmpfs /run --tmpfs /run/lock -e container=docker \
            --label gpufleet.demo=true "$IMAGE" /sbin/init >/dev/null
        log "$name started"
    done
    for name in "${HOSTS[@]}"; do
        for _ in $(seq 1 60); do
            state="$(docker exec "$name" systemctl is-system-running 2>/dev/null || true)"
            case "$state" in running|degraded) break ;; esac
            sleep 1
        done
        log "$name: systemd ${state:-not answering}"
    done
    ssh_login
}

# A new key for this run, and the deploy user let in with it on every host.
ssh_login() {
    local key="$CACHE/demo-ssh/id_ed25519" name
    mkdir -p "$(dirname "$key")"
    rm -f "$key" "$key.pub"
    ssh-keygen -q -t ed25519 -N '' -C "gpufleet demo" -f "$key"
    for name in "${HOSTS[@]}"; do
        docker exec -i "$name" bash -s -- deploy "$(cat "$key.pub")" <"$root/scripts/ssh-login.sh"
        log "$name: ssh deploy@${ADDRESS[$name]} (sudo without password)"
    done
}

url() {
    local address
    address="$(docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "${HOSTS[0]}")"
    printf 'clients: http://%s:30080 (sglang-router in front of %s; Authorization: Bearer gpufleet-demo-key)\n' \
        "$address" "${HOSTS[*]}"
    printf '  curl -s http://%s:30080/generate -H "Authorization: Bearer gpufleet-demo-key" \\\n' "$address"
    printf '       -H "Content-Type: application/json" \\\n'
    printf '       -d %s\n' "'{\"text\": \"Hello\", \"sampling_params\": {\"max_new_tokens\": 8}}'"
}

down() {
    local name
    for name in $(docker ps -a --filter label=gpufleet.demo=true --format '{{.Names}}'); do
        docker rm -f "$name" >/dev/null && log "$name removed"
    done
    docker network rm "$NETWORK" >/dev/null 2>&1 || true
}

case "${1:-}" in
    up) up ;;
    down) down ;;
    url) url ;;
    *) echo "usage: $0 up|down|url" >&2; exit 2 ;;
esac
