#!/usr/bin/env bash
# Build the local Debian + systemd base images for molecule and the demo fleet:
#   scripts/base-image.sh [SUITE...]    bookworm and trixie when none is named
# giving gpufleet-sglang/debian12-systemd:bookworm and gpufleet-sglang/debian13-systemd:trixie.
# No registry can be reached, so each root filesystem comes from debootstrap and enters
# Docker through `docker import`. An image carries the hash of this recipe as a label; it
# is rebuilt only when missing or when the recipe changed.
set -euo pipefail

declare -A DEBIAN_VERSION=([bookworm]=12 [trixie]=13)
PACKAGES=systemd,systemd-sysv,dbus,python3,python3-apt,python3-venv,sudo,openssh-server,procps,iproute2,ca-certificates,gnupg,curl
# Units that have nothing to do inside a container and only slow its boot.
MASKED_UNITS="systemd-udevd.service systemd-udev-trigger.service getty.target console-getty.service \
systemd-remount-fs.service dev-hugepages.mount sys-fs-fuse-connections.mount apt-daily.timer apt-daily-upgrade.timer"

log() { printf 'base-image: %s\n' "$*" >&2; }

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
recipe_hash="$(sha256sum <"$here/base-image.sh" | cut -c1-16)"

# The mirror is the one this machine's apt already uses, unless DEBIAN_MIRROR says otherwise.
mirror_from_host() {
    local uri
    uri="$(grep -hs -m1 -E '^URIs:.*/debian/?$' /etc/apt/sources.list.d/*.sources | awk '{print $2}' || true)"
    [ -n "$uri" ] || uri="$(grep -hs -m1 -E '^deb .*/debian/? ' /etc/apt/sources.list | awk '{print $2}' || true)"
    printf '%s' "$uri"
}

image_of() {
    printf 'gpufleet-sglang/debian%s-systemd:%s' "${DEBIAN_VERSION[$1]}" "$1"
}

recipe_of() {
    docker image inspect -f '{{ index .Config.Labels "gpufleet.recipe" }}' "$(image_of "$1")" 2>/dev/null || true
}

build_image() {
    local suite="$1" image mirror rootfs unit
    image="$(image_of "$suite")"
    log "building $image (recipe $recipe_hash, found '$(recipe_of "$suite")')"

    mirror="${DEBIAN_MIRROR:-$(mirror_from_host)}"
    [ -n "$mirror" ] || { log "no Debian mirror found in /etc/apt; set DEBIAN_MIRROR"; exit 1; }
    rootfs="$(mktemp -d /var/tmp/gpufleet-rootfs.XXXXXX)"
    log "debootstrap $suite from $mirror"
    debootstrap --variant=minbase --include="$PACKAGES" "$suite" "$rootfs" "$mirror" >"$rootfs.log" 2>&1 || {
        tail -n 30 "$rootfs.log" >&2; rm -rf "$rootfs" "$rootfs.log"; exit 1; }
    rm -f "$rootfs.log"

    cat >"$rootfs/etc/apt/sources.list" <<SOURCES
deb $mirror $suite main
deb $mirror $suite-updates main
deb ${mirror%/debian*}/debian-security $suite-security main
SOURCES
    rm -f "$rootfs"/etc/apt/sources.list.d/debian.sources
    printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' >"$rootfs/etc/apt/apt.conf.d/90gpufleet"
    for unit in $MASKED_UNITS; do
        ln -sf /dev/null "$rootfs/etc/systemd/system/$unit"
    done
    : >"$rootfs/etc/machine-id"
    # Host keys are made in each container (scripts/ssh-login.sh), not shared by every one.
    rm -f "$rootfs"/etc/ssh/ssh_host_*
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
    # No package lists are shipped: date their folder to the epoch so that apt's cache_valid_time
    # sees a stale cache and updates it, as it would on a real host that was never updated.
    touch -d @0 "$rootfs/var/lib/apt/lists"

    log "importing into Docker"
    tar -C "$rootfs" -c . | docker import \
        --change 'CMD ["/sbin/init"]' \
        --change 'ENV container=docker' \
        --change "LABEL gpufleet.recipe=$recipe_hash" \
        - "$image" >/dev/null
    rm -rf "$rootfs"
    log "built $image"
}

if [ "$#" -eq 0 ]; then
    set -- bookworm trixie
fi
stale=()
for suite in "$@"; do
    [ -n "${DEBIAN_VERSION[$suite]:-}" ] || { log "unknown suite $suite (known: ${!DEBIAN_VERSION[*]})"; exit 1; }
    if [ "$(recipe_of "$suite")" = "$recipe_hash" ]; then
        log "$(image_of "$suite") is current (recipe $recipe_hash)"
    else
        stale+=("$suite")
    fi
done
[ "${#stale[@]}" -gt 0 ] || exit 0
if ! command -v debootstrap >/dev/null 2>&1; then
    log "installing debootstrap"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
fi
# The suites at once: debootstrap mostly waits on the mirror.
pids=()
for suite in "${stale[@]}"; do
    build_image "$suite" &
    pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
    wait "$pid" || status=1
done
exit "$status"
