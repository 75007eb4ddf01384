// Package file carries SOAP 1.1 and 1.2 envelopes as files in local
// folders (a directory another program writes, a mounted share): a Sender
// that drops a message into a folder, and a Poller that takes the messages
// dropped into an endpoint's inbox. It is the file-drop engine every
// file-drop binding shares (bindings/ftp, bindings/sftp;
// docs/bindings/file-drops.md) on the operating system's file system.
//
// Callers alias the package:
//
//	import soapfile "github.com/soapwire/soapwire/bindings/file"
//
// # Addresses
//
// An address is file:///absolute/folder (a host, when given, must be
// localhost). A Sender writes only below the root folder it was made for
// (ErrOutsideRoot otherwise, whatever a peer writes in ReplyTo), and
// through os.Root: a symbolic link that leads out of the root is refused.
//
// # Durable, atomic, across processes
//
// A file is written under a temporary name created with O_EXCL, synced
// (fsync), renamed to its final name, and its folder synced, before Send
// returns: a message Send reported is on disk, whole, under its name. A
// claim is a rename into the work folder, atomic on a local file system: of
// several Pollers, in one process or many, exactly one gets each file.
// Claims and settlements are not synced: after a power loss a processed
// file may come back (delivery is at least once across crashes, as with
// every file drop).
//
// On network file systems: NFS and SMB servers rename atomically within
// one export or share, so claims hold across the clients of one server;
// see docs/bindings/file.md for what does not hold there (listings cached
// by clients, clocks, locks).
package file
