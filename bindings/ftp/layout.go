package ftp

import "github.com/soapwire/soapwire/bindings/internal/drop"

// Layout names the folders of a drop endpoint, each relative to the
// endpoint's root folder: Inbox (where senders drop, default "inbox"), Work
// (claimed files, "work"), Outbox (replies for anonymous ReplyTo, "outbox";
// "" for none), Failed (parked files with their .fault.xml, "failed"), Done
// (Acked files kept, "" to delete) and Quarantine (files whose names no
// message has, "quarantine"; "" leaves them in the inbox).
type Layout = drop.Layout

// DefaultLayout returns inbox, work, outbox, failed and quarantine, and no
// done folder.
func DefaultLayout() Layout { return drop.DefaultLayout() }
