// Package sftp carries SOAP 1.1 and 1.2 envelopes as files on an SFTP
// server (OpenSSH's, or any SSH File Transfer Protocol server): a Sender
// that drops a message into a folder, a Poller that takes the messages
// dropped into an endpoint's inbox, a Client (a pool of SSH connections)
// they share, and an embedded server for tests and examples. The Poller is
// the file-drop engine every file-drop binding shares
// (docs/bindings/file-drops.md) on an SFTP server.
//
// Callers alias the package:
//
//	import soapsftp "github.com/soapwire/soapwire/bindings/sftp"
//
// SSH and SFTP are github.com/pkg/sftp over golang.org/x/crypto/ssh.
//
// # Addresses
//
// An address is sftp://user@host:port/folder (the port defaults to 22, the
// user to the Client's). A password in an address is refused: a Client
// logs in with its own credentials, and a Sender refuses addresses on any
// other server or account (ErrForeignServer), whatever a peer writes in
// ReplyTo.
//
// # Host keys
//
// The server's host key is always verified: against a known_hosts file
// (WithKnownHosts; by default ~/.ssh/known_hosts) or a pinned key
// (WithHostKey). A host not in the file is refused (ErrUnknownHost), and
// so is a host whose key differs (ErrHostKey).
//
// # Connections
//
// Every operation takes an SSH connection (with its SFTP session) from the
// Client's pool (WithPoolSize). Idle connections send keepalives
// (WithKeepAlive); a connection that breaks is dropped and a new one
// dialled, with backoff when dialling fails; ctx and WithIOTimeout bound
// every operation. Renames use the posix-rename@openssh.com extension
// where the server has it (atomic, replacing), else SFTP's own rename.
package sftp
