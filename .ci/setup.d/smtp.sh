#!/usr/bin/env bash
# Setup for bindings/smtp's test against a real MTA (bindings/smtp/postfix_test.go):
# Postfix, installed but neither configured nor started. The test runs a private instance
# itself, as root, with a generated main.cf/master.cf in a temporary folder, listening on
# 127.0.0.1 only and delivering into a Maildir there; nothing is left running afterwards.
# Run as root; running it again changes nothing.
set -euo pipefail

if ! command -v postfix >/dev/null; then
	echo "postfix postfix/main_mailer_type select No configuration" | debconf-set-selections
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postfix
fi
id postfix >/dev/null
