#!/usr/bin/env bash
# Setup for bindings/sftp's tests against a real OpenSSH server
# (bindings/sftp/openssh_test.go, through bindings/sftp/sftptest). The tests start sshd
# themselves, as a subprocess on 127.0.0.1 with a generated config and host key; this
# script only provides what they cannot create:
#
#   - a local system user, soapwire-sftp, with a known password and no login shell
#     (sshd serves it only internal-sftp);
#   - its home /var/lib/soapwire-sftp with a writable drop folder, drop/ (the tests make
#     one sub-folder per test in it), and .ssh/authorized_keys holding a test key;
#   - that key's private half, /var/lib/soapwire-sftp-key/id_ed25519, readable by root only;
#   - sshd's privilege separation folder, /run/sshd.
#
# The password and key are test credentials for a loopback-only server that exists while a
# test runs; nothing listens with them otherwise. Run as root; running it again changes
# nothing. Keep the names in step with the defaults in bindings/sftp/sftptest/sshd.go.
set -euo pipefail

user=soapwire-sftp
password=soapwire-sftp-test
home=/var/lib/soapwire-sftp
keydir=/var/lib/soapwire-sftp-key

if ! command -v /usr/sbin/sshd >/dev/null; then
	echo "sftp.sh: /usr/sbin/sshd is missing (install the openssh-server package)" >&2
	exit 1
fi

if ! id -u "$user" >/dev/null 2>&1; then
	useradd --system --user-group --home-dir "$home" --no-create-home \
		--shell /usr/sbin/nologin --comment "soapwire SFTP tests" "$user"
fi
echo "$user:$password" | chpasswd

# sshd's StrictModes: the home and .ssh belong to the user and are not writable by others.
install -d -o "$user" -g "$user" -m 0755 "$home"
install -d -o "$user" -g "$user" -m 0755 "$home/drop"
install -d -o "$user" -g "$user" -m 0700 "$home/.ssh"
install -d -o root -g root -m 0700 "$keydir"
if [[ ! -f "$keydir/id_ed25519" ]]; then
	ssh-keygen -q -t ed25519 -N '' -C "soapwire sftp tests" -f "$keydir/id_ed25519"
fi
install -o "$user" -g "$user" -m 0600 "$keydir/id_ed25519.pub" "$home/.ssh/authorized_keys"
install -d -o root -g root -m 0755 /run/sshd

echo "sftp.sh: user $user, drop folder $home/drop, key $keydir/id_ed25519 ready"
