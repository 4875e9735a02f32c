#!/usr/bin/env bash
# Make sure a Docker engine answers. An engine that already runs is left alone;
# otherwise Debian's docker.io is installed (when missing) and dockerd started.
set -euo pipefail

log() { printf 'engine: %s\n' "$*" >&2; }

engine_answers() { docker info >/dev/null 2>&1; }

# systemd in each container takes inotify instances from the host's per-user limit (root's, 128 by
# default): past about 30 systemd containers, new ones hang in their boot ("Failed to create inotify
# object: Too many open files"). The molecule lanes, the demo and the scale bench's 30 hosts need more.
inotify_floor=1024
if [ "$(cat /proc/sys/fs/inotify/max_user_instances 2>/dev/null || echo "$inotify_floor")" -lt "$inotify_floor" ]; then
    if [ "$(id -u)" -eq 0 ] && sysctl -qw "fs.inotify.max_user_instances=$inotify_floor" 2>/dev/null; then
        log "raised fs.inotify.max_user_instances to $inotify_floor"
    else
        log "fs.inotify.max_user_instances is below $inotify_floor: many systemd containers may hang at boot"
    fi
fi

if engine_answers; then
    log "a Docker engine already answers; leaving it alone"
    exit 0
fi

if ! command -v dockerd >/dev/null 2>&1; then
    [ "$(id -u)" -eq 0 ] || { log "dockerd is missing and installing it needs root"; exit 1; }
    log "installing Debian's docker.io"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null
fi

if ! command -v docker >/dev/null 2>&1; then
    log "the docker client is missing after installing docker.io"; exit 1
fi

log_file=/var/log/gpufleet-dockerd.log
log "starting dockerd (log: $log_file)"
nohup dockerd >"$log_file" 2>&1 &

for _ in $(seq 1 60); do
    if engine_answers; then
        log "dockerd answers"
        exit 0
    fi
    sleep 1
done
log "dockerd did not answer within 60 s; last lines of $log_file:"
tail -n 20 "$log_file" >&2
exit 1
