#!/usr/bin/env bash
# Setup for bindings/imap's tests against a real IMAP server (bindings/imap/dovecot_test.go):
# Dovecot (dovecot-imapd, installed by .ci/run), neither configured nor used as installed. Each
# test runs a private instance itself, as root, with a generated dovecot.conf, users, certificate
# and mail in a temporary folder, listening on 127.0.0.1 only; nothing is left running
# afterwards (on free ports, so an instance the package may have started does not matter). Run
# as root; running it again changes nothing.
set -euo pipefail

if ! command -v dovecot >/dev/null && [[ ! -x /usr/sbin/dovecot ]]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends dovecot-imapd
fi
/usr/sbin/dovecot --version
id dovecot >/dev/null
id dovenull >/dev/null
