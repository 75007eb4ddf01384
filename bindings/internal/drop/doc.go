// Package drop is the file-drop engine the file-drop bindings share
// (bindings/ftp, bindings/sftp, bindings/file): the Poller that lists an
// endpoint's inbox, claims a file by atomic rename into the work folder,
// holds the claim as a renewed lease, spools it within Limits, reads its
// envelope, and settles it (delete or done/, parked in failed/ with its
// fault, or back to the inbox on a shutdown), and Store, which writes a
// file under a temporary name and renames it. Everything goes through FS,
// a small file-system interface (list, stat, rename, open, write, remove,
// mkdir) each binding implements for its transport.
//
// What goes wrong with file drops is handled here once, for every
// transport:
//
//   - a listing entry the file system cannot read (a line too long) is
//     passed over and logged, the rest of the listing served;
//   - claims and downloads run in the background of Receive, one after
//     another, another starting beside one that has run for a second (up
//     to Config.Transfers), each cut off when it stays silent for
//     Config.Stall, so one stalled file never holds up the listing or the
//     others;
//   - a file that looks unfinished (no Envelope end tag; for a MIME file,
//     a message with attachments, no closing delimiter) is taken as it is
//     only once its size and modification time held for Config.Settle,
//     and a file parked that way is watched: when it changes afterwards
//     (an upload that had only paused), it goes back to the inbox;
//   - temporary files (.<name>.<hex>.part) older than Config.TempGrace are
//     removed from the endpoint's folders (a crashed sender's);
//   - a file whose claim or download fails backs off on its own (1 s
//     doubling to 5 min) and is logged once with the count of failures;
//   - a file whose name no message has is moved to the quarantine folder
//     (or left, Layout.Quarantine ""), logged once with its name escaped
//     (Escape: a right-to-left override shows as \u202e); a name unsafe to
//     send back to the server is never used in a command.
//
// docs/bindings/file-drops.md describes the semantics for users.
package drop
