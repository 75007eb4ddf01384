#!/usr/bin/env bash
# Setup for bindings/ftp's tests against a real vsftpd (internal/e2e/ftp_vsftpd_test.go,
# bindings/ftp/vsftpd_test.go). The tests start vsftpd themselves, as a subprocess on
# 127.0.0.1 with a generated config; this script only provides what they cannot create:
#
#   - a local system user, soapwire-ftp, with a known password and no login shell;
#   - its home /var/lib/soapwire-ftp (root-owned, so vsftpd may chroot into it) with a
#     writable drop folder, drop/ (the tests make one sub-folder per test in it);
#   - a PAM service, /etc/pam.d/soapwire-ftp, that checks the password with pam_unix only
#     (Debian's /etc/pam.d/vsftpd also wants a login shell, which this user has none of);
#   - vsftpd's secure_chroot_dir, /var/run/vsftpd/empty.
#
# The password is a test credential for a loopback-only server that exists while a test
# runs; nothing listens with it otherwise. Run as root; running it again changes nothing.
# Keep the names in step with the defaults in bindings/ftp/vsftpd_test.go.
set -euo pipefail

user=soapwire-ftp
password=soapwire-ftp-test
home=/var/lib/soapwire-ftp

if ! command -v /usr/sbin/vsftpd >/dev/null; then
	echo "ftp.sh: /usr/sbin/vsftpd is missing (install the vsftpd package)" >&2
	exit 1
fi

if ! id -u "$user" >/dev/null 2>&1; then
	useradd --system --user-group --home-dir "$home" --no-create-home \
		--shell /usr/sbin/nologin --comment "soapwire FTP tests" "$user"
fi
echo "$user:$password" | chpasswd

install -d -o root -g root -m 0755 "$home"
install -d -o "$user" -g "$user" -m 0755 "$home/drop"
install -d -o root -g root -m 0755 /var/run/vsftpd/empty

pam=/etc/pam.d/soapwire-ftp
want='# soapwire bindings/ftp tests (.ci/setup.d/ftp.sh): password check only.
auth	required	pam_unix.so
account	required	pam_unix.so'
if [[ ! -f "$pam" ]] || [[ "$(cat "$pam")" != "$want" ]]; then
	printf '%s\n' "$want" >"$pam"
	chmod 0644 "$pam"
fi

echo "ftp.sh: user $user, drop folder $home/drop, PAM service soapwire-ftp ready"
