// Package ftptest starts a real FTP server, Debian's vsftpd, for tests of
// the FTP binding and of code built on it. StartVsftpd runs vsftpd as a
// subprocess on a free loopback port with a generated configuration
// (Config), logged in as the local user that .ci/setup.d/ftp.sh creates,
// and gives each test a fresh folder in that user's drop folder.
//
// When vsftpd, the user or root privileges are missing, StartVsftpd skips
// the test and says why (coretest.RequirePeer, which also counts the skip
// for coretest.RunWithPeerSummary), unless SOAPWIRE_REQUIRE_PEERS=1: then it
// fails (CI sets it, so the real-server tests can never be skipped
// unnoticed).
//
// The user and folder default to what .ci/setup.d/ftp.sh creates and can be
// changed with SOAPWIRE_FTP_USER, SOAPWIRE_FTP_PASSWORD and
// SOAPWIRE_FTP_HOME.
//
// Package ftptest is imported only from tests.
package ftptest
