#!/usr/bin/env bash
# Runs inside a systemd container as root (docker exec -i NAME bash -s -- ... <scripts/ssh-login.sh):
# makes it a host the controller reaches as a real fleet's is, over SSH as a deploy user who
# becomes root with sudo.
#   ssh-login.sh USER PUBLIC_KEY [BECOME_PASSWORD]
# Without BECOME_PASSWORD sudo asks none (NOPASSWD); with it, sudo asks for that password.
# Each container gets its own SSH host keys; the user's authorized_keys is replaced by PUBLIC_KEY.
set -euo pipefail
user="$1" key="$2" password="${3:-}"

if [ ! -e /etc/ssh/ssh_host_ed25519_key ]; then
    ssh-keygen -A >/dev/null
fi
id "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$user"
home="$(getent passwd "$user" | cut -d: -f6)"
install -d -m 0700 -o "$user" -g "$user" "$home/.ssh"
printf '%s\n' "$key" >"$home/.ssh/authorized_keys"
chown "$user:" "$home/.ssh/authorized_keys"
chmod 0600 "$home/.ssh/authorized_keys"
if [ -n "$password" ]; then
    printf '%s:%s\n' "$user" "$password" | chpasswd
    printf '%s ALL=(ALL:ALL) ALL\n' "$user" >"/etc/sudoers.d/$user"
else
    printf '%s ALL=(ALL:ALL) NOPASSWD: ALL\n' "$user" >"/etc/sudoers.d/$user"
fi
chmod 0440 "/etc/sudoers.d/$user"
visudo -cq
# sshd failed at boot without host keys (and may have hit its start limit): start it afresh.
systemctl reset-failed ssh.service 2>/dev/null || true
systemctl enable --now ssh.service >/dev/null 2>&1
for _ in $(seq 1 50); do
    if systemctl is-active --quiet ssh.service; then
        exit 0
    fi
    sleep 0.2
done
echo "ssh-login: sshd did not start" >&2
systemctl status ssh.service --no-pager >&2 || true
exit 1
