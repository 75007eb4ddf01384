// Package sftptest runs Debian's OpenSSH server (sshd, with its
// internal-sftp) on loopback for one test, for tests of code built on
// bindings/sftp. It needs root, /usr/sbin/sshd and the user and key that
// .ci/setup.d/sftp.sh creates; without them StartSSHD skips the test
// (through coretest.RequirePeer: it fails instead when
// SOAPWIRE_REQUIRE_PEERS=1, as CI sets it).
package sftptest
